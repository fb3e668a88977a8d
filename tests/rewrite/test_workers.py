"""`rewrite --workers 2` with the canned model: the lines of one process; a
worker that dies is E016 and no output. The workers import the module that
registered the canned model in this process (`spacy_linkguard.jobs.registered_modules`)."""
import json

from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.index import NgramIndex

from . import canned  # noqa: F401  (registers linkguard_test.Canned.v1)
from .oracle import CORPUS, QUERY
from .test_cli import CONFIG


def untimed(path):
    """The lines without their wall-time fields ("seconds", at any depth)."""
    def drop(x):
        if isinstance(x, dict):
            return {k: drop(v) for k, v in x.items() if k != "seconds"}
        return [drop(v) for v in x] if isinstance(x, list) else x

    return [drop(json.loads(line)) for line in path.read_text().splitlines()]


def setup_files(tmp_path):
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], tmp_path / "idx",
                     progress=False, n_process=1)
    (tmp_path / "rw.cfg").write_text(CONFIG, encoding="utf-8")
    queries = tmp_path / "q.jsonl"
    rows = [{"id": f"q{i}", "text": t} for i, t in enumerate([QUERY, "Nothing links here.", *CORPUS, QUERY])]
    rows[1]["sources"] = ["d1"]
    queries.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return queries


def rewrite(tmp_path, queries, out, *extra):
    return CliRunner().invoke(app, ["rewrite", str(queries), "--index", str(tmp_path / "idx"), "--config",
                                    str(tmp_path / "rw.cfg"), "-o", str(out), "--no-progress", *extra])


def test_rewrite_with_two_workers_writes_the_same_lines(tmp_path):
    queries = setup_files(tmp_path)
    for w in ("1", "2"):
        res = rewrite(tmp_path, queries, tmp_path / f"out{w}.jsonl", "--workers", w,
                      "--components.linkguard_rewrite.batch_size", "2")
        assert res.exit_code == 0, res.output
    one = untimed(tmp_path / "out1.jsonl")
    assert one == untimed(tmp_path / "out2.jsonl")
    assert [x["id"] for x in one] == [f"q{i}" for i in range(len(CORPUS) + 3)]
    # The rewrite component's verdict (doc._.linkguard_safe) reaches each line from the workers too.
    assert all(isinstance(x["safe"], bool) and x["verdict"] in ("any", "source") for x in one)
    assert one[1]["sources"] == ["d1"] and any(x["passes"] for x in one)


def test_a_worker_that_dies_leaves_no_output(tmp_path):
    queries = setup_files(tmp_path)
    out = tmp_path / "out.jsonl"
    res = rewrite(tmp_path, queries, out, "--workers", "2", "--components.linkguard_rewrite.model.behaviour", "exit")
    assert res.exit_code == 1, res.output
    assert "E016" in res.output and "exited with status 3" in res.output
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".out")]


def test_registered_modules_names_the_canned_model():
    from spacy import util

    from spacy_linkguard.jobs import registered_modules

    cfg = util.load_config_from_str(CONFIG, interpolate=False)
    assert registered_modules(cfg) == ["tests.rewrite.canned"]


def test_rewrite_on_a_dask_cluster_writes_the_same_lines(tmp_path):
    """`rewrite --scheduler ADDRESS` (LocalCluster): partitions of the component's
    batch_size, lines in input order, as one process writes them."""
    from distributed import Client, LocalCluster

    queries = setup_files(tmp_path)
    res = rewrite(tmp_path, queries, tmp_path / "one.jsonl", "--components.linkguard_rewrite.batch_size", "2")
    assert res.exit_code == 0, res.output
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc, Client(lc):
        res = rewrite(tmp_path, queries, tmp_path / "dask.jsonl", "--scheduler", lc.scheduler_address,
                      "--components.linkguard_rewrite.batch_size", "2")
        assert res.exit_code == 0, res.output
    assert untimed(tmp_path / "dask.jsonl") == untimed(tmp_path / "one.jsonl")


def test_rewrite_job_resolves_shipped_configs_by_name(tmp_path):
    import pytest

    from spacy_linkguard.errors import LinkguardError
    from spacy_linkguard.jobs import RewriteJob

    setup_files(tmp_path)
    with pytest.raises(LinkguardError, match="E219"):  # a bare name that is no shipped config
        RewriteJob("no_such_shipped_config", str(tmp_path / "idx")).setup()
    job = RewriteJob(str(tmp_path / "rw.cfg"), str(tmp_path / "idx"))
    job.setup()  # a path stays a path
    assert job.config == str(tmp_path / "rw.cfg")
