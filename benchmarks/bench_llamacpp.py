"""Benchmark of the llama.cpp CPU backend (linkguard.LlamaCpp.v1): prints ONE JSON object.

    taskset -c 0 python benchmarks/bench_llamacpp.py [--docs 2] [--max-calls 40]
        [--config configs/rewrite_qwen25_1p5b_llamacpp.cfg] [--index indexes/echr]
        [--queries assets/echr/queries.jsonl] [--collection assets/echr/collection.jsonl]

Needs the optional extra (`pip install "spacy-linkguard[llamacpp]"`). The
config's pipeline is built as the `rewrite` CLI builds it; for the first
`--docs` masked ECHR query documents, the first pass of the rewrite loop is
run by hand, one chunk prompt per call, so that each call can be timed on its
own: detect, cut into the config's chunks, render each flagged chunk's
prompt, complete it, review the reply with the task's parser and guards.
Reported per call: prompt tokens (all, and those llama.cpp actually
evaluated: the rest came from the KV cache of the previous prompt), generated
tokens, prompt and generation tok/s (llama.cpp's own timers), seconds, RSS,
and whether the reply parsed and was accepted (else the guard's reason).
"""
import argparse
import json
import os
import platform
import resource
import statistics
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def rss_mb() -> float:
    """Current resident set size of this process (Linux /proc), in MiB."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            return next(ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor()


def rel(path: Path) -> str:
    """A path for the JSON: relative to the repository, else only its name."""
    path = Path(os.path.abspath(path))  # not resolved: a linked models/ or indexes/ keeps its repository name
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=2)
    ap.add_argument("--max-calls", type=int, default=40, help="stop after this many calls (time bound)")
    ap.add_argument("--config", type=Path, default=ROOT / "configs" / "rewrite_qwen25_1p5b_llamacpp.cfg")
    ap.add_argument("--index", type=Path, default=ROOT / "indexes" / "echr")
    ap.add_argument("--queries", type=Path, default=ROOT / "assets" / "echr" / "queries.jsonl")
    ap.add_argument("--collection", type=Path, default=ROOT / "assets" / "echr" / "collection.jsonl")
    args = ap.parse_args()

    import llama_cpp

    import spacy_linkguard.llm.models.registry  # noqa: F401 -- registers the backend, installed entry point or not
    from spacy_linkguard.jobs.rewrite_pipeline import load_rewrite_pipeline
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.index import NgramIndex
    from spacy_linkguard.filters.reasons import NO_JSON

    load_before = os.getloadavg()
    tmp = None
    if not (args.index / "meta.json").is_file():
        tmp = tempfile.TemporaryDirectory(prefix="bench_llamacpp-")
        args.index = Path(tmp.name) / "index"
        NgramIndex.build(iter_records(args.collection), args.index, progress=False)

    nlp = load_rewrite_pipeline(args.config)
    comp = nlp.get_pipe("linkguard_rewrite")
    comp.initialize(index=str(args.index))
    loop, detector = comp.loop, comp.detector
    rewriter, model = loop.rewriter, loop.model
    task = loop.task
    rss_before_load = rss_mb()
    t0 = time.perf_counter()
    llm = model.llm  # load the GGUF now, timed apart
    load_seconds = time.perf_counter() - t0
    rss_after_load = rss_mb()
    ctx = llm._ctx.ctx  # llama.cpp's own prompt/generation timers

    records = list(islice(iter_records(args.queries), args.docs))
    calls = []
    t_start = time.perf_counter()
    for doc_index, rec in enumerate(records):
        det = detector.detect(rec.text)
        offsets = [(s.start_char, s.end_char) for s in det.spans]
        chunks = [c for c in rewriter.chunks(rec.text, offsets, doc_index=doc_index) if c.flagged]
        for chunk_index, chunk in enumerate(chunks):
            if len(calls) >= args.max_calls:
                break
            prompt = task.render(chunk)
            llama_cpp.llama_perf_context_reset(ctx)
            (gen,) = model.generate([prompt])
            perf = llama_cpp.llama_perf_context(ctx)
            edited, reason = task.review(chunk, prompt, gen.text)
            parsed = reason != NO_JSON  # the guards say no_json when the reply did not parse
            calls.append({
                "doc": rec.id,
                "chunk": chunk_index,
                "chunks_flagged": len(chunks),
                "prompt_tokens": gen.prompt_tokens,
                "prompt_tokens_evaluated": int(perf.n_p_eval),
                "prompt_tokens_reused": gen.prompt_tokens - int(perf.n_p_eval),
                "generated_tokens": gen.completion_tokens,
                "prompt_tok_s": round(perf.n_p_eval / (perf.t_p_eval_ms / 1000), 1) if perf.t_p_eval_ms else None,
                "generated_tok_s": round(perf.n_eval / (perf.t_eval_ms / 1000), 1) if perf.t_eval_ms else None,
                "prompt_eval_seconds": round(perf.t_p_eval_ms / 1000, 2),
                "generation_seconds": round(perf.t_eval_ms / 1000, 2),
                "seconds": round(gen.seconds, 2),
                "rss_mb": rss_mb(),
                "reply_parsed": parsed,
                "accepted": edited is not None,
                "rejected_reason": reason,
            })
            print(json.dumps(calls[-1]), file=sys.stderr, flush=True)  # progress
    wall = time.perf_counter() - t_start

    def mean(key):
        vals = [c[key] for c in calls if c[key] is not None]
        return round(statistics.mean(vals), 2) if vals else None

    rejected = {}
    for c in calls:
        if c["rejected_reason"]:
            rejected[c["rejected_reason"]] = rejected.get(c["rejected_reason"], 0) + 1
    out = {
        "benchmark": "bench_llamacpp",
        "command": "taskset -c 0 python benchmarks/bench_llamacpp.py " + " ".join(
            a if not a.startswith("/") else Path(a).name for a in sys.argv[1:]),
        "config": rel(args.config),
        "model": rel(model.path),
        "index": rel(args.index) if tmp is None else "built from " + rel(args.collection),
        "queries": rel(args.queries),
        "backend": {"n_threads": model.n_threads, "n_threads_batch": model.n_threads_batch, "n_ctx": model.n_ctx,
                    "temperature": model.temperature, "top_p": model.top_p, "top_k": getattr(model, "top_k", 0),
                    "max_new_tokens": model.max_new_tokens, "stop_at_json": model.stop_at_json},
        "what": "first pass of the rewrite loop by hand, one chunk prompt per call, no retries",
        "machine": {"cpus": os.cpu_count(), "cpu": cpu_model(), "affinity": sorted(os.sched_getaffinity(0)),
                    "nice": os.nice(0), "python": platform.python_version(),
                    "llama_cpp_python": llama_cpp.__version__, "platform": platform.platform()},
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "model_load_seconds": round(load_seconds, 2),
        "rss_mb_before_load": rss_before_load,
        "rss_mb_after_load": rss_after_load,
        "rss_mb_peak": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "docs": len(records),
        "wall_seconds": round(wall, 1),
        "summary": {
            "calls": len(calls),
            "seconds_per_call_mean": mean("seconds"),
            "seconds_per_call_median": round(statistics.median(c["seconds"] for c in calls), 2) if calls else None,
            "prompt_tokens_mean": mean("prompt_tokens"),
            "prompt_tokens_evaluated_mean": mean("prompt_tokens_evaluated"),
            "generated_tokens_mean": mean("generated_tokens"),
            "prompt_tok_s_mean": mean("prompt_tok_s"),
            "generated_tok_s_mean": mean("generated_tok_s"),
            "parsed": sum(c["reply_parsed"] for c in calls),
            "accepted": sum(c["accepted"] for c in calls),
            "rejected": rejected,
        },
        "calls": calls,
    }
    print(json.dumps(out))
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
