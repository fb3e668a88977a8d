"""Shipped configs resolve by name from any working directory; `rewrite --backend`."""
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.configs import CONFIG_DIR, resolve_config, shipped_configs
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex

REPO = Path(__file__).resolve().parents[2]
CANNED_LLM = """
[nlp]
lang = "en"
pipeline = ["linkguard_rewrite"]

[components]

[components.linkguard_rewrite]
factory = "linkguard_rewrite"

[components.linkguard_rewrite.task]
@llm_tasks = "linkguard.Rewrite.v1"
examples = []

[components.linkguard_rewrite.model]
@llm_models = "linkguard_test.Canned.v1"
"""


def test_shipped_configs_resolve_by_name_outside_the_checkout(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert {"rewrite_cpu", "rewrite_lexical", "rewrite_qwen25_1p5b"} <= set(shipped_configs())
    assert resolve_config("rewrite_cpu") == CONFIG_DIR / "rewrite_cpu.cfg"
    assert resolve_config("rewrite_qwen25_1p5b.cfg") == CONFIG_DIR / "rewrite_qwen25_1p5b.cfg"
    (tmp_path / "mine.cfg").write_text("[nlp]\n")
    assert resolve_config("mine.cfg") == Path("mine.cfg")  # a path wins
    with pytest.raises(LinkguardError, match=r"E219.*rewrite_cpu, rewrite_lexical"):
        resolve_config("rewrite_gpt5")
    with pytest.raises(LinkguardError, match=r"E010.*rewrite_cpu"):
        resolve_config("configs/rewrite_cpu.cfg")  # a path that does not exist here is not a name


def test_top_level_configs_folder_is_the_shipped_one():
    for name in shipped_configs():
        assert os.path.samefile(REPO / "configs" / f"{name}.cfg", CONFIG_DIR / f"{name}.cfg")


def test_rewrite_outside_the_checkout_names_a_missing_config(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    help_text = CliRunner().invoke(app, ["rewrite", "--help"], env={"COLUMNS": "200"}).output
    assert "--backend" in help_text and "rewrite_cpu" in help_text
    res = CliRunner().invoke(app, ["rewrite", "q.jsonl", "--index", "idx", "--config", "nope"])
    assert res.exit_code == 1 and "[E219]" in res.output and "rewrite_cpu" in res.output


def test_backend_must_match_the_config(tmp_path):
    from tests.rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)

    NgramIndex.build([{"id": "a", "text": "One two three."}], tmp_path / "idx", progress=False, n_process=1)
    (tmp_path / "q.jsonl").write_text(json.dumps({"id": "q", "text": "One two."}) + "\n")
    (tmp_path / "llm.cfg").write_text(CANNED_LLM)
    res = CliRunner().invoke(app, ["rewrite", str(tmp_path / "q.jsonl"), "--index", str(tmp_path / "idx"),
                                   "--config", str(tmp_path / "llm.cfg"), "--backend", "lexical"])
    assert res.exit_code == 1 and "[E220]" in res.output and "rewrite_lexical" in res.output


@pytest.mark.slow  # loads the spaCy tagger and the sentence-transformers model
def test_rewrite_with_the_lexical_backend_from_any_folder(tmp_path, monkeypatch):
    from spacy_linkguard.detect import Detector

    collection = [
        {"id": "a", "text": "The applicant lodged a complaint with the regional court in Vienna. "
                            "The judges quickly rejected the complaint as unfounded."},
        {"id": "b", "text": "The lawyers examined the documents carefully and found serious errors."},
        {"id": "c", "text": "The applicant lodged a complaint. The judges rejected the complaint."},
    ]
    NgramIndex.build(collection, tmp_path / "idx", progress=False, n_process=1)
    monkeypatch.chdir(tmp_path)
    Path("q.jsonl").write_text(json.dumps({"id": "a", "text": collection[0]["text"]}) + "\n")
    res = CliRunner().invoke(app, ["rewrite", "q.jsonl", "--index", "idx", "--backend", "lexical", "-o", "out.jsonl",
                                   "--no-progress"])
    assert res.exit_code == 0, res.output
    (line,) = [json.loads(x) for x in Path("out.jsonl").read_text().splitlines()]
    assert line["system"] == "lexical" and all(p["llm_calls"] == 0 for p in line["passes"])
    assert line["safe"] and Detector(NgramIndex.load(tmp_path / "idx")).detect(line["text"], ["a"]).safe
