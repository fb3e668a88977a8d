"""Rewritten ECHR documents against the whole collection, with the brute-force
verdict over x-maximal N-grams (`full_oracle.py`).

- `echr_lexical_a3.jsonl`: the lexical baseline in guarantee mode (the rewrite
  loop with this detector) on the first masked TAB test documents: every
  output must be safe by the oracle.
- `echr_lexical_a3_maximal_only.jsonl`: the same baseline's outputs when the
  detector knew only maximal candidates; it called all of them safe. The
  detector's verdict must now equal the oracle's on each.
(benchmarks/data/README.md says how both files were made.)
"""
import json
from pathlib import Path

import pytest

from spacy_linkguard.detect import Detector

from .full_oracle import brute_force_verdict

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"


def _texts(name):
    with open(DATA / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


@pytest.mark.slow
def test_guarantee_outputs_are_safe_by_the_oracle(full_index):
    rows = _texts("echr_lexical_a3.jsonl")
    assert len(rows) >= 20
    det = Detector(full_index, k=2, max_arity=3)
    for row in rows:
        safe, found = brute_force_verdict(full_index, row["text"], 2, 3)
        assert safe, (row["id"], found)
        assert det.detect(row["text"]).safe, row["id"]


@pytest.mark.slow
def test_verdicts_on_outputs_of_the_maximal_only_detector_match_the_oracle(full_index):
    rows = _texts("echr_lexical_a3_maximal_only.jsonl")
    det = Detector(full_index, k=2, max_arity=3)
    unsafe = 0
    for row in rows:
        safe, found = brute_force_verdict(full_index, row["text"], 2, 3)
        assert det.detect(row["text"]).safe == safe, (row["id"], found)
        unsafe += not safe
    assert unsafe >= len(rows) // 2  # what the maximal-only detector let through
