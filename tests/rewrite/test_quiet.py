"""`--no-progress` silences every bar, the sentence model's "Loading weights" too."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_linkguard.index import NgramIndex

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.slow  # loads the spaCy tagger and the sentence-transformers model
def test_lexical_rewrite_without_progress_prints_no_bar(tmp_path):
    collection = [{"id": f"n{i}", "text": f"The client met the nurse on day {i} and the visit went well."}
                  for i in range(6)]
    collection.append({"id": "x", "text": "The client met the district nurse at the flat in Leeds on Monday."})
    NgramIndex.build(collection, tmp_path / "idx", progress=False, n_process=1)
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps(collection[-1]) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "HF_HUB_DISABLE_PROGRESS_BARS"}
    res = subprocess.run([sys.executable, "-m", "spacy_linkguard", "rewrite", str(queries), "--index",
                          str(tmp_path / "idx"), "--backend", "lexical", "--no-progress", "-o",
                          str(tmp_path / "out.jsonl")], capture_output=True, text=True, timeout=600,
                         cwd=REPO, env={**env, "PYTHONPATH": str(REPO)})
    assert res.returncode == 0, res.stderr
    assert "Loading weights" not in res.stderr and "it/s" not in res.stderr and "%|" not in res.stderr, res.stderr
    assert "1 document(s) rewritten" in res.stderr
