"""`rewrite` and `fetch-models` commands, in-process with the canned-reply model."""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.index import NgramIndex

from . import canned  # noqa: F401  (registers linkguard_test.Canned.v1)
from .oracle import CORPUS, QUERY, DictIndex, brute_force

CONFIG = """
[nlp]
lang = "en"
pipeline = ["linkguard_rewrite"]

[components]

[components.linkguard_rewrite]
factory = "linkguard_rewrite"
max_passes = 8

[components.linkguard_rewrite.task]
@llm_tasks = "linkguard.Rewrite.v1"
examples = []

[components.linkguard_rewrite.model]
@llm_models = "linkguard_test.Canned.v1"
behaviour = "good"
"""


def test_rewrite_command_writes_one_line_per_document(tmp_path):
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], tmp_path / "idx",
                     progress=False, n_process=1)
    (tmp_path / "rw.cfg").write_text(CONFIG, encoding="utf-8")
    queries = tmp_path / "q.jsonl"
    queries.write_text("\n".join(json.dumps({"id": i, "text": t}) for i, t in
                                 [("q1", QUERY), ("q2", "Nothing links here."), ("q3", CORPUS[1])]) + "\n")
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, ["rewrite", str(queries), "--index", str(tmp_path / "idx"), "--config",
                                   str(tmp_path / "rw.cfg"), "-o", str(out), "--no-progress",
                                   "--components.linkguard_rewrite.model.behaviour", "unchanged",
                                   "--components.linkguard_rewrite.max_passes", "1"])
    assert res.exit_code == 0, res.output
    lines = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [ln["id"] for ln in lines] == ["q1", "q2", "q3"]
    for ln in lines:
        assert set(ln) >= {"id", "text", "safe", "text_before_guarantee", "passes", "forced_redactions"}
        # what made the line, for `evaluate` (no config parsed there)
        assert (ln["system"], ln["k"], ln["max_arity"]) == ("llm", 2, 3)
        assert ln["model"] == "? (linkguard_test.Canned.v1, auto)"
        assert ln["safe"] and brute_force(ln["text"], DictIndex(CORPUS)).safe
    # the override took effect: one pass, an unchanged model, so guarantee redacted
    assert len(lines[0]["passes"]) == 1 and lines[0]["forced_redactions"] > 0
    assert lines[1]["text"] == "Nothing links here." and lines[1]["passes"] == []
    assert all(ln["verdict"] == "any" and ln["sources"] is None for ln in lines)  # ids not in the index


def test_rewrite_command_detects_under_each_lines_sources(tmp_path):
    from ..detect.oracle import oracle

    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], tmp_path / "idx",
                     progress=False, n_process=1)
    (tmp_path / "rw.cfg").write_text(CONFIG, encoding="utf-8")
    queries = tmp_path / "q.jsonl"
    queries.write_text("\n".join(json.dumps(x) for x in [{"id": "d0", "text": QUERY},
                                                         {"id": "q", "text": QUERY, "sources": ["d2"]},
                                                         {"id": "r", "text": QUERY}]) + "\n")
    args = ["rewrite", str(queries), "--index", str(tmp_path / "idx"), "--config", str(tmp_path / "rw.cfg"),
            "--no-progress", "--components.linkguard_rewrite.model.behaviour", "unchanged",
            "--components.linkguard_rewrite.max_passes", "1"]
    out = tmp_path / "out.jsonl"
    res = CliRunner().invoke(app, args + ["-o", str(out)])
    assert res.exit_code == 0, res.output
    lines = [json.loads(ln) for ln in out.read_text().splitlines()]
    assert [(ln["verdict"], ln["sources"]) for ln in lines] == [("source", ["d0"]), ("source", ["d2"]),
                                                               ("any", None)]
    index = DictIndex(CORPUS)
    for ln, sources in zip(lines, ({0}, {2}, None)):
        assert ln["safe"] and oracle(ln["text"], index.keysets, index.settings, 2, 3, sources=sources).safe
    # Under source only what reaches the person's own document is redacted.
    assert lines[0]["forced_redactions"] < lines[2]["forced_redactions"]
    res = CliRunner().invoke(app, args + ["-o", str(tmp_path / "o2.jsonl"), "--verdict", "source"])
    assert res.exit_code == 1 and "E108" in res.output and not (tmp_path / "o2.jsonl").exists()


def test_rewrite_command_refuses_a_config_without_the_component(tmp_path):
    (tmp_path / "x.cfg").write_text('[nlp]\nlang = "en"\npipeline = []\n\n[components]\n', encoding="utf-8")
    (tmp_path / "q.jsonl").write_text('{"id": "a", "text": "b"}\n')
    res = CliRunner().invoke(app, ["rewrite", str(tmp_path / "q.jsonl"), "--index", str(tmp_path),
                                   "--config", str(tmp_path / "x.cfg")])
    assert res.exit_code == 1 and "E215" in res.output and "Traceback" not in res.output


def test_fetch_models_rejects_unknown_names(tmp_path):
    res = CliRunner().invoke(app, ["fetch-models", "--dest", str(tmp_path), "--only", "gpt-5"])
    assert res.exit_code == 1 and "E211" in res.output


