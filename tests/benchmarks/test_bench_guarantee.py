"""benchmarks/bench_guarantee.py on a tiny index: both units end safe, its counts
are those of guarantee mode run here directly, and its word count agrees with a
count written out here (words of the text before that the text after lacks)."""
import json
import subprocess
import sys
from pathlib import Path

from spacy_linkguard.detect import Detector
from spacy_linkguard.index import open_index
from spacy_linkguard.index.build import build_index
from spacy_linkguard.ngrams import NgramSettings
from spacy_linkguard.rewrite.guarantee import redact_until_safe

from ..rewrite.oracle import CORPUS, QUERY
from .scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
bench = load_script("bench_guarantee")


def test_the_benchmark_counts_what_guarantee_mode_does(tmp_path):
    index_dir = build_index([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], tmp_path / "idx",
                            NgramSettings(), progress=False)
    rows = [{"id": "q", "text_before_guarantee": QUERY, "sources": None},
            {"id": "r", "text_before_guarantee": QUERY.split("\n\n")[1], "sources": ["d0"]}]
    out = tmp_path / "out.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    res = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench_guarantee.py"), str(out),
                          "--index", str(index_dir), "--max-arity", "3"], capture_output=True, text=True, cwd=ROOT)
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)["files"]["out.jsonl"]
    detector = Detector(open_index(index_dir), k=2, max_arity=3)
    for unit in ("span", "token"):
        texts = [redact_until_safe(r["text_before_guarantee"], detector, "[REDACTED]", sources=r["sources"], unit=unit)[0]
                 for r in rows]
        added = sum(t.count("[REDACTED]") - r["text_before_guarantee"].count("[REDACTED]") for t, r in zip(texts, rows))
        assert got[unit]["placeholders_added"] == round(added / 2, 2) and got[unit]["unsafe"] == 0
    assert got["docs"] == 2 and got["token"]["words_removed"] <= got["span"]["words_removed"]


def test_words_removed_counts_the_words_the_after_text_lacks():
    ph = "[REDACTED]"
    assert bench.words_removed("a b c d", "a [REDACTED] d", ph) == 2
    assert bench.words_removed("a [REDACTED] b", "a [REDACTED] b", ph) == 0  # a placeholder is no word
    assert bench.words_removed("x y z", "x y z", ph) == 0
    assert bench.words_removed("on the 3 May", "[REDACTED] the [REDACTED]", ph) == 3
