"""`paraphrase --workers 2` writes the lines of one process (each worker loads
the spaCy pipeline and the sentence model once).

Each run is a fresh `python -m spacy_linkguard` process with its own hash seed
(PYTHONHASHSEED: the order of sets of strings) and its own thread count
(OMP_NUM_THREADS 2 for one process, 1 for the workers): the sentence model's
sums follow the thread count, so a choice or a score that depended on the last
bits of a float would differ here. A later run over the same documents in the
reverse order checks that a line does not depend on the documents one process
rewrote before it (caches)."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import COLLECTION, QUERIES

pytestmark = pytest.mark.slow  # loads the spaCy pipeline and all-MiniLM-L6-v2 in each process

# The queries twice, and one sentence of the first alone: the same texts to
# embed, met after different documents in each run.
DOCS = QUERIES * 2 + [QUERIES[0].split(". ", 1)[1]]


def untimed(path):
    """The lines without their wall-time fields ("seconds", at any depth)."""
    def drop(x):
        if isinstance(x, dict):
            return {k: drop(v) for k, v in x.items() if k != "seconds"}
        return [drop(v) for v in x] if isinstance(x, list) else x

    return [drop(json.loads(x)) for x in path.read_text(encoding="utf-8").splitlines()]


def paraphrase(tmp_path, name, records, workers, hash_seed, threads, extra):
    """The output lines of `paraphrase` run in a new process."""
    queries, out = tmp_path / f"{name}.in.jsonl", tmp_path / f"{name}.jsonl"
    queries.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONHASHSEED": str(hash_seed), "OMP_NUM_THREADS": str(threads),
           "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    res = subprocess.run([sys.executable, "-m", "spacy_linkguard", "paraphrase", str(queries), "-o", str(out),
                          "--seed", "3", "--no-progress", "--workers", str(workers), *extra],
                         env=env, cwd=str(tmp_path), capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stderr
    return untimed(out)


@pytest.mark.parametrize("mode", ["document", "document-index", "spans-index"])
def test_paraphrase_with_two_workers_writes_the_same_lines(tmp_path, mode):
    from spacy_linkguard.index import NgramIndex

    records = [{"id": f"q{i}", "text": t} for i, t in enumerate(DOCS)]
    extra = ["--rate", "1.0"]  # --rate acts in whole-document mode only (E287 with --spans-only)
    if mode != "document":
        NgramIndex.build([{"id": i, "text": t} for i, t in COLLECTION], tmp_path / "idx", progress=False)
    if mode == "document-index":  # each paraphrased document is checked in its worker
        extra += ["--index", str(tmp_path / "idx")]
    if mode == "spans-index":  # the lexical rewrite loop
        extra = ["--spans-only", "--index", str(tmp_path / "idx")]
    one = paraphrase(tmp_path, "one", records, 1, hash_seed=1, threads=2, extra=extra)
    two = paraphrase(tmp_path, "two", records, 2, hash_seed=2, threads=1, extra=extra)
    assert one == two
    assert [x["id"] for x in one] == [r["id"] for r in records] and any(x.get("edits") or x.get("passes") for x in one)
    if mode != "spans-index":  # scores written by the sentence model (they must match to the last bit)
        assert any(e["score"] is not None for x in one for e in x["edits"])
    if mode == "document":
        assert all((x["safe"], x["verdict"]) == (None, None) for x in one)  # no --index: not checked (W281)
        # A later run, other documents first: each line as before.
        again = paraphrase(tmp_path, "again", records[::-1], 1, hash_seed=3, threads=2, extra=extra)
        assert again == one[::-1]
    else:
        assert all(isinstance(x["safe"], bool) and x["verdict"] in ("any", "source") for x in one)
