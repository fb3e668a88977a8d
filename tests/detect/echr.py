"""A small slice of the bundled ECHR corpora for oracle comparisons on real text."""
import json
from pathlib import Path
from typing import List, Tuple

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "echr"
N_QUERIES = 3
QUERY_CHARS = 2500
N_OTHERS = 25


def echr_slice() -> Tuple[List[Tuple[str, str]], List[Tuple[str, str]]]:
    """(collection records, query records): the originals of the first queries,
    their HUDOC texts (which share much wording with them), and other cases;
    queries are the masked texts cut to their first QUERY_CHARS characters."""
    with open(ASSETS / "queries.jsonl", encoding="utf-8") as f:
        queries = [json.loads(line) for line in f][:N_QUERIES]
    wanted = {q["id"] for q in queries}
    chosen, others = [], []
    with open(ASSETS / "collection.jsonl", encoding="utf-8") as f:
        for line in f:
            rec = json.loads(line)
            base = rec["id"].split("/")[0]
            if base in wanted:
                chosen.append((rec["id"], rec["text"]))
            elif rec["id"].endswith("/law-10pct") and len(others) < N_OTHERS:
                others.append((rec["id"], rec["text"]))
    return chosen + others, [(q["id"], q["text"][:QUERY_CHARS]) for q in queries]
