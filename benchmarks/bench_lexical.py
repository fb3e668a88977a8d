"""Lexical paraphrasing baseline: speed and effect on linkage, on the bundled ECHR data.

    python benchmarks/bench_lexical.py                      # 3 query documents
    python benchmarks/bench_lexical.py --n-docs 5 --index indexes/echr

Over `assets/echr/queries.jsonl` (masked TAB test documents; the first
--n-docs of them) and an N-gram index of `assets/echr/collection.jsonl`
(built once into --workdir unless --index is given), at k = 2, max_arity = 3:

- start-up: WordNet index parsing, spaCy pipeline, sentence model;
- whole-document mode (rate 0.5): seconds per document, share of content
  words rewritten, share of words dropped;
- spans-only mode through the rewrite loop (3 passes, no guarantee mode):
  seconds per document, flagged spans before, the share of the input's flagged
  spans whose text still occurs in the output (the paper's linkable N-gram
  proportion, arity <= 3), documents safe without redaction;
- the scorer's share of the time (embedding similarity vs everything else).

Prints ONE JSON object on stdout; progress goes to stderr.
"""
import argparse
import json
import os
import subprocess
import sys
import time
from itertools import islice
from pathlib import Path
from typing import Any, Dict, List

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent


def log(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def ensure_index(collection: Path, path: Path) -> Path:
    if not (path / "meta.json").is_file():
        log(f"building the index of {collection} into {path}")
        cmd = [sys.executable, "-m", "spacy_linkguard", "build-index", str(collection), str(path), "--no-progress"]
        subprocess.run(cmd, check=True, stdout=sys.stderr)
    return path


class TimedSimilarity:
    """Wraps a similarity to measure its share of the time."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.seconds = 0.0
        self.pairs = 0

    def __call__(self, a, b):
        t0 = time.perf_counter()
        out = self.inner(a, b)
        self.seconds += time.perf_counter() - t0
        self.pairs += len(a)
        return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n-docs", type=int, default=3)
    ap.add_argument("--queries", type=Path, default=ROOT / "assets/echr/queries.jsonl")
    ap.add_argument("--collection", type=Path, default=ROOT / "assets/echr/collection.jsonl")
    ap.add_argument("--index", type=Path, default=None)
    ap.add_argument("--workdir", type=Path, default=ROOT / "benchmarks/results/lexical")
    ap.add_argument("--passes", type=int, default=3)
    ap.add_argument("--rate", type=float, default=0.5)
    args = ap.parse_args()

    from spacy_linkguard.baselines.rewriter import LexicalRewriter
    from spacy_linkguard.rewrite import RewriteLoop
    from spacy_linkguard.baselines.paraphraser import load_tagger
    from spacy_linkguard.baselines.registry import make_lexical
    from spacy_linkguard.baselines.scoring import EmbeddingSimilarity, HarmonicScorer
    from spacy_linkguard.baselines.wordnet import WordNet
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import NgramIndex
    from spacy_linkguard.rewrite import occurs

    index_path = args.index or ensure_index(args.collection, args.workdir / "index")
    detector = Detector(NgramIndex.load(index_path), k=2, max_arity=3)
    records = list(islice(iter_records(args.queries), args.n_docs))

    t0 = time.perf_counter()
    wordnet = WordNet()
    for pos in "nvar":
        wordnet.synonyms("good", pos)
    t_wordnet = time.perf_counter() - t0
    t0 = time.perf_counter()
    nlp = load_tagger()
    t_spacy = time.perf_counter() - t0
    t0 = time.perf_counter()
    similarity = TimedSimilarity(EmbeddingSimilarity())
    similarity(["warm up"], ["warm up"])
    t_model = time.perf_counter() - t0
    similarity.seconds = 0.0
    similarity.pairs = 0
    lexical = make_lexical(rate=args.rate, seed=0)
    lexical.wordnet, lexical._nlp, lexical.scorer = wordnet, nlp, HarmonicScorer(similarity)

    log("whole-document mode")
    doc_secs: List[float] = []
    n_content = n_rewritten = n_dropped = 0
    t_sim_doc = 0.0
    for rec in records:
        t0 = time.perf_counter()
        res = lexical.paraphrase_document(rec.text, seed=0)
        doc_secs.append(time.perf_counter() - t0)
        doc = nlp(rec.text)
        n_content += sum(1 for t in doc if t.pos_ in ("NOUN", "VERB", "ADJ", "ADV") and not t.is_stop and t.is_alpha)
        n_rewritten += res.stats()["n_synonyms"] + res.stats()["n_dropped"]
        n_dropped += res.stats()["n_dropped"]
    t_sim_doc, similarity.seconds = similarity.seconds, 0.0

    log("spans-only mode through the rewrite loop")
    loop = RewriteLoop(detector, LexicalRewriter(lexical, seed=0), max_passes=args.passes, guarantee=False)
    span_secs: List[float] = []
    flagged = still = safe = 0
    import warnings

    for rec in records:
        spans = detector.detect(rec.text).spans
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = loop.run([rec.text], ids=[rec.id])[0]
        span_secs.append(time.perf_counter() - t0)
        flagged += len(spans)
        still += sum(occurs(rec.text[s.start_char:s.end_char], res.text, detector.settings) for s in spans)
        safe += bool(res.safe)
    t_sim_spans = similarity.seconds

    def mean(xs: List[float]) -> float:
        return round(sum(xs) / len(xs), 3) if xs else 0.0

    out: Dict[str, Any] = {
        "bench": "lexical",
        "n_docs": len(records),
        "mean_words_per_doc": round(sum(len(r.text.split()) for r in records) / max(1, len(records)), 1),
        "index": str(index_path),
        "startup_seconds": {"wordnet": round(t_wordnet, 3), "spacy_pipeline": round(t_spacy, 3),
                            "sentence_model": round(t_model, 3)},
        "document_mode": {
            "rate": args.rate,
            "seconds_per_doc": mean(doc_secs),
            "share_of_content_words_changed": round(n_rewritten / max(1, n_content), 3),
            "share_of_changes_that_are_drops": round(n_dropped / max(1, n_rewritten), 3),
            "similarity_share_of_time": round(t_sim_doc / max(1e-9, sum(doc_secs)), 3),
        },
        "spans_mode": {
            "passes": args.passes,
            "guarantee": False,
            "seconds_per_doc": mean(span_secs),
            "flagged_spans_per_doc": round(flagged / max(1, len(records)), 1),
            "linkable_proportion_arity3": round(still / max(1, flagged), 3),
            "docs_safe_without_redaction": safe,
            "similarity_share_of_time": round(t_sim_spans / max(1e-9, sum(span_secs)), 3),
        },
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
