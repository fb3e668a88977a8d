"""Run `evaluate` unchanged and time its ranking part; prints ONE JSON object on stdout.

    python benchmarks/time_evaluate_ranking.py OUT.json -- EVALUATE ARGS...

EVALUATE ARGS are those of `python -m spacy_linkguard evaluate` (the project's
`evaluate` step: `spacy project run evaluate . --dry` prints them). The
ranking functions are wrapped, not changed: the BM25 attacker's build, the
embedding attacker's build (loading the model and embedding the collection, or
reading the cached embeddings) and each attacker's `ranks` over every row are
timed in CPU seconds of this process (`time.process_time`, all threads) and in
wall seconds; the whole command likewise. OUT.json gets the timings.
"""
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _timed(fn, bucket: dict, key: str):
    def wrapper(*args, **kwargs):
        c0, w0 = time.process_time(), time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            t = bucket.setdefault(key, {"cpu_s": 0.0, "wall_s": 0.0, "calls": 0})
            t["cpu_s"] += time.process_time() - c0
            t["wall_s"] += time.perf_counter() - w0
            t["calls"] += 1
    return wrapper


def main() -> None:
    if "--" not in sys.argv or sys.argv.index("--") != 2:
        sys.exit(__doc__)
    out = Path(sys.argv[1])
    args = sys.argv[3:]
    timings: dict = {}

    import spacy_linkguard.attack as attack
    from spacy_linkguard.experiments import ranking

    attack.bm25_attacker = _timed(attack.bm25_attacker, timings, "build_bm25")
    ranking.embedding_attacker = _timed(ranking.embedding_attacker, timings, "build_embedding")
    load = ranking.load_attackers

    def load_attackers(*a, **kw):
        attackers = load(*a, **kw)
        for name, att in attackers.items():
            att.ranks = _timed(att.ranks, timings, f"rank_{name}")
        return attackers

    ranking.load_attackers = load_attackers

    from spacy_linkguard.__main__ import app

    c0, w0 = time.process_time(), time.perf_counter()
    try:
        app(["evaluate", *args], standalone_mode=False)
    finally:
        total = {"cpu_s": time.process_time() - c0, "wall_s": time.perf_counter() - w0}
        parts = {k: {"cpu_s": round(v["cpu_s"], 2), "wall_s": round(v["wall_s"], 2), "calls": v["calls"]}
                 for k, v in timings.items()}
        ranking_cpu = sum(v["cpu_s"] for v in timings.values())
        ranking_wall = sum(v["wall_s"] for v in timings.values())
        result = {"evaluate_args": args, "ranking": parts,
                  "ranking_total": {"cpu_s": round(ranking_cpu, 2), "wall_s": round(ranking_wall, 2)},
                  "evaluate_total": {k: round(v, 2) for k, v in total.items()}}
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(json.dumps(result))


if __name__ == "__main__":
    main()
