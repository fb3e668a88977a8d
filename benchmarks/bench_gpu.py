"""Benchmark: linkguard.HF.v1 generation with a Qwen3-4B-shaped model; prints ONE JSON object.

    python benchmarks/bench_gpu.py                      # on a GPU: Qwen3-4B shape, bf16
    python benchmarks/bench_gpu.py --tiny               # a tiny config on the CPU (CI runs this)
    python benchmarks/bench_gpu.py --variants dynamic,static --batch-sizes 1,64

The cost of generating depends on the architecture, not on the weight values,
so a `Qwen3ForCausalLM` built from Qwen3-4B's published configuration with
random weights generates exactly as fast as the real model. It is driven
through `HFChatModel` -- the same code `linkguard.HF.v1` runs in production
(chat template, length sorting, left-padded batched `generate`, decoding) --
with the SmolLM2 tokenizer from models/ (its ids, < 49,152, are all inside
Qwen's vocabulary of 151,936).

Workload: per-chunk (prompt tokens, completion tokens) as the CPU rewrite
benchmark recorded them (`--workload`, the JSON of benchmarks/bench_rewrite.py
or a file with a "chunks" list). Prompts of exactly those lengths are cut from
the bundled ECHR texts. Random weights never emit an end token, so every
completion is forced to a set length (min_new_tokens = max_new_tokens) and
the benchmark times exactly the measured lengths: a batch runs as many decode
steps as its longest recorded completion, as it would in production.

Per batch size B (one warm-up, then `--repeats` timed runs, median), B chunks
are taken at evenly spaced quantiles of the workload's prompt lengths:
  - prefill: a run with one new token; prompt tokens / seconds;
  - decode: (full run - prefill run); generated tokens (B x steps) / seconds,
    and useful tokens (the recorded completion lengths) / seconds.
From these rates and the rewrite benchmark's tokens per document, the JSON
gives estimated GPU seconds per document for arity 1 and arity <= 3.

This file imports neither spaCy nor spacy-llm (the GPU machine has neither).
"""
import argparse
import inspect
import json
import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

# Qwen3-4B's published config.json (Qwen/Qwen3-4B): shape and positions.
QWEN3_4B = dict(
    hidden_size=2560,
    intermediate_size=9728,
    num_hidden_layers=36,
    num_attention_heads=32,
    num_key_value_heads=8,
    head_dim=128,
    vocab_size=151936,
    max_position_embeddings=40960,
    rope_theta=1_000_000.0,
    rms_norm_eps=1e-6,
    tie_word_embeddings=True,
    hidden_act="silu",
    attention_bias=False,
)
# Same layout, small enough for a CPU test.
TINY = dict(QWEN3_4B, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
            num_attention_heads=4, num_key_value_heads=2, head_dim=16)
PAPER_SECONDS_PER_DOC = {"arity_1": 15.5, "arity_le_3": 52.6}  # one GPU, Qwen3-4B
DEFAULT_TOKENIZER = REPO / "models" / "SmolLM2-135M-Instruct-hf"
DEFAULT_TEXTS = REPO / "assets" / "echr" / "queries.jsonl"
# Tokenizer files only: the GPU machine gets these, never the weights.
TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja",
                   "special_tokens_map.json", "generation_config.json")


