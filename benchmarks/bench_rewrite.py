"""Benchmark of LLM rewriting (issue 5): prints ONE JSON object on stdout.

    python benchmarks/bench_rewrite.py [--docs 5] [--config configs/rewrite_cpu.cfg]
        [--index indexes/echr] [--queries assets/echr/queries.jsonl]
        [--collection assets/echr/collection.jsonl]

The first `--docs` masked TAB test documents go through the rewrite loop of the
config together (one batch), against an index of the ECHR collection (built
into a temporary folder when `--index` does not exist). Reported: passes to
convergence, spans per pass, forced redactions, LLM calls and tokens per
document, seconds per document, the share of chunks sent, and the prompt /
completion token lengths of every call (`chunk_tokens`, for the GPU benchmark).
Every output text is re-detected to confirm it is safe.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from itertools import islice
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=5)
    ap.add_argument("--config", type=Path, default=ROOT / "configs" / "rewrite_cpu.cfg")
    ap.add_argument("--index", type=Path, default=ROOT / "indexes" / "echr")
    ap.add_argument("--queries", type=Path, default=ROOT / "assets" / "echr" / "queries.jsonl")
    ap.add_argument("--collection", type=Path, default=ROOT / "assets" / "echr" / "collection.jsonl")
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import torch

    from spacy_linkguard.jobs.rewrite_pipeline import load_rewrite_pipeline
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.index import NgramIndex

    tmp = None
    index_seconds = 0.0
    if not (args.index / "meta.json").is_file():
        tmp = tempfile.TemporaryDirectory(prefix="bench_rewrite-")
        args.index = Path(tmp.name) / "index"
        t0 = time.perf_counter()
        NgramIndex.build(iter_records(args.collection), args.index, progress=False)
        index_seconds = time.perf_counter() - t0

    nlp = load_rewrite_pipeline(args.config)
    comp = nlp.get_pipe("linkguard_rewrite")
    comp.initialize(index=str(args.index))
    t0 = time.perf_counter()
    comp.model.tokenizer  # noqa: B018 -- load the weights now, timed apart
    load_seconds = time.perf_counter() - t0
    detector = comp.detector
    records = list(islice(iter_records(args.queries), args.docs))

    t0 = time.perf_counter()
    results = comp.loop.run([r.text for r in records], ids=[r.id for r in records])
    wall = time.perf_counter() - t0

    per_doc = []
    all_chunk_tokens = []
    for rec, res in zip(records, results):
        passes = res.passes
        calls = sum(p.llm_calls for p in passes)
        for p in passes:
            all_chunk_tokens.extend(p.chunk_tokens)
        first = passes[0] if passes else None
        rejected = {}
        for p in passes:
            for k, v in p.rejected.items():
                rejected[k] = rejected.get(k, 0) + v
        per_doc.append({
            "id": rec.id,
            "words": len(rec.text.split()),
            "passes": len(passes),
            "spans_per_pass": [p.spans_sent for p in passes],
            "spans_removed_per_pass": [p.spans_removed for p in passes],
            "chunks_total": first.chunks_total if first else 0,
            "chunks_sent_per_pass": [p.chunks_sent for p in passes],
            "share_chunks_sent": round(first.chunks_sent / first.chunks_total, 4) if first else 0.0,
            "chunks_accepted": sum(p.chunks_accepted for p in passes),
            "rejected": rejected,
            "forced_redactions": res.forced_redactions,
            "redaction_rounds": res.redaction_rounds,
            "llm_calls": calls,
            "prompt_tokens": sum(p.prompt_tokens for p in passes),
            "completion_tokens": sum(p.completion_tokens for p in passes),
            "seconds": round(res.seconds, 2),
            "safe": res.safe,
            "safe_redetected": bool(detector.detect(res.text).safe),
        })

    def mean(key):
        return round(statistics.mean(d[key] for d in per_doc), 3) if per_doc else 0.0

    prompts = [p for p, _ in all_chunk_tokens]
    completions = [c for _, c in all_chunk_tokens]
    model = comp.model
    out = {
        "benchmark": "bench_rewrite",
        "command": "python benchmarks/bench_rewrite.py " + " ".join(sys.argv[1:]),
        "config": str(args.config.relative_to(ROOT) if args.config.is_relative_to(ROOT) else args.config),
        "model": getattr(model, "name", type(model).__name__),
        "device": str(getattr(model, "_device", "")),
        "temperature": getattr(model, "temperature", None),
        "max_new_tokens": getattr(model, "max_new_tokens", None),
        "k": detector.k,
        "max_arity": detector.max_arity,
        "max_passes": comp.cfg["max_passes"],
        "max_retries": comp.cfg["max_retries"],
        "index_docs": getattr(detector.index, "n_docs", None),
        "index_build_seconds": round(index_seconds, 1),
        "model_load_seconds": round(load_seconds, 2),
        "docs": len(per_doc),
        "machine": {"cpus": os.cpu_count(), "torch_threads": torch.get_num_threads(),
                    "python": platform.python_version(), "torch": torch.__version__},
        "wall_seconds": round(wall, 1),
        "summary": {
            "passes_mean": mean("passes"),
            "spans_first_pass_mean": round(statistics.mean(d["spans_per_pass"][0] if d["spans_per_pass"] else 0
                                                           for d in per_doc), 2),
            "forced_redactions_mean": mean("forced_redactions"),
            "llm_calls_per_doc": mean("llm_calls"),
            "prompt_tokens_per_doc": mean("prompt_tokens"),
            "completion_tokens_per_doc": mean("completion_tokens"),
            "seconds_per_doc": round(wall / max(1, len(per_doc)), 2),
            "share_chunks_sent": round(sum(d["chunks_sent_per_pass"][0] if d["chunks_sent_per_pass"] else 0
                                           for d in per_doc) / max(1, sum(d["chunks_total"] for d in per_doc)), 4),
            "accepted_share_of_calls": round(sum(d["chunks_accepted"] for d in per_doc)
                                             / max(1, sum(d["llm_calls"] for d in per_doc)), 4),
            "all_safe": all(d["safe"] and d["safe_redetected"] for d in per_doc),
        },
        "chunk_token_lengths": {
            "calls": len(all_chunk_tokens),
            "prompt_mean": round(statistics.mean(prompts), 1) if prompts else 0,
            "prompt_max": max(prompts, default=0),
            "completion_mean": round(statistics.mean(completions), 1) if completions else 0,
            "completion_max": max(completions, default=0),
        },
        "per_doc": per_doc,
        "chunk_tokens": all_chunk_tokens,
    }
    print(json.dumps(out))
    if tmp is not None:
        tmp.cleanup()


if __name__ == "__main__":
    main()
