"""build-index, add-docs, index-stats through typer's CliRunner and a real subprocess."""
import json
import subprocess
import sys

from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.corpus import write_records
from spacy_linkguard.index import NgramIndex

from .oracle import random_corpus

runner = CliRunner()


def test_build_add_stats(tmp_path):
    docs = random_corpus(seed=3, n_docs=20)
    write_records(docs[:12], tmp_path / "a.jsonl")
    write_records(docs[12:], tmp_path / "b.jsonl")
    write_records(docs, tmp_path / "all.jsonl")
    out = tmp_path / "idx"
    res = runner.invoke(app, ["build-index", str(tmp_path / "a.jsonl"), str(out), "--max-n", "5",
                              "--memory-budget", "64MB", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "Indexed 12 documents" in res.output
    res = runner.invoke(app, ["add-docs", str(out), str(tmp_path / "b.jsonl"), "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "Added 8 documents: now 20 documents" in res.output
    full = NgramIndex.build(docs, tmp_path / "full", max_n=5, progress=False)
    assert NgramIndex.load(out).checksum == full.checksum

    fig = tmp_path / "fig.png"
    res = runner.invoke(app, ["index-stats", str(out), "--figure", str(fig), "--json", "--verify"])
    assert res.exit_code == 0, res.output
    stats = json.loads(res.output)
    assert stats["n_docs"] == 20 and stats["n_ngrams"] == full.n_ngrams
    assert stats["settings"]["max_n"] == 5
    assert fig.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and fig.stat().st_size > 5000
    res = runner.invoke(app, ["index-stats", str(out), "--no-figure"])
    assert res.exit_code == 0 and "N = 5" in res.output and "mean list length" in res.output
    assert not (tmp_path / "idx-figure2.png").exists()
    before = sorted(p.name for p in tmp_path.iterdir())
    res = runner.invoke(app, ["index-stats", str(out)])  # no --figure: nothing written anywhere
    assert res.exit_code == 0 and "N = 5" in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_cli_errors_are_coded(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "x"}\nnot json\n')
    res = runner.invoke(app, ["build-index", str(bad), str(tmp_path / "idx"), "--no-progress"])
    assert res.exit_code == 1 and "E006" in res.output and "line 2" in res.output
    res = runner.invoke(app, ["build-index", str(tmp_path / "missing.jsonl"), str(tmp_path / "idx")])
    assert res.exit_code == 1 and "E010" in res.output
    res = runner.invoke(app, ["index-stats", str(tmp_path / "idx")])
    assert res.exit_code == 1 and "E059" in res.output


def test_module_entry_point(tmp_path):
    write_records(random_corpus(seed=5, n_docs=5), tmp_path / "c.jsonl")
    proc = subprocess.run([sys.executable, "-m", "spacy_linkguard", "build-index", str(tmp_path / "c.jsonl"),
                           str(tmp_path / "idx")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert NgramIndex.load(tmp_path / "idx").n_docs == 5


def test_build_sharded_and_full_from_the_cli(tmp_path):
    docs = random_corpus(seed=5, n_docs=25)
    write_records(docs, tmp_path / "all.jsonl")
    res = runner.invoke(app, ["build-index", str(tmp_path / "all.jsonl"), str(tmp_path / "s"), "--shards", "3",
                              "--no-progress"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["build-index", str(tmp_path / "all.jsonl"), str(tmp_path / "f"), "--full",
                              "--no-progress"])
    assert res.exit_code == 0, res.output
    sharded, full = NgramIndex.load(tmp_path / "s"), NgramIndex.load(tmp_path / "f")
    assert sharded.n_shards == 3 and full.layout == "full" and sharded.n_ngrams == full.n_ngrams
    res = runner.invoke(app, ["index-stats", str(tmp_path / "s"), "--no-figure"])
    assert res.exit_code == 0, res.output
    assert "shards       3" in res.output and "pruned (answered from the documents' tokens)" in res.output
    assert "bytes per token" in res.output
    res = runner.invoke(app, ["index-stats", str(tmp_path / "f"), "--json", "--no-figure"])
    stats = json.loads(res.output)
    assert stats["layout"] == "full" and stats["n_pruned"] == 0 and stats["n_rows"] == stats["n_ngrams"]
    res = runner.invoke(app, ["build-index", str(tmp_path / "all.jsonl"), str(tmp_path / "x"), "--full",
                              "--shards", "2", "--no-progress"])
    assert res.exit_code == 1 and "E075" in res.output