# --- workload ------------------------------------------------------------------
def load_workload(paths: Sequence[Path]) -> Tuple[List[Tuple[int, int]], Dict[str, Any], List[str]]:
    """Per-chunk (prompt_tokens, completion_tokens) and per-document token stats.

    paths: JSON files, each the output of benchmarks/bench_rewrite.py
        ("chunk_tokens": [[P, C], ...], "summary", "max_arity") or of
        `--measure-workload` ({"chunks": [...], "per_document": {label: ...}}).
        The chunks come from the first file that has any; per-document stats
        are merged by label (arity_1, arity_le_3), the first file winning.
    RETURNS: (chunks, {label: {"prompt_tokens", "completion_tokens", "llm_calls", "source"}}, sources).
    RAISES: ValueError when no file holds per-chunk lengths.
    """
    chunks: List[Tuple[int, int]] = []
    per_doc: Dict[str, Any] = {}
    sources: List[str] = []
    for path in paths:
        label, _, name = str(path).rpartition("=")
        path = Path(name)
        if path.suffix == ".jsonl":  # output lines of `python -m spacy_linkguard rewrite`
            data = _from_rewrite_output(path, label or "rewrite")
        else:
            data = json.loads(path.read_text(encoding="utf8"))
        found = [(int(p), int(c)) for p, c in data.get("chunk_tokens", []) if p > 0 and c > 0]
        found = found or _find_chunks(data)
        if found and not chunks:
            chunks = found
            sources.append(f"chunks: {path}")
        for label, stats in _per_document(data).items():
            if label not in per_doc:
                per_doc[label] = {**stats, "source": str(path)}
    if not chunks:
        raise ValueError(f"{', '.join(map(str, paths))} hold no per-chunk prompt/completion token lengths")
    return chunks, per_doc, sources


def _from_rewrite_output(path: Path, label: str) -> Dict[str, Any]:
    """Per-call lengths and per-document means (all passes, retries included)
    from the JSONL the `rewrite` CLI writes, as {"chunk_tokens", "per_document"}."""
    docs = [json.loads(line) for line in open(path, encoding="utf8") if line.strip()]
    calls = [t for d in docs for p in d.get("passes", []) for t in p.get("chunk_tokens", [])]
    n = max(1, len(docs))

    def total(key):
        return sum(p.get(key, 0) for d in docs for p in d.get("passes", [])) / n

    return {"chunk_tokens": calls, "per_document": {label: {
        "prompt_tokens": total("prompt_tokens"), "completion_tokens": total("completion_tokens"),
        "llm_calls": total("llm_calls"), "passes": sum(len(d.get("passes", [])) for d in docs) / n,
        "documents": len(docs)}}}


def _per_document(data: Dict[str, Any]) -> Dict[str, Any]:
    if isinstance(data.get("per_document"), dict):
        return dict(data["per_document"])
    summary = data.get("summary") or {}
    if "llm_calls_per_doc" not in summary:
        return {}
    arity = data.get("max_arity")
    label = "arity_1" if arity == 1 else f"arity_le_{arity}"
    return {label: {"prompt_tokens": summary["prompt_tokens_per_doc"],
                    "completion_tokens": summary["completion_tokens_per_doc"],
                    "llm_calls": summary["llm_calls_per_doc"],
                    "passes": summary.get("passes_mean"), "documents": data.get("docs")}}


SUMMARY_KEYS = ("per_document", "per_doc", "total", "totals", "mean", "summary", "passes")


def _find_chunks(data: Any) -> List[Tuple[int, int]]:
    # Per-call records may be nested; take every dict that has both token
    # counts, wherever it sits, except under keys that hold sums or means.
    found: List[Tuple[int, int]] = []
    if isinstance(data, dict):
        if isinstance(data.get("prompt_tokens"), int) and isinstance(data.get("completion_tokens"), int):
            return [(data["prompt_tokens"], data["completion_tokens"])]
        for key, value in data.items():
            if not any(k in str(key).lower() for k in SUMMARY_KEYS):
                found.extend(_find_chunks(value))
    elif isinstance(data, list):
        for value in data:
            found.extend(_find_chunks(value))
    return [(p, c) for p, c in found if p > 0 and c > 0]


