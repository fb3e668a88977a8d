"""benchmarks/gpu/run_rows.py: jobs run in their dependency order, their commands get
this run's folders for {out} and {kit}, and the timings keep the commands as the jobs
file writes them (a committed record names no folder of the machine it ran on)."""
import importlib.util
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("run_rows_under_test", ROOT / "benchmarks" / "gpu" / "run_rows.py")
run_rows = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_rows)

WRITE = "import sys; open(sys.argv[1], 'w').write(''.join(f'{{\"id\": {i}}}\\n' for i in range(int(sys.argv[2]))))"


def test_jobs_get_the_folders_and_the_record_keeps_the_placeholders(tmp_path, monkeypatch):
    kit = tmp_path / "kit"
    kit.mkdir()
    (kit / "n").write_text("3", encoding="utf-8")
    monkeypatch.setenv("KIT_DIR", str(kit))
    out = tmp_path / "rows"
    copy = "import sys, shutil; shutil.copy(sys.argv[1], sys.argv[2])"
    jobs = [
        {"name": "first", "gpus": [], "cmd": [sys.executable, "-c", copy, "{kit}/n", "{out}/n"]},
        {"name": "row", "gpus": [], "docs": True, "after": ["first"],
         "cmd": [sys.executable, "-c", WRITE, "{out}/row.jsonl", "3"]},
        {"name": "broken", "gpus": [], "cmd": [sys.executable, "-c", "raise SystemExit(4)"]},
        {"name": "never", "gpus": [], "after": ["broken"], "cmd": [sys.executable, "-c", "pass"]},
    ]
    timings = run_rows.run(jobs, out, poll=0.05)
    assert (out / "n").read_text(encoding="utf-8") == "3"
    state = timings["jobs"]
    assert state["first"]["status"] == "done" and state["row"]["status"] == "done"
    assert state["row"]["docs"] == 3 and state["row"]["started_s"] >= state["first"]["started_s"]
    assert state["broken"]["status"] == "failed" and state["broken"]["rc"] == 4
    assert state["never"]["status"] == "skipped" and "cmd" not in state["never"]
    assert state["first"]["cmd"][-2:] == ["{kit}/n", "{out}/n"]
    record = (out / "timings.json").read_text(encoding="utf-8")
    assert str(tmp_path) not in record and json.loads(record) == timings


def test_every_committed_jobs_file_writes_its_outputs_under_out():
    for path in (ROOT / "benchmarks" / "gpu").glob("jobs_*.json"):
        for job in json.loads(path.read_text(encoding="utf-8")):
            text = json.dumps(job["cmd"])
            assert "/tmp/" not in text, (path.name, job["name"])
            if job.get("docs"):
                assert f"{{out}}/{job['name']}.jsonl" in job["cmd"], (path.name, job["name"])
