"""Semantic linkage (the paper's Figure 3): does meaning alone link a document?

Each query document has a growing share of its words replaced by the
placeholder; an adversary embeds it and ranks the whole collection by cosine.
We count how often the query's original is in the top k. Exact-phrase
protection cannot help here: this measures what is left once no phrase links.
`run_semantic_linkage` is the whole experiment (the `semantic-linkage` command).
"""
import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..errors import Errors, LinkguardError
from ..attack.embedding import target_ranks  # noqa: F401 (the embedding attacker's ranking, re-exported)
from .metrics import wilson_interval


def redact_words(text: str, fraction: float, rng: random.Random, placeholder: str = "[REDACTED]") -> str:
    """Replace round(fraction * n) of the words of `text` by the placeholder.

    Words are whitespace-separated pieces not already redacted; which ones
    are chosen depends only on `rng`. Whitespace between words is kept.

    text (str): The document.
    fraction (float): Share of words to redact, in [0, 1].
    rng (random.Random): Source of randomness (seeded by the caller).
    RETURNS (str): The redacted text.
    RAISES: LinkguardError E258 for a fraction outside [0, 1].
    """
    if not 0.0 <= fraction <= 1.0:
        raise LinkguardError(Errors.E258.format(value=fraction))
    pieces = _split_keep_space(text)
    word_idx = [i for i, p in enumerate(pieces) if p.strip() and placeholder not in p]
    n = int(round(fraction * len(word_idx)))
    for i in rng.sample(word_idx, n):
        pieces[i] = placeholder
    return "".join(pieces)


def _split_keep_space(text: str) -> List[str]:
    import re

    return re.split(r"(\s+)", text)


@dataclass
class LevelResult:
    """Top-k hit rates at one redaction level."""

    level: float
    n: int
    hits: Dict[int, int] = field(default_factory=dict)

    def to_dict(self) -> Dict[str, object]:
        out: Dict[str, object] = {"level": self.level, "n": self.n, "by_k": {}}
        for k, h in sorted(self.hits.items()):
            lo, hi = wilson_interval(h, self.n)
            out["by_k"][str(k)] = {"hits": h, "rate": h / self.n if self.n else None, "low": lo, "high": hi}  # type: ignore[index]
        return out


def hits_at_k(ranks: Sequence[int], ks: Sequence[int]) -> Dict[int, int]:
    """Number of ranks below each k (rank 0 = top-1)."""
    return {k: sum(1 for r in ranks if r < k) for k in ks}


def parse_levels(text: str) -> List[float]:
    """Parse "0,0.2,0.4" into sorted redaction levels in [0, 1).

    RAISES: LinkguardError E258 on a bad value.
    """
    levels = []
    for part in str(text).split(","):
        try:
            v = float(part)
        except ValueError:
            raise LinkguardError(Errors.E258.format(value=part)) from None
        if not 0.0 <= v < 1.0:
            raise LinkguardError(Errors.E258.format(value=part))
        levels.append(v)
    return sorted(set(levels))


def parse_ks(text: str) -> List[int]:
    """Parse "1,10" into sorted top-k cut-offs (each >= 1).

    RAISES: LinkguardError E254 on an empty list or a bad value.
    """
    try:
        ks = sorted({int(x) for x in str(text).split(",") if x.strip()})
    except ValueError:
        raise LinkguardError(Errors.E254.format(name="--ks", value=text)) from None
    if not ks or ks[0] < 1:
        raise LinkguardError(Errors.E254.format(name="--ks", value=text))
    return ks


def collection_cache_file(collection: Path, model: str, cache_dir: Path) -> Path:
    """Where `collection_embeddings` keeps a collection's embeddings: named by
    the collection file's sha256 (16 hex digits) and the model."""
    import hashlib

    digest = hashlib.sha256(Path(collection).read_bytes()).hexdigest()[:16]
    return Path(cache_dir) / f"collection-{digest}-{Path(model).name}.npy"


def collection_embeddings(embedder: Any, texts: Sequence[str], *, collection: Path, model: str,
                          cache_dir: Optional[Path] = None, progress: bool = True) -> np.ndarray:
    """Embeddings of the collection's texts, read from (and written to) a
    `cache_dir` file named by the collection file's hash and the model
    (`collection_cache_file`)."""
    cache_file = None
    if cache_dir:
        cache_file = collection_cache_file(collection, model, cache_dir)
        if cache_file.is_file():
            return np.load(cache_file)
    print(f"embedding {len(texts)} collection documents with {model}", file=sys.stderr)
    emb = embedder.embed(list(texts), truncate=True, progress=progress)
    if cache_file:
        cache_file.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache_file, emb)
    return emb


