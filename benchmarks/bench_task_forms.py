"""Task forms for a small rewrite model (issue 14): prints ONE JSON object on stdout.

    OMP_NUM_THREADS=1 python benchmarks/bench_task_forms.py [--chunks 6]
        [--model models/Qwen2.5-Coder-1.5B-Instruct-hf] [--forms spans,whole]
        [--index indexes/echr] [--data /work/shared/data/tab/tab_annotated_subset144.jsonl]

Tuning data only: TAB train and dev documents (never the test documents of
assets/echr/queries.jsonl), masked with their first annotator's DIRECT and
QUASI mentions as "[REDACTED]", spans found by the detector against the
index. From each document in turn one flagged chunk is taken (every other
flagged chunk, from the second on), until `--chunks`. Every form gets the
same chunks, one call each (greedy unless --temperature; batch 1, one CPU thread):

- `whole`: linkguard.Rewrite.v1 (bundled few-shot examples, reasoning, then
  {"text": <the whole chunk>}), stop at its JSON answer;
- `spans`: linkguard.RewriteSpans.v1 (one replacement per span, applied by the
  task), stop at its JSON answer.

Reported per form: replies parsed, accepted by the guards, rejections by
reason, spans removed per call (flagged spans of the chunk no longer in the
accepted edit), seconds and tokens per call; and every call with its reply.
"""
import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from spacy_linkguard.paths import portable_path

ROOT = Path(__file__).resolve().parents[1]
FORMS = {
    "whole": {"@llm_tasks": "linkguard.Rewrite.v1"},
    "spans": {"@llm_tasks": "linkguard.RewriteSpans.v1"},
    "spans0": {"@llm_tasks": "linkguard.RewriteSpans.v1", "examples": []},
}
STOP_FIELD = {"whole": "text", "spans": "replacements", "spans0": "replacements"}


def masked_docs(path: Path, splits=("train", "dev")):
    """(doc_id, masked text) of the TAB documents of `splits`, in file order."""
    for line in path.open(encoding="utf-8"):
        rec = json.loads(line)
        if rec.get("dataset_type") not in splits:
            continue
        text = rec["text"]
        annotator = sorted(rec["annotations"])[0]
        spans = sorted(
            (m["start_offset"], m["end_offset"])
            for m in rec["annotations"][annotator]["entity_mentions"]
            if m.get("identifier_type") in ("DIRECT", "QUASI")
        )
        out, last = [], 0
        for s, e in spans:
            if s < last:
                continue
            out.append(text[last:s] + "[REDACTED]")
            last = e
        yield rec["doc_id"], "".join(out) + text[last:]