def measure_workload(queries: Path, detections: Dict[str, Path], tokenizer_dir: Path,
                     reasoning_words: int = 100) -> Dict[str, Any]:
    """Chunk lengths without a rewrite run (the fallback when bench_rewrite's JSON is missing).

    Renders the real prompt (linkguard.Rewrite.v1 with its bundled template and
    examples, chat template of `tokenizer_dir`) over the flagged chunks of the
    first pass, for the documents of `detections` ({arity label: JSONL written
    by `python -m spacy_linkguard detect`}). The completion is estimated as the
    chunk's tokens + `reasoning_words` words of reasoning (the prompt's cap) +
    the JSON wrapper. Needs spaCy and spacy-llm (CPU side only).
    RETURNS: {"chunks": [...], "per_document": {label: means}, "source": ...}.
    """
    from spacy_linkguard.llm.models.hf import HFChatModel
    from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task

    task = make_rewrite_task()
    hf = HFChatModel(str(tokenizer_dir), device="cpu")
    texts = {}
    with open(queries, encoding="utf8") as f:
        for line in f:
            rec = json.loads(line)
            texts[rec["id"]] = rec["text"]
    reasoning = " ".join(["word"] * reasoning_words)
    chunks: List[Dict[str, Any]] = []
    per_document: Dict[str, Any] = {}
    for label, path in detections.items():
        docs = [json.loads(line) for line in open(path, encoding="utf8")]
        totals = {"prompt_tokens": 0, "completion_tokens": 0, "llm_calls": 0}
        for doc in docs:
            spans = [(s["start_char"], s["end_char"]) for s in doc["spans"]]
            for chunk in task.chunks(texts[doc["id"]], spans):
                if not chunk.flagged:
                    continue
                prompt = hf.count_tokens(hf.format_prompt(task.render(chunk)))
                answer = json.dumps({"text": chunk.text}, ensure_ascii=False)
                # ~1.3 tokens a word of English reasoning; +1 for the end token.
                completion = hf.count_tokens(answer) + int(1.3 * reasoning_words) + 1
                chunks.append({"arity": label, "doc": doc["id"], "prompt_tokens": prompt,
                               "completion_tokens": completion})
                totals["prompt_tokens"] += prompt
                totals["completion_tokens"] += completion
                totals["llm_calls"] += 1
        per_document[label] = {k: v / max(1, len(docs)) for k, v in totals.items()}
        per_document[label]["documents"] = len(docs)
    return {"source": f"measured by bench_gpu.py --measure-workload over {queries} "
                      "(first pass only; completion = chunk + reasoning estimate)",
            "reasoning_words": reasoning_words, "chunks": chunks, "per_document": per_document}


def measure_json_stop(queries: Path, detections: Path, model_dir: Path, sample: int,
                      batch_size: int = 8, max_new_tokens: int = 300, seed: int = 0) -> Dict[str, Any]:
    """What stopping at the JSON answer saves, with a real small chat model on the CPU.

    Generates replies to `sample` real prompts (flagged chunks of the first
    pass, as in `measure_workload`) with `model_dir` (SmolLM2, the CPU
    config's sampling: temperature 0.3, top_p 0.9), once WITHOUT the stop.
    The same seed gives the same tokens with the stop up to the cut, so the
    cut of each reply (the answer's closing brace, `stopping.JsonAnswerScanner`)
    gives both runs from one: per reply and per batch (a batch decodes until
    its longest reply ends).
    RETURNS: token counts with and without the stop.
    """
    from spacy_linkguard.llm.models.hf import HFChatModel
    from spacy_linkguard.llm.models.stopping import JsonAnswerScanner
    from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task

    task = make_rewrite_task()
    texts = {}
    with open(queries, encoding="utf8") as f:
        for line in f:
            rec = json.loads(line)
            texts[rec["id"]] = rec["text"]
    prompts = []
    for line in open(detections, encoding="utf8"):
        doc = json.loads(line)
        spans = [(s["start_char"], s["end_char"]) for s in doc["spans"]]
        prompts.extend(task.render(c) for c in task.chunks(texts[doc["id"]], spans) if c.flagged)
    prompts = [prompts[int((i + 0.5) * len(prompts) / sample)] for i in range(min(sample, len(prompts)))]
    hf = HFChatModel(str(model_dir), device="cpu", dtype="float32", temperature=0.3, top_p=0.9,
                     max_new_tokens=max_new_tokens, batch_size=batch_size, seed=seed)
    gens = hf.generate(prompts)
    rows = []
    for g in gens:
        scanner = JsonAnswerScanner("text")
        cut = next((i + 1 for i, ch in enumerate(g.text) if scanner.feed(ch)), None)
        with_stop = g.completion_tokens if cut is None else min(g.completion_tokens, hf.count_tokens(g.text[:cut]))
        rows.append((g.prompt_tokens, g.completion_tokens, with_stop))
    # Batches as HFChatModel.generate forms them: longest prompts first.
    ordered = sorted(rows, key=lambda r: -r[0])
    batches = [ordered[b : b + batch_size] for b in range(0, len(ordered), batch_size)]
    return {
        "model": _portable(model_dir), "replies": len(rows), "max_new_tokens": max_new_tokens,
        "answered_with_json": sum(r[2] < r[1] or parse_ok(g.text) for r, g in zip(rows, gens)),
        "completion_tokens_without_stop": sum(r[1] for r in rows),
        "completion_tokens_with_stop": sum(r[2] for r in rows),
        "batch_decode_steps_without_stop": sum(max(r[1] for r in b) for b in batches),
        "batch_decode_steps_with_stop": sum(max(r[2] for r in b) for b in batches),
        "hit_max_new_tokens": sum(r[1] >= max_new_tokens for r in rows),
        "per_reply": [{"prompt_tokens": p, "without_stop": c, "with_stop": w} for p, c, w in rows],
    }