def run_semantic_linkage(
    queries: Union[str, Path],
    collection: Union[str, Path],
    *,
    model: str = "all-MiniLM-L6-v2",
    levels: Sequence[float] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9),
    ks: Sequence[int] = (1, 10),
    max_queries: int = 0,
    seed: int = 0,
    systems: Sequence[Tuple[str, Union[str, Path]]] = (),
    cache_dir: Optional[Path] = None,
    placeholder: str = "[REDACTED]",
    progress: bool = True,
    committed: Optional[Path] = None,
) -> Dict[str, Any]:
    """Figure 3: how often each query's original stays in the top k of the
    collection by embedding cosine, after redacting each share of its words.

    queries: JSONL query documents; each id must be in `collection` (JSONL originals).
    model: an installed sentence-transformers model (nothing is downloaded).
    levels: shares of words to redact (`parse_levels`); ks: top-k cut-offs (`parse_ks`).
    max_queries: use at most this many queries (0: all). seed: of the word choice.
    systems: (name, OUTPUT.jsonl) pairs: these rewritten documents are ranked
        too, with no extra redaction.
    committed: folder of a full run's outputs: a system file covering only
        some of the queries (a smoke run) is replaced by the file of the same
        name there (`committed_stand_in`; kept as it is, with W253, when there is none).
    cache_dir: folder to cache the collection embeddings in.
    RETURNS (dict): the results JSON (`plot_figure3` draws it).
    RAISES: LinkguardError E257 (a query or output id not in the collection)
        and those of the corpora and the model.
    """
    from tqdm import tqdm

    from ..corpus import iter_records
    from .similarity import Embedder
    from .systems import committed_stand_in, read_output_objects

    k_list = sorted(ks)
    coll = list(iter_records(collection))
    pos = {r.id: i for i, r in enumerate(coll)}
    qs = list(iter_records(queries))
    if max_queries > 0:
        qs = qs[:max_queries]
    for q in qs:
        if q.id not in pos:
            raise LinkguardError(Errors.E257.format(doc_id=q.id, path=collection))
    targets = [pos[q.id] for q in qs]
    emb = Embedder(model)
    coll_emb = collection_embeddings(emb, [r.text for r in coll], collection=Path(collection), model=model,
                                     cache_dir=cache_dir, progress=progress)
    results_levels = []
    for level in tqdm(levels, desc="redaction levels", disable=not progress):
        rng = random.Random(f"{seed}-{level}")
        texts = [redact_words(q.text, level, rng, placeholder) for q in qs]
        ranks = target_ranks(emb.embed(texts, truncate=True), coll_emb, targets)
        results_levels.append(LevelResult(level, len(qs), hits_at_k(ranks, k_list)).to_dict())
    by_system = {}
    for name, path in systems:
        path = committed_stand_in(Path(path), [q.id for q in qs], committed, name) or Path(path)
        objs = list(read_output_objects(path).values())
        for o in objs:
            if o["id"] not in pos:
                raise LinkguardError(Errors.E257.format(doc_id=o["id"], path=collection))
        if not objs:
            continue
        sys_targets = [pos[o["id"]] for o in objs]
        ranks = target_ranks(emb.embed([o["text"] for o in objs], truncate=True), coll_emb, sys_targets)
        by_system[name] = LevelResult(0.0, len(objs), hits_at_k(ranks, k_list)).to_dict()
    return {"model": model, "n_queries": len(qs), "n_collection": len(coll), "ks": k_list,
            "levels": results_levels, "systems": by_system, "seed": seed, "queries": str(queries),
            # 0% redacted is each query as given: already de-identified or the original text.
            "queries_with_placeholder": sum(placeholder in q.text for q in qs), "placeholder": placeholder}


def plot_figure3(result: Dict[str, object], path: str, *, title: Optional[str] = None) -> None:
    """Write Figure 3 as PNG: top-k rate vs share of words redacted, Wilson 95% bars.

    result (dict): As written by the semantic-linkage command ("levels",
        "ks", "model", optional "systems").
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    levels = result["levels"]  # type: ignore[index]
    ks = result["ks"]  # type: ignore[index]
    fig, ax = plt.subplots(figsize=(6.4, 4.2), dpi=120)
    n_k = len(ks)  # type: ignore[arg-type]
    for j, k in enumerate(ks):  # type: ignore[union-attr]
        xs, ys, lo, hi = [], [], [], []
        shift = (j - (n_k - 1) / 2) * 0.8  # side by side, so equal rates do not hide each other
        for lv in levels:  # type: ignore[union-attr]
            row = lv["by_k"][str(k)]
            xs.append(lv["level"] * 100 + shift)
            ys.append(row["rate"])
            lo.append(row["rate"] - row["low"])
            hi.append(row["high"] - row["rate"])
        ax.errorbar(xs, ys, yerr=[lo, hi], marker="o", capsize=3, label=f"original in top-{k}")
    markers = ["s", "^", "D", "v", "P"]
    for j, (name, sysres) in enumerate(sorted((result.get("systems") or {}).items())):  # type: ignore[union-attr]
        k0 = ks[0]  # type: ignore[index]
        row = sysres["by_k"][str(k0)]
        ax.errorbar([0], [row["rate"]], yerr=[[row["rate"] - row["low"]], [row["high"] - row["rate"]]],
                    marker=markers[j % len(markers)], linestyle="none", capsize=3,
                    label=f"{name} (top-{k0})")
    ax.set_xlabel("words redacted (%)")
    ax.set_ylabel("share of queries whose original is retrieved")
    ax.set_ylim(-0.02, 1.02)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower left")
    ax.set_title(title or f"Semantic linkage by embedding search ({result.get('model')})", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
