"""`index-stats` is a listing: it imports neither spaCy nor torch (3.9 s of its 6-11 s were those imports)."""
import json
import os
import subprocess
import sys
from pathlib import Path

from spacy_linkguard.index import NgramIndex

REPO = Path(__file__).resolve().parents[2]


def test_index_stats_imports_no_spacy_or_torch(tmp_path):
    NgramIndex.build([{"id": "a", "text": "One two three."}, {"id": "b", "text": "One two four."}], tmp_path / "idx",
                     progress=False, n_process=1)
    code = ("import json, sys\n"
            "from spacy_linkguard.cli import app\n"
            "try:\n    app(['index-stats', sys.argv[1], '--json'])\n"
            "except SystemExit:\n    pass\n"
            "print(json.dumps(sorted(m for m in ('spacy', 'thinc', 'torch', 'transformers') if m in sys.modules)))")
    res = subprocess.run([sys.executable, "-c", code, str(tmp_path / "idx")], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert res.returncode == 0, res.stderr
    stats_line, loaded_line = res.stdout.strip().splitlines()[-2:]
    assert json.loads(stats_line)["n_docs"] == 2
    assert json.loads(loaded_line) == []