def _rewrite(tmp_path, config_text, *extra, index=None):
    """Run `rewrite` in-process on one document; RETURNS the CliRunner result."""
    (tmp_path / "rw.cfg").write_text(config_text, encoding="utf-8")
    (tmp_path / "q.jsonl").write_text('{"id": "a", "text": "b"}\n')
    index = index or tmp_path / "no-index-here"
    return CliRunner().invoke(app, ["rewrite", str(tmp_path / "q.jsonl"), "--index", str(index), "--config",
                                    str(tmp_path / "rw.cfg"), "-o", str(tmp_path / "out.jsonl"), "--no-progress", *extra])


def assert_coded_failure(res, code):
    # typer.Exit surfaces as SystemExit; an escaped error would be the exception itself
    assert res.exit_code != 0 and isinstance(res.exception, SystemExit), res.exception
    assert f"[{code}]" in res.output and "Traceback" not in res.output, res.output


def test_rewrite_with_a_missing_index_folder_gives_a_coded_message(tmp_path):
    assert_coded_failure(_rewrite(tmp_path, CONFIG), "E059")  # open_index's code, as in every command


@pytest.mark.parametrize("config_text, extra", [
    (CONFIG.replace("max_passes = 8", 'max_passes = "many"'), ()),  # fails validation
    ("[nlp\nlang = en\n", ()),  # not a config at all
    (CONFIG.replace('"linkguard_test.Canned.v1"', '"linkguard.NoSuchModel.v9"'), ()),  # unknown name
    (CONFIG, ("--components.linkguard_rewrite.max_passes", "-3")),  # a bad value on the command line
])
def test_rewrite_with_a_bad_config_gives_a_coded_message(tmp_path, config_text, extra):
    index = tmp_path / "idx"
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], index, progress=False, n_process=1)
    res = _rewrite(tmp_path, config_text, *extra, index=index)
    assert res.exit_code != 0 and isinstance(res.exception, SystemExit), res.exception
    assert "Traceback" not in res.output and res.output.startswith("[E"), res.output


def test_rewrite_errors_reach_stderr_without_a_traceback(tmp_path):
    """The real process: stderr holds the coded message only, whatever typer's group does."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    (tmp_path / "q.jsonl").write_text('{"id": "a", "text": "b"}\n')
    bad = CONFIG.replace("max_passes = 8", 'max_passes = "many"')
    # linkguard.OpenAI.v1 builds without a server: nothing is sent before the index is opened
    served = CONFIG.replace('"linkguard_test.Canned.v1"\nbehaviour = "good"',
                            '"linkguard.OpenAI.v1"\nname = "m"\nbase_url = "http://127.0.0.1:9/v1"')
    for name, text, code in (("bad.cfg", bad, "E218"), ("served.cfg", served, "E059")):
        (tmp_path / name).write_text(text, encoding="utf-8")
        proc = subprocess.run(
            [sys.executable, "-m", "spacy_linkguard", "rewrite", str(tmp_path / "q.jsonl"), "--index",
             str(tmp_path / "no-index-here"), "--config", str(tmp_path / name), "--no-progress"],
            capture_output=True, text=True, env=env, timeout=300,
        )
        assert proc.returncode == 1, proc.stderr
        assert proc.stderr.startswith(f"[{code}]") and "Traceback" not in proc.stderr, proc.stderr


SHIPPED = sorted(p for p in (Path(__file__).resolve().parents[2] / "configs").glob("*.cfg")
                 if 'factory = "linkguard_rewrite"' in p.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_configs_name_the_index_once_in_initialize(path, tmp_path):
    """[paths] index, read only by [initialize.components.linkguard_rewrite]; `rewrite
    --index` fills it and the component gets the opener's (cached) index."""
    from spacy.util import load_config

    from spacy_linkguard.jobs.rewrite_pipeline import load_rewrite_pipeline
    from spacy_linkguard.index import open_index

    cfg = load_config(path, interpolate=False)
    assert "index" not in cfg["components"]["linkguard_rewrite"]
    assert cfg["initialize"]["components"]["linkguard_rewrite"] == {"index": "${paths.index}"}
    assert "index" in cfg["paths"] and "${paths.index}" not in path.read_text().split("[initialize")[0]
    # the same config with the canned model (the real ones need weights or a GPU); the
    # sentence configs hold task and model in the component's `rewriter` block
    canned = {"@llm_models": "linkguard_test.Canned.v1", "behaviour": "good"}
    rewriter = cfg["components"]["linkguard_rewrite"].get("rewriter", {})
    if "model" in rewriter:
        rewriter["model"] = canned
        if "similarity_device" in rewriter:
            rewriter["similarity_device"] = "cpu"
    else:
        cfg["components"]["linkguard_rewrite"]["model"] = canned
    cfg.to_disk(tmp_path / "rw.cfg")
    index = tmp_path / "idx"
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], index, progress=False, n_process=1)
    nlp = load_rewrite_pipeline(tmp_path / "rw.cfg", index=index)
    nlp.initialize()
    comp = nlp.get_pipe("linkguard_rewrite")
    assert comp.cfg["index"] == str(index) and comp.detector.index is open_index(index)