def parse_ok(text: str) -> bool:
    from spacy_linkguard.llm.tasks.rewrite.parser import parse_reply

    return parse_reply(text) is not None


def tiny_workload(n: int = 24, seed: int = 0) -> List[Tuple[int, int]]:
    """A small spread of lengths for --tiny runs without a workload file."""
    import random

    rng = random.Random(seed)
    return [(rng.randint(48, 96), rng.randint(4, 12)) for _ in range(n)]


def pick_batch(workload: Sequence[Tuple[int, int]], size: int) -> List[Tuple[int, int]]:
    """`size` chunks at evenly spaced quantiles of the prompt lengths (cycling when
    the workload is smaller), so each batch has the workload's spread of lengths."""
    ordered = sorted(workload)
    n = len(ordered)
    return [ordered[min(n - 1, int((i + 0.5) * n / size))] for i in range(size)]


def padding_waste(workload: Sequence[Tuple[int, int]], batch_size: int, sort: bool) -> Dict[str, float]:
    """Share of prompt and decode slots spent on padding when `workload` runs in
    batches of `batch_size`, in workload order or sorted by prompt length (longest
    first, as HFChatModel does). A batch pads prompts to its longest and decodes
    for as many steps as its longest completion. Pure arithmetic, no model."""
    items = sorted(workload, key=lambda pc: -pc[0]) if sort else list(workload)
    p_used = p_slots = c_used = c_slots = 0
    for b in range(0, len(items), batch_size):
        batch = items[b : b + batch_size]
        p_used += sum(p for p, _ in batch)
        c_used += sum(c for _, c in batch)
        p_slots += len(batch) * max(p for p, _ in batch)
        c_slots += len(batch) * max(c for _, c in batch)
    return {"prompt_padding_share": 1 - p_used / p_slots, "decode_padding_share": 1 - c_used / c_slots}


# --- prompts of given lengths ----------------------------------------------------
def filler_ids(tokenizer, texts_path: Path, limit_chars: int = 400_000) -> List[int]:
    """Token ids of real court text (the bundled ECHR queries), to cut prompts from."""
    texts, total = [], 0
    with open(texts_path, encoding="utf8") as f:
        for line in f:
            text = json.loads(line)["text"]
            texts.append(text)
            total += len(text)
            if total >= limit_chars:
                break
    return tokenizer("\n\n".join(texts), add_special_tokens=False)["input_ids"]


