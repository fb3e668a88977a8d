"""Build the bundled corpora in assets/ from the source data sets (maintainers only).

    python scripts/make_assets.py /path/to/shared/data assets

A user's clone already has the output; this script records how it was made.
Every corpus is JSONL, one {"id", "text", "meta"} object a line. Choices:
- Collections hold every *distinct* text once: an exact duplicate text (same
  characters) is dropped and counted, because two copies of one text would make
  every phrase of it "frequent" and hide real singling-out.
- A whitespace-only text (one WikiActors abstract) is dropped and counted: it
  contains no N-gram, so the index would skip it with a warning anyway.
- A leading UTF-8 BOM (the HUDOC texts start with one) is removed.
- DB-Bio texts carry a conversion artefact, literal backslash-quote (\\"); it is
  turned back into a plain quote.
- `echr/train_queries.jsonl` (self-training only, never evaluated): the TAB
  train and dev cases of the annotated subset, every annotated mention masked
  (overlapping mentions merged), as TAE masks the test cases.
"""
import hashlib
import json
import shutil
import sys
from pathlib import Path


def _jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _write(records, path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        for rec in records:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")
    return len(records)


def _distinct(records, stats, name):
    seen, out = set(), []
    for rec in records:
        if not rec["text"].strip():
            stats["empty texts dropped"] = stats.get("empty texts dropped", 0) + 1
            continue
        h = hashlib.sha256(rec["text"].encode("utf-8")).digest()
        if h in seen:
            stats[name] = stats.get(name, 0) + 1
            continue
        seen.add(h)
        out.append(rec)
    return out


def _clean(text):
    return text.lstrip("\ufeff")


def make_echr(data: Path, out: Path, stats: dict) -> None:
    tab = data / "tab"
    test = _jsonl(tab / "tab_test.jsonl")
    test_ids = {r["doc_id"] for r in test}
    subset = _jsonl(tab / "tab_annotated_subset144.jsonl")
    law = json.loads((data / "echr_bk" / "TAB_test_BK=Public.json").read_text(encoding="utf-8"))
    law10 = json.loads((data / "echr_bk" / "TAB_all_BK=Public10%.json").read_text(encoding="utf-8"))
    coll = []
    for r in test:
        coll.append({"id": r["doc_id"], "text": r["text"], "meta": {"source": "TAB", "split": "test", "part": "procedure+facts"}})
    for r in subset:
        if r["doc_id"] in test_ids:
            continue
        coll.append({"id": r["doc_id"], "text": r["text"], "meta": {"source": "TAB", "split": r["dataset_type"], "part": "procedure+facts"}})
    for doc_id, text in sorted(law.items()):
        coll.append({"id": f"{doc_id}/law", "text": _clean(text), "meta": {"source": "HUDOC", "part": "law"}})
    for doc_id, text in sorted(law10.items()):
        coll.append({"id": f"{doc_id}/law-10pct", "text": _clean(text), "meta": {"source": "HUDOC", "part": "law, first 10% of words"}})
    coll = _distinct(coll, stats, "echr duplicates dropped")
    stats["echr collection"] = _write(coll, out / "echr" / "collection.jsonl")
    queries = [
        {"id": r["id"], "text": r["text"], "meta": {"source": "TAB", "split": "test", "deidentified": "gold TAB manual spans -> [REDACTED]"}}
        for r in _jsonl(tab / "tab_test_masked.jsonl")
    ]
    stats["echr queries"] = _write(queries, out / "echr" / "queries.jsonl")
    for name in ("LICENSE-TAB.txt", "LICENSE-TAE.txt"):
        shutil.copy(tab / name, out / "echr" / name)


def _masked(text, mentions, placeholder="[REDACTED]"):
    """`text` with every (start, end) region replaced by the placeholder; overlapping regions merged."""
    merged = []
    for start, end in sorted(mentions):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    out, pos = [], 0
    for start, end in merged:
        out += [text[pos:start], placeholder]
        pos = end
    return "".join(out + [text[pos:]])


def make_echr_train(data: Path, out: Path, stats: dict) -> None:
    rows = [r for r in _jsonl(data / "tab" / "tab_annotated_subset144.jsonl") if r["dataset_type"] in ("train", "dev")]
    queries = []
    for r in rows:
        mentions = [(m["start_offset"], m["end_offset"]) for ann in r["annotations"].values()
                    for m in ann["entity_mentions"]]
        queries.append({"id": r["doc_id"], "text": _masked(r["text"], mentions),
                        "meta": {"source": "TAB", "split": r["dataset_type"],
                                 "deidentified": "gold TAB annotated mentions -> [REDACTED]"}})
    stats["echr train queries"] = _write(queries, out / "echr" / "train_queries.jsonl")


def make_wiki(data: Path, out: Path, stats: dict) -> None:
    wiki = data / "wiki_bios"
    dbbio = _jsonl(wiki / "db_bio.jsonl")
    actors = _jsonl(wiki / "wikiactors_abstracts.jsonl")
    coll, queries, seen_ids = [], [], set()
    for r in dbbio:
        rec = {
            "id": f"dbbio:{r['id']}",
            "text": r["text"].replace('\\"', '"'),
            "meta": {"source": "DB-Bio", "split": r["split"], "label": r["label"], "url": f"https://en.wikipedia.org/wiki/{r['id']}"},
        }
        if rec["id"] in seen_ids:  # one page name is in train and test with the same text
            stats["wiki repeated ids dropped"] = stats.get("wiki repeated ids dropped", 0) + 1
            continue
        seen_ids.add(rec["id"])
        coll.append(rec)
        if r["split"] == "test":
            queries.append({"id": rec["id"], "text": rec["text"], "meta": {**rec["meta"], "deidentified": "no (the project's deidentify step masks it)"}})
    for r in actors:
        coll.append({"id": f"wikiactors:{r['id']}", "text": r["text"], "meta": {"source": "WikiActors", "title": r["title"], "url": r["url"]}})
    coll = _distinct(coll, stats, "wiki duplicates dropped")
    stats["wiki collection"] = _write(coll, out / "wiki" / "collection.jsonl")
    stats["wiki queries"] = _write(queries, out / "wiki" / "queries.jsonl")


def main(data: str, out: str) -> None:
    stats: dict = {}
    make_echr(Path(data), Path(out), stats)
    make_echr_train(Path(data), Path(out), stats)
    make_wiki(Path(data), Path(out), stats)
    print(json.dumps(stats, indent=2))


if __name__ == "__main__":
    main(*sys.argv[1:3])
