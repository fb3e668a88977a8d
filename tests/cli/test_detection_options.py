"""Every command that detects takes the same detection options (one set, one
help), and `rewrite` acts on them: --k, --max-arity, --max-n, --placeholder,
and --wordnet (the option E280 names). The rewrite runs use the canned-reply
model of tests/rewrite/canned.py (no real LLM; its replies are canned)."""
import json

import pytest
import typer
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.cli.detection_options import DETECTION_OPTIONS
from spacy_linkguard.errors import Errors
from spacy_linkguard.index import NgramIndex

from ..rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)
from ..rewrite.oracle import CORPUS, QUERY

DETECTING = ("detect", "show", "paraphrase", "rewrite", "deidentify")
CONFIG = """
[nlp]
lang = "en"
pipeline = ["linkguard_rewrite"]

[components]

[components.linkguard_rewrite]
factory = "linkguard_rewrite"
max_passes = 2

[components.linkguard_rewrite.task]
@llm_tasks = "linkguard.Rewrite.v1"
examples = []

[components.linkguard_rewrite.model]
@llm_models = "linkguard_test.Canned.v1"
behaviour = "unchanged"
"""


def options_of(name):
    group = typer.main.get_command(app)
    cmd = group.commands[name]
    return {opt: p for p in cmd.params for opt in getattr(p, "opts", [])}


@pytest.mark.parametrize("name", DETECTING)
def test_every_detecting_command_takes_the_detection_options(name):
    opts = options_of(name)
    assert set(DETECTION_OPTIONS) <= set(opts), set(DETECTION_OPTIONS) - set(opts)
    # one meaning: detect's help, whatever note a command adds (deidentify's
    # --placeholder is also its mask, which must be the index's)
    detect = options_of("detect")
    for opt in DETECTION_OPTIONS:
        if (name, opt) != ("deidentify", "--placeholder"):
            assert detect[opt].help.rstrip(".") in opts[opt].help, (name, opt)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    root = tmp_path_factory.mktemp("opts")
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], root / "idx",
                     progress=False, n_process=1)
    (root / "rw.cfg").write_text(CONFIG, encoding="utf-8")
    (root / "q.jsonl").write_text(json.dumps({"id": "d0", "text": QUERY}) + "\n", encoding="utf-8")
    return root


def rewrite(root, *extra):
    out = root / "out.jsonl"
    out.unlink(missing_ok=True)
    res = CliRunner().invoke(app, ["rewrite", str(root / "q.jsonl"), "--index", str(root / "idx"), "--config",
                                   str(root / "rw.cfg"), "-o", str(out), "--no-progress", *extra])
    return res, [json.loads(ln) for ln in out.read_text().splitlines()] if out.exists() else []


def test_rewrite_takes_k_and_max_arity(setup):
    from spacy_linkguard.detect import Detector

    res, lines = rewrite(setup, "--k", "3", "--max-arity", "1")
    assert res.exit_code == 0 and "Traceback" not in res.output, res.output
    assert (lines[0]["k"], lines[0]["max_arity"]) == (3, 1)
    assert "at k=3, max_arity=1" in res.output
    # the loop detected with them: guarantee mode made the text safe at k=3, max_arity=1 ...
    strict = Detector(NgramIndex.load(setup / "idx"), k=3, max_arity=1)
    assert strict.detect(lines[0]["text"], ["d0"]).safe
    # ... which the config's own settings (k=2, max_arity=3) do not give on this corpus
    res, lines = rewrite(setup)
    assert (lines[0]["k"], lines[0]["max_arity"]) == (2, 3)
    assert not strict.detect(lines[0]["text"], ["d0"]).safe


def test_rewrite_checks_max_n_and_placeholder_against_the_index(setup):
    res, _ = rewrite(setup, "--placeholder", "[GONE]")
    assert res.exit_code == 1 and "E003" in res.output and "[GONE]" in res.output
    res, _ = rewrite(setup, "--max-n", "8", "--placeholder", "[REDACTED]")
    assert res.exit_code == 0, res.output


def test_rewrite_takes_the_wordnet_option_that_e280_names(setup, tmp_path):
    assert "--wordnet" in Errors.E280 and "rewrite" in Errors.E280
    assert "--wordnet" in options_of("rewrite")
    # with the lexical backend the folder reaches WordNet: an empty one is E280, naming it
    res = CliRunner().invoke(app, ["rewrite", str(setup / "q.jsonl"), "--index", str(setup / "idx"), "--backend",
                                   "lexical", "--wordnet", str(tmp_path), "--no-progress"])
    assert res.exit_code == 1 and "E280" in res.output and str(tmp_path) in res.output, res.output
    # with an LLM config it would do nothing: E021
    res, _ = rewrite(setup, "--wordnet", str(tmp_path))
    assert res.exit_code == 1 and "E021" in res.output


def test_paraphrase_refuses_index_options_without_an_index(setup):
    res = CliRunner().invoke(app, ["paraphrase", str(setup / "q.jsonl"), "--max-n", "8", "--no-progress"])
    assert res.exit_code == 1 and "E287" in res.output and "--max-n" in res.output