def prompt_of_length(hf, ids: Sequence[int], target: int, offset: int) -> str:
    """A user prompt whose chat-formatted form is `target` tokens long (+-2: BPE merges
    at the cut may shift a token), cut from `ids` at `offset`."""
    tok = hf.tokenizer
    overhead = hf.count_tokens(hf.format_prompt("x")) - 1
    k = max(1, target - overhead)
    text = ""
    for _ in range(6):
        start = offset % max(1, len(ids) - k - 1)
        text = tok.decode(ids[start : start + k], skip_special_tokens=True)
        got = hf.count_tokens(hf.format_prompt(text))
        if abs(got - target) <= 1:
            break
        k = max(1, k + target - got)
    return text


# --- the model ---------------------------------------------------------------------
def build_model(shape: Dict[str, Any], tokenizer, device: str, dtype: str, seed: int):
    """A Qwen3ForCausalLM of `shape` with random weights, built directly on `device`."""
    import torch
    from transformers import Qwen3Config, Qwen3ForCausalLM

    shape = dict(shape)
    rope_theta = shape.pop("rope_theta")
    config = Qwen3Config(
        **shape,
        rope_parameters={"rope_type": "default", "rope_theta": rope_theta},
        bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
    )
    if len(tokenizer) > config.vocab_size:
        raise ValueError(f"tokenizer has {len(tokenizer)} ids, the model only {config.vocab_size}")
    torch.manual_seed(seed)
    torch_dtype = getattr(torch, dtype)
    with torch.device(device):
        model = Qwen3ForCausalLM._from_config(config, dtype=torch_dtype)
    model.eval()
    n_params = sum(p.numel() for p in model.parameters())
    return model, config, n_params


def make_hf(model, tokenizer, device: str, variant: str, batch_size: int, max_new_tokens: int):
    """The production generation object around the built model (`HFChatModel.from_objects`).

    variant: "+"-joined options: "dynamic" or "static" (KV cache), "grouped"
    (attn_implementation = "grouped_sdpa"), "jsonstop" (stop_at_json = "text"),
    e.g. "static+grouped".
    """
    import torch

    from spacy_linkguard.llm.models.hf import HFChatModel

    options = set(variant.split("+"))
    unknown = options - {"dynamic", "static", "grouped", "jsonstop"}
    if unknown:
        raise SystemExit(f"unknown variant option(s) {sorted(unknown)} in {variant!r}")
    kwargs: Dict[str, Any] = dict(device=device, batch_size=batch_size, max_new_tokens=max_new_tokens,
                                  temperature=1.2, seed=0)
    # Each variant starts from the stock model: no compiled step, SDPA attention.
    torch._dynamo.reset()
    for attr in ("_compiled_call", "_last_compile_config", "_previous_max_cache_length"):
        if hasattr(model, attr):
            delattr(model, attr)
    model.set_attn_implementation("sdpa")
    model.generation_config.cache_implementation = None
    params = inspect.signature(HFChatModel.__init__).parameters
    if "static" in options and "cache_implementation" in params:
        kwargs["cache_implementation"] = "static"
    if "grouped" in options:
        kwargs["attn_implementation"] = "grouped_sdpa"
    if "jsonstop" in options:  # random weights never write the answer: this times the check alone
        kwargs["stop_at_json"] = "text"
    hf = HFChatModel.from_objects(model, tokenizer, name="qwen3-4b-shape-random", **kwargs)
    if "static" in options and "cache_implementation" not in params:
        # Before HFChatModel had the option: the model's generation config
        # carries it into the same production `generate` call.
        model.generation_config.cache_implementation = "static"
    return hf


# --- timing ------------------------------------------------------------------------
def _sync(device: str) -> None:
    if device.startswith("cuda"):
        import torch

        torch.cuda.synchronize()


def timed_generate(hf, prompts: List[str], new_tokens: int, device: str):
    """Run production `generate` with every completion forced to `new_tokens`.

    RETURNS: (seconds, generations).
    """
    hf.max_new_tokens = new_tokens
    # min_new_tokens masks the stop ids until the limit: random weights would
    # otherwise end a sequence by chance, and we time the recorded length.
    hf.model.generation_config.min_new_tokens = new_tokens
    hf.batch_size = len(prompts)
    _sync(device)
    start = time.perf_counter()
    gens = hf.generate(prompts)
    _sync(device)
    return time.perf_counter() - start, gens


