"""benchmarks/reguarantee.py on a tiny index: the line it writes is what
guarantee mode (with `--omit`, the omission step first) makes of the line's
`text_before_guarantee` here directly, and it is safe by the detector."""
import json
import subprocess
import sys
from pathlib import Path

import pytest

from spacy_linkguard.baselines.paraphraser import load_tagger
from spacy_linkguard.detect import Detector
from spacy_linkguard.index import open_index
from spacy_linkguard.index.build import build_index
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite.guarantee import redact_until_safe
from spacy_linkguard.rewrite.omission import omit_until_safe

from ..rewrite.oracle import CORPUS, QUERY

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("omit", [False, True])
def test_the_line_written_is_guarantee_mode_run_here(tmp_path, omit):
    index_dir = build_index([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], tmp_path / "idx",
                            NgramSettings(), progress=False)
    rows = [{"id": "q", "text": "", "text_before_guarantee": QUERY, "verdict": "any", "sources": None},
            {"id": "r", "text": "", "text_before_guarantee": QUERY.split("\n\n")[1], "verdict": "source",
             "sources": ["d0"]}]
    src, new = tmp_path / "out.jsonl", tmp_path / "new.jsonl"
    src.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "reguarantee.py"), str(src), str(new),
                          "--index", str(index_dir), "--max-arity", "3", *(["--omit"] if omit else [])],
                         capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    written = [json.loads(line) for line in new.read_text(encoding="utf-8").splitlines()]
    index = open_index(index_dir)
    detector = Detector(index, k=2, max_arity=3)
    parse = load_tagger() if omit else None
    total = 0
    for row, line in zip(rows, written):
        text, left_out = row["text_before_guarantee"], 0
        if omit:
            text, left_out = omit_until_safe(text, detector, parse, row["sources"])
            assert line["omissions"] == left_out
        else:
            assert "omissions" not in line
        text, made, _, _ = redact_until_safe(text, detector, index.settings.placeholder, sources=row["sources"])
        assert line["text"] == text and line["forced_redactions"] == made
        assert detector.is_safe(line["text"], row["sources"])
        total += made
    assert json.loads(res.stdout)["forced_redactions"] == total / 2
