"""`detect --workers 2` and `show --workers 2` write what one process writes."""
import json
import os
import re
import signal
import subprocess
import sys
import time

from typer.testing import CliRunner

from spacy_linkguard.cli import app


def without_timing(text):
    lines = []
    for raw in text.splitlines():
        obj = json.loads(raw)
        obj["report"].pop("seconds")  # wall time of the detection, the one field that differs
        lines.append(json.dumps(obj, ensure_ascii=False))
    return lines


def run(*args):
    return CliRunner().invoke(app, [*args, "--no-progress"])


def test_detect_with_two_workers_writes_the_same_lines(small_index, tmp_path):
    index, queries, _ = small_index
    outs = {}
    for w in ("1", "2"):
        outs[w] = tmp_path / f"out{w}.jsonl"
        res = run("detect", str(queries), "--index", str(index), "--max-arity", "3", "-o", str(outs[w]),
                  "--workers", w)
        assert res.exit_code == 0, res.output
    one, two = without_timing(outs["1"].read_text()), without_timing(outs["2"].read_text())
    assert one == two and len(one) == 5


def test_show_with_two_workers_writes_the_same_page(small_index, tmp_path):
    index, queries, _ = small_index
    for w in ("1", "2"):
        res = run("show", str(queries), "--index", str(index), "-o", str(tmp_path / f"p{w}.html"), "--workers", w)
        assert res.exit_code == 0, res.output
    assert (tmp_path / "p1.html").read_bytes() == (tmp_path / "p2.html").read_bytes()
    page = (tmp_path / "p2.html").read_text(encoding="utf-8")
    # The items made in the workers are drawn as written (display.markup_as_written, with its STYLE).
    assert 'class="lg-spans"' in page and ".lg-span{" in page and 'class="spans"' not in page


def test_errors_are_those_of_one_process(small_index, tmp_path):
    """A bad input line and an unknown source are the same coded errors, and leave no output."""
    index, queries, records = small_index
    bad = tmp_path / "bad.jsonl"
    good = queries.read_text().splitlines()
    bad.write_text("\n".join(good[:3] + ['{"id": "x", "text": 3}'] + good[3:]) + "\n")
    unknown = tmp_path / "unknown.jsonl"
    unknown.write_text("\n".join(good[:2] + [json.dumps({"id": "q", "text": records[0][1]})] + good[2:]) + "\n")
    for path, extra, code in ((bad, [], "E007"), (unknown, ["--verdict", "source"], "E108")):
        outputs = []
        for w in ("1", "2"):
            out = tmp_path / f"o{w}.jsonl"
            res = run("detect", str(path), "--index", str(index), "-o", str(out), "--workers", w, *extra)
            assert res.exit_code == 1 and code in res.output and not out.exists()
            outputs.append(res.output)
        assert outputs[0] == outputs[1]
    res = run("detect", str(queries), "--index", str(index), "--workers", "0")
    assert res.exit_code == 1 and "E014" in res.output and "--workers" in res.output


def test_ctrl_c_leaves_no_output_and_no_worker(small_index, tmp_path):
    """SIGINT to the command (the terminal sends it to every process of the
    group): it stops, the temporary file is removed, the workers end."""
    index, queries, _ = small_index
    big = tmp_path / "big.jsonl"
    lines = queries.read_text().splitlines()
    # Enough documents that the run is still going when the signal comes: on
    # the tiny index the whole input takes seconds, and this test reads the
    # bar a character at a time.
    n = 4000 * len(lines)
    big.write_text("".join(json.dumps({**json.loads(ln), "id": f"{i}-{j}"}) + "\n"
                           for i in range(4000) for j, ln in enumerate(lines)))
    out = tmp_path / "out.jsonl"
    # As a terminal's foreground job: Ctrl-C not ignored, even when the tests
    # run as a background job of a shell (which starts them ignoring SIGINT).
    proc = subprocess.Popen([sys.executable, "-m", "spacy_linkguard", "detect", str(big), "--index", str(index),
                             "-o", str(out), "--workers", "2", "--progress"],
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # wait until documents are being written (the bar counts), then Ctrl-C the whole group
    seen = ""
    while proc.poll() is None and not re.search(rf"\b[1-9][0-9]*/{n}\b", seen):
        seen += proc.stderr.read(1)
    assert proc.poll() is None, seen
    os.killpg(proc.pid, signal.SIGINT)
    proc.communicate(timeout=60)
    assert proc.returncode != 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.jsonl"]
    end = time.monotonic() + 20  # the workers and the fork server end soon after the command
    while (left := group_members(proc.pid)) and time.monotonic() < end:
        time.sleep(0.2)
    assert not left, left


def group_members(pgid):
    """The processes of process group `pgid` still alive (zombies aside)."""
    import psutil  # a dependency of dask.distributed ([dist], part of [all])

    left = []
    for p in psutil.process_iter(["pid", "status"]):
        try:
            if os.getpgid(p.pid) == pgid and p.info["status"] != psutil.STATUS_ZOMBIE:
                left.append(p.pid)
        except (OSError, psutil.Error):
            continue
    return left


def test_detect_on_a_dask_cluster_survives_a_killed_worker(small_index, tmp_path):
    """`detect --scheduler ADDRESS` on a LocalCluster: the lines of one process,
    each document once, though a worker is killed as a partition starts; `show`
    on the same cluster writes the page of one process."""
    from distributed import Client, LocalCluster

    from ..index.dask_faults import KillOnTask, deaths

    index, queries, _ = small_index
    res = run("detect", str(queries), "--index", str(index), "-o", str(tmp_path / "one.jsonl"))
    assert res.exit_code == 0, res.output
    (tmp_path / "marks").mkdir()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as lc, \
            Client(lc) as client:
        client.register_plugin(KillOnTask(tmp_path / "marks", "_run_partition", after=2))
        out = tmp_path / "dask.jsonl"
        res = run("detect", str(queries), "--index", str(index), "-o", str(out), "--scheduler", lc.scheduler_address)
        assert res.exit_code == 0, res.output
        assert deaths(tmp_path / "marks") == 1
        assert client.submit(sum, [1, 2]).result() == 3  # the cluster is left running
        res = run("show", str(queries), "--index", str(index), "-o", str(tmp_path / "dask.html"),
                  "--scheduler", lc.scheduler_address)
        assert res.exit_code == 0, res.output
    assert without_timing(out.read_text()) == without_timing((tmp_path / "one.jsonl").read_text())
    res = run("show", str(queries), "--index", str(index), "-o", str(tmp_path / "one.html"))
    assert res.exit_code == 0, res.output
    assert (tmp_path / "dask.html").read_bytes() == (tmp_path / "one.html").read_bytes()