def bench_batch(hf, prompts: List[str], chunks: List[Tuple[int, int]], device: str,
                warmup: int, repeats: int) -> Dict[str, Any]:
    """Time one batch: prefill-only runs and full runs; medians of `repeats`."""
    steps = max(2, max(c for _, c in chunks))
    warm = []  # the first includes one-off costs: CUDA context, kernels, torch.compile
    for _ in range(warmup):
        warm.append(timed_generate(hf, prompts, 1, device)[0] + timed_generate(hf, prompts, steps, device)[0])
    pre, full = [], []
    gens = []
    for _ in range(repeats):
        t, _ = timed_generate(hf, prompts, 1, device)
        pre.append(t)
        t, gens = timed_generate(hf, prompts, steps, device)
        full.append(t)
    prompt_tokens = sum(g.prompt_tokens for g in gens)
    completion_lens = sorted({g.completion_tokens for g in gens})
    t_pre, t_full = statistics.median(pre), statistics.median(full)
    t_dec = max(t_full - t_pre, 1e-9)
    generated = len(prompts) * (steps - 1)  # the prefill run already made one token
    useful = sum(c for _, c in chunks)
    return {
        "batch_size": len(prompts),
        "prompt_tokens": prompt_tokens,
        "prompt_tokens_requested": sum(p for p, _ in chunks),
        "max_prompt_tokens": max(g.prompt_tokens for g in gens),
        "decode_steps": steps,
        "completion_tokens_returned": completion_lens,
        "useful_completion_tokens": useful,
        "warmup_seconds": warm,
        "prefill_seconds": t_pre,
        "full_seconds": t_full,
        "decode_seconds": t_dec,
        "prefill_runs": pre,
        "full_runs": full,
        "prefill_tok_s": prompt_tokens / t_pre,
        "decode_tok_s": generated / t_dec,
        "useful_completion_tok_s": useful * (steps - 1) / steps / t_dec,
        "ms_per_decode_step": 1000 * t_dec / (steps - 1),
        "seconds_per_chunk": t_full / len(prompts),
    }


def estimate_per_document(per_doc: Dict[str, Any], rates: Dict[str, Any]) -> Dict[str, Any]:
    """GPU seconds per document from tokens per document and measured rates.

    per_doc: {label: {"prompt_tokens": P, "completion_tokens": C, "llm_calls": N}} per arity.
    rates: one `bench_batch` result (the batch size production would run).
    RETURNS: {label: {"seconds": P / prefill rate + C / useful decode rate, ...}}.
    """
    out = {}
    for label, stats in per_doc.items():
        p = float(stats.get("prompt_tokens", 0))
        c = float(stats.get("completion_tokens", 0))
        seconds = p / rates["prefill_tok_s"] + c / rates["useful_completion_tok_s"]
        out[label] = {
            "prompt_tokens": p,
            "completion_tokens": c,
            "llm_calls": stats.get("llm_calls"),
            "passes": stats.get("passes"),
            "source": stats.get("source"),
            "batch_size": rates["batch_size"],
            "seconds": seconds,
            "paper_seconds": PAPER_SECONDS_PER_DOC.get(label),
        }
    return out


def reestimate(gpu_result: Dict[str, Any], per_doc: Dict[str, Any]) -> Dict[str, Any]:
    """Per-document estimates for new tokens-per-document figures from rates already
    measured on a GPU (a `run` result), at every measured batch size; no GPU needed.

    RETURNS: {"card", "variants": {variant: {batch size: estimate_per_document(...)}}}.
    """
    out: Dict[str, Any] = {"card": gpu_result.get("env", {}).get("gpu"), "variants": {}}
    for variant, entry in gpu_result["variants"].items():
        out["variants"][variant] = {str(r["batch_size"]): estimate_per_document(per_doc, r) for r in entry["batches"]}
    return out


