"""A missing model or WordNet database fails before the pipeline loads, in
well under the seconds a load takes, and without importing spaCy or torch."""
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _run(args, tmp_path, **env):
    queries = tmp_path / "q.jsonl"
    queries.write_text(json.dumps({"id": "a", "text": "x y"}) + "\n")
    code = ("import sys, runpy; sys.argv = ['linkguard'] + sys.argv[1:]\n"
            "try:\n    runpy.run_module('spacy_linkguard', run_name='__main__')\n"
            "finally:\n    print('HEAVY', sorted(m for m in ('spacy', 'torch', 'transformers') if m in sys.modules),"
            " file=sys.stderr)")
    start = time.perf_counter()
    res = subprocess.run([sys.executable, "-c", code, args[0], str(queries), *args[1:]], capture_output=True,
                         text=True, timeout=300, cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(REPO), **env})
    return res, time.perf_counter() - start


@pytest.mark.parametrize("args, code", [
    (["rewrite", "--index", "idx", "--backend", "lexical", "--wordnet", "nowhere"], "[E280]"),
    (["paraphrase", "--wordnet", "nowhere"], "[E280]"),
    (["paraphrase", "--spacy-model", "en_no_such_pipeline"], "[E285]"),
    (["paraphrase", "--sentence-model", "no-such-sentence-model"], "[E282]"),
    (["rewrite", "--index", "idx"], "[E200]"),
    (["rewrite", "--index", "idx", "--components.linkguard_rewrite.model.name", "models/none"], "[E200]"),
    (["rewrite", "--index", "idx", "--config", "rewrite_qwen25_1p5b"], "[E200]"),  # the sentence rewriter's model
    (["rewrite", "--index", "idx", "--config", "rewrite_qwen25_1p5b",
      "--components.linkguard_rewrite.rewriter.model.name", "Qwen/any",
      "--components.linkguard_rewrite.rewriter.wordnet_dir", "nowhere"], "[E280]"),
    (["rewrite", "--index", "idx", "--config", "rewrite_qwen25_1p5b",
      "--components.linkguard_rewrite.rewriter.model.name", "Qwen/any",
      "--components.linkguard_rewrite.rewriter.parser_model", "en_no_such_pipeline"], "[E285]"),
])
def test_missing_models_fail_first(tmp_path, args, code):
    res, seconds = _run(args, tmp_path, LINKGUARD_MODELS=str(tmp_path / "no-models"))
    assert res.returncode == 1, res.stderr
    assert code in res.stderr, res.stderr
    assert "HEAVY []" in res.stderr  # failed before spaCy, torch or transformers were imported
    assert seconds < 10  # well under a second of its own; the machine may be busy