def pick_chunks(docs, detector, task, n):
    picked = []
    for doc_id, text in docs:
        det = detector.detect(text)
        chunks = task.chunks(text, [(s.start_char, s.end_char) for s in det.spans])
        flagged = [c for c in chunks if c.flagged][1::2]
        if flagged:
            picked.append((doc_id, flagged[len(picked) % len(flagged)]))
        if len(picked) == n:
            break
    return picked


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chunks", type=int, default=6)
    ap.add_argument("--model", default=str(ROOT / "models" / "Qwen2.5-Coder-1.5B-Instruct-hf"))
    ap.add_argument("--dtype", default="bfloat16")
    ap.add_argument("--temperature", type=float, default=0.0, help="0 = greedy; else top_p 0.9, seed 0")
    ap.add_argument("--forms", default="spans,whole")
    ap.add_argument("--max-new-tokens", type=int, default=400)
    ap.add_argument("--sentences-per-chunk", type=int, default=3)
    ap.add_argument("--max-chunk-chars", type=int, default=1200)
    ap.add_argument("--skip-docs", type=int, default=0, help="Start after this many usable documents.")
    ap.add_argument("--index", type=Path, default=ROOT / "indexes" / "echr")
    ap.add_argument("--data", type=Path, default=Path("/work/shared/data/tab/tab_annotated_subset144.jsonl"))
    args = ap.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")

    import torch
    from spacy_llm.registry import registry

    import spacy_linkguard.llm.tasks.rewrite.registry  # noqa: F401 -- registers the tasks
    import spacy_linkguard.llm.tasks.rewrite_spans.registry  # noqa: F401
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.index import NgramIndex
    from spacy_linkguard.llm.models.hf import HFChatModel
    from spacy_linkguard.rewrite.loop import occurs

    torch.set_num_threads(int(os.environ.get("OMP_NUM_THREADS", "1")))
    detector = Detector(NgramIndex.load(args.index), k=2, max_arity=3)
    forms = args.forms.split(",")
    sizes = {"sentences_per_chunk": args.sentences_per_chunk, "max_chunk_chars": args.max_chunk_chars}
    tasks = {f: registry.resolve({"t": {**FORMS[f], **sizes}})["t"] for f in forms}
    picked = pick_chunks(masked_docs(args.data), detector, tasks[forms[0]], args.chunks + args.skip_docs)
    picked = picked[args.skip_docs:]
    model = None
    out = {
        "benchmark": "bench_task_forms",
        "command": "python benchmarks/bench_task_forms.py "
        + " ".join(portable_path(a) if os.path.isabs(a) else a for a in sys.argv[1:]),
        "model": portable_path(args.model), "dtype": args.dtype, "chunking": sizes,
        "temperature": args.temperature, "max_new_tokens": args.max_new_tokens,
        "machine": {"cpus": os.cpu_count(), "torch_threads": torch.get_num_threads(),
                    "python": platform.python_version(), "torch": torch.__version__},
        "chunks": [{"doc_id": d, "chars": len(c.text), "spans": c.spans} for d, c in picked],
        "forms": {},
    }
    for form in forms:
        task = tasks[form]
        if model is None:
            model = HFChatModel(args.model, device="cpu", dtype=args.dtype, temperature=args.temperature,
                                top_p=0.9, max_new_tokens=args.max_new_tokens, batch_size=1, seed=0)
        model.stop_at_json = STOP_FIELD[form]
        calls = []
        for doc_id, chunk in picked:
            prompt = task.render(chunk)
            t0 = time.perf_counter()
            gen = model.generate([prompt])[0]
            seconds = time.perf_counter() - t0
            parsed = task.parse(gen.text)
            edited, reason = task.review(chunk, prompt, gen.text)
            removed = 0 if edited is None else sum(not occurs(s, edited, detector.settings) for s in chunk.spans)
            call = {"doc_id": doc_id, "spans": len(chunk.spans), "parsed": parsed is not None,
                    "accepted": edited is not None, "reason": reason, "spans_removed": removed,
                    "seconds": round(seconds, 1), "prompt_tokens": gen.prompt_tokens,
                    "completion_tokens": gen.completion_tokens, "reply": gen.text}
            if form.startswith("spans"):
                call["items_applied"] = task.edit(chunk, gen.text)[1]
                call["edited"] = edited
            calls.append(call)
            print(json.dumps({"form": form, **call}, ensure_ascii=False), file=sys.stderr, flush=True)
        reasons = {}
        for c in calls:
            if c["reason"]:
                reasons[c["reason"]] = reasons.get(c["reason"], 0) + 1
        n = len(calls) or 1
        out["forms"][form] = {
            "task": FORMS[form],
            "calls": len(calls),
            "parsed": sum(c["parsed"] for c in calls),
            "accepted": sum(c["accepted"] for c in calls),
            "rejected": reasons,
            "spans_sent": sum(c["spans"] for c in calls),
            "spans_removed": sum(c["spans_removed"] for c in calls),
            "spans_removed_per_call": round(sum(c["spans_removed"] for c in calls) / n, 2),
            "seconds_per_call": round(statistics.mean(c["seconds"] for c in calls), 1) if calls else 0,
            "prompt_tokens_per_call": round(sum(c["prompt_tokens"] for c in calls) / n, 1),
            "completion_tokens_per_call": round(sum(c["completion_tokens"] for c in calls) / n, 1),
            "per_call": calls,
        }
    print(json.dumps(out, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