def device_info(device: str) -> Dict[str, Any]:
    import torch
    import transformers

    info: Dict[str, Any] = {"torch": torch.__version__, "transformers": transformers.__version__,
                            "python": platform.python_version(), "device": device}
    if device.startswith("cuda"):
        props = torch.cuda.get_device_properties(0)
        info.update(gpu=props.name, gpu_memory_gib=round(props.total_memory / 2**30, 1),
                    multiprocessors=props.multi_processor_count)
    else:
        info.update(cpu=platform.processor() or platform.machine(), threads=torch.get_num_threads())
    return info


# --- main ------------------------------------------------------------------------
def run(args) -> Dict[str, Any]:
    import torch
    from transformers import AutoTokenizer

    device = args.device or ("cuda" if torch.cuda.is_available() and not args.tiny else "cpu")
    dtype = args.dtype or ("bfloat16" if device.startswith("cuda") else "float32")
    tokenizer = AutoTokenizer.from_pretrained(str(args.tokenizer), local_files_only=True)
    if args.workload and all(Path(str(p).rpartition("=")[2]).is_file() for p in args.workload):
        workload, per_doc, sources = load_workload(args.workload)
        source = "; ".join(sources)
    elif args.tiny:
        workload, per_doc, source = tiny_workload(), {}, "synthetic (tiny)"
    else:
        raise SystemExit(f"missing workload file(s) {args.workload}: run benchmarks/bench_rewrite.py first")
    if args.tiny:  # CPU-sized lengths, same spread; one thread: CI machines are shared
        workload = [(max(16, p // 10), max(2, c // 25)) for p, c in workload]
        torch.set_num_threads(1)
    shape = TINY if args.tiny else QWEN3_4B
    model, config, n_params = build_model(shape, tokenizer, device, dtype, args.seed)
    ids = filler_ids(tokenizer, args.texts)
    result: Dict[str, Any] = {
        "benchmark": "gpu",
        "config": "tiny" if args.tiny else "qwen3-4b-shape",
        "model": {"class": type(model).__name__, "parameters": n_params, "dtype": dtype,
                  **{k: getattr(config, k) for k in ("num_hidden_layers", "hidden_size",
                     "num_attention_heads", "num_key_value_heads", "head_dim",
                     "intermediate_size", "vocab_size", "max_position_embeddings",
                     "tie_word_embeddings")},
                  "rope_theta": config.rope_parameters["rope_theta"]},
        "env": device_info(device),
        "workload": {"source": source, "chunks": len(workload),
                     "prompt_tokens_mean": statistics.mean(p for p, _ in workload),
                     "completion_tokens_mean": statistics.mean(c for _, c in workload),
                     "prompt_tokens_max": max(p for p, _ in workload),
                     "completion_tokens_max": max(c for _, c in workload)},
        "padding": {str(b): {"sorted": padding_waste(workload, b, True),
                             "unsorted": padding_waste(workload, b, False)} for b in args.batch_sizes},
        "warmup": args.warmup,
        "repeats": args.repeats,
        "variants": {},
    }
    for variant in args.variants:
        rows = []
        hf = make_hf(model, tokenizer, device, variant, max(args.batch_sizes), 1)
        for b in args.batch_sizes:
            chunks = pick_batch(workload, b)
            prompts = [prompt_of_length(hf, ids, p, offset=997 * i) for i, (p, _) in enumerate(chunks)]
            row = bench_batch(hf, prompts, chunks, device, args.warmup, args.repeats)
            rows.append(row)
            print(f"[{variant}] B={b:3d} prefill {row['prefill_tok_s']:10.0f} tok/s  "
                  f"decode {row['decode_tok_s']:9.0f} tok/s  {row['ms_per_decode_step']:6.1f} ms/step  "
                  f"full {row['full_seconds']:7.2f} s", file=sys.stderr, flush=True)
        entry: Dict[str, Any] = {"batches": rows}
        if per_doc:
            best = max(rows, key=lambda r: r["batch_size"])
            entry["per_document_estimate"] = estimate_per_document(per_doc, best)
        result["variants"][variant] = entry
        if device.startswith("cuda"):
            result["variants"][variant]["max_memory_gib"] = round(torch.cuda.max_memory_allocated() / 2**30, 2)
        if args.out:  # after each variant, so a run cut short still leaves numbers
            write_json(args.out, result)
    return result


def write_json(path: Path, result: Dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(result, indent=1) + "\n", encoding="utf8")


def parse_args(argv: Optional[Sequence[str]] = None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tiny", action="store_true", help="tiny config on the CPU (tests)")
    ap.add_argument("--tokenizer", type=Path, default=DEFAULT_TOKENIZER,
                    help="folder with the chat model's tokenizer files (no weights needed)")
    ap.add_argument("--workload", type=lambda s: [Path(x) for x in s.split(",")],
                    default=[REPO / "benchmarks" / "results" / "rewrite.json"],
                    help="comma-separated files: per-chunk token lengths and tokens per document "
                         "(bench_rewrite.py's JSON, --measure-workload's JSON, or LABEL=out.jsonl "
                         "written by `python -m spacy_linkguard rewrite`, LABEL e.g. arity_1)")
    ap.add_argument("--texts", type=Path, default=DEFAULT_TEXTS, help="JSONL of texts to cut prompts from")
    ap.add_argument("--batch-sizes", type=lambda s: [int(x) for x in s.split(",")], default=None)
    ap.add_argument("--variants", type=lambda s: s.split(","), default=["dynamic"],
                    help="comma-separated; each is dynamic (default KV cache) or static (static KV "
                         "cache + torch.compile), optionally +grouped (grouped_sdpa attention)")
    ap.add_argument("--warmup", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=None)
    ap.add_argument("--device", default=None)
    ap.add_argument("--dtype", default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="also write the JSON here")
    ap.add_argument("--measure-workload", action="store_true",
                    help="CPU only: render real prompts over flagged chunks of --texts and print "
                         "their lengths (the fallback workload when bench_rewrite's JSON is missing)")
    ap.add_argument("--measure-json-stop", type=int, default=0, metavar="N",
                    help="CPU only: generate N real replies with the model in --tokenizer (SmolLM2) "
                         "and count the tokens stop_at_json saves")
    ap.add_argument("--max-new-tokens", type=int, default=300, help="with --measure-json-stop")
    ap.add_argument("--rates", type=lambda s: [Path(x) for x in s.split(",")], default=None,
                    help="no GPU: re-estimate seconds per document from these GPU result JSONs "
                         "and the tokens per document of --workload")
    ap.add_argument("--detections", default="",
                    help="with --measure-workload: LABEL=detect.jsonl[,LABEL=...], e.g. "
                         "arity_1=a1.jsonl,arity_le_3=a3.jsonl")
    args = ap.parse_args(argv)
    if args.batch_sizes is None:
        args.batch_sizes = [1, 4] if args.tiny else [1, 8, 32, 64]
    if args.repeats is None:
        args.repeats = 1 if args.tiny else 3
    return args


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = parse_args(argv)
    if args.rates:
        _, per_doc, sources = load_workload(args.workload)
        result = {"rates": [str(p) for p in args.rates], "workload": sources, "per_document": per_doc,
                  "estimates": [reestimate(json.loads(p.read_text(encoding="utf8")), per_doc) for p in args.rates]}
    elif args.measure_workload or args.measure_json_stop:
        detections = {k: Path(v) for k, v in (item.split("=", 1) for item in args.detections.split(","))}
        if args.measure_json_stop:
            result = measure_json_stop(args.texts, next(iter(detections.values())), args.tokenizer,
                                       args.measure_json_stop, max_new_tokens=args.max_new_tokens, seed=args.seed)
        else:
            result = measure_workload(args.texts, detections, args.tokenizer)
    else:
        result = run(args)
    if args.out:
        write_json(args.out, result)
    print(json.dumps(result, indent=1))


def _portable(path) -> str:
    """No machine's absolute path in a committed result (spacy_linkguard/paths.py)."""
    from spacy_linkguard.paths import portable_path

    return portable_path(path)


if __name__ == "__main__":
    main()
