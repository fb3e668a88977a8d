"""spacy_linkguard/profiling.py and benchmarks/profile_rewrite.py's summary:
phases add up when on, nothing happens when off, and the benchmark adds the
processes' profiles up."""
import importlib.util
import json
import time
from pathlib import Path

from spacy_linkguard import profiling

ROOT = Path(__file__).resolve().parents[1]


def load_benchmark():
    spec = importlib.util.spec_from_file_location("profile_rewrite", ROOT / "benchmarks" / "profile_rewrite.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_off_by_default_nothing_counted_or_written(tmp_path, monkeypatch):
    monkeypatch.setattr(profiling, "_folder", None)
    before = profiling.snapshot()
    with profiling.phase("decode"):
        time.sleep(0.01)
    profiling.count("rows", 5)
    profiling.flush()
    assert profiling.snapshot() == before and not profiling.enabled()


def test_phases_and_counts_add_up_and_flush_per_process(tmp_path, monkeypatch):
    monkeypatch.setattr(profiling, "_folder", str(tmp_path))
    monkeypatch.setattr(profiling, "_seconds", type(profiling._seconds)(float))
    monkeypatch.setattr(profiling, "_counts", type(profiling._counts)(int))
    for _ in range(2):
        with profiling.phase("decode"):
            time.sleep(0.02)
    profiling.count("rows", 3)
    profiling.count("rows", 4)
    profiling.flush()
    [path] = list(tmp_path.glob("profile-*.json"))
    doc = json.loads(path.read_text())
    assert doc["counts"] == {"decode_calls": 2, "rows": 7}
    assert 0.04 <= doc["seconds"]["decode"] < 1.0


def test_the_benchmark_adds_the_processes_up(tmp_path):
    bench = load_benchmark()
    for pid, (dec, rows, pre) in enumerate([(2.0, 10, 100), (3.0, 6, 60)]):
        (tmp_path / f"profile-{pid}.json").write_text(json.dumps({
            "pid": pid, "seconds": {"decode": dec, "filters": 1.0},
            "counts": {"rows": rows, "prompt_tokens": 10 * pre, "prefill_tokens": pre, "documents": 2}}))
    out = tmp_path / "out.jsonl"
    out.write_text("{}\n{}\n{}\n{}\n")
    summary = bench.summarize(tmp_path, 8.0, out, gpu=[[50.0, 100.0], [100.0, 300.0]])
    assert summary["processes"] == 2 and summary["documents"] == 4
    assert summary["phase_seconds"] == {"decode": 5.0, "filters": 2.0}
    assert summary["per_document"]["rows"] == 4.0 and summary["seconds_per_document"] == 2.0
    assert summary["prompt_tokens_per_prefilled_token"] == 10.0
    assert summary["gpu"] == {"samples": 2, "busy_share": 0.75, "memory_used_mib_max": 300.0}


def test_a_phase_inside_another_is_counted_once(tmp_path, monkeypatch):
    monkeypatch.setattr(profiling, "_folder", str(tmp_path))
    monkeypatch.setattr(profiling, "_seconds", type(profiling._seconds)(float))
    monkeypatch.setattr(profiling, "_counts", type(profiling._counts)(int))
    start = time.perf_counter()
    with profiling.phase("loss"):
        time.sleep(0.02)
        with profiling.phase("prefix"):
            time.sleep(0.05)
    total = time.perf_counter() - start
    seconds = profiling.snapshot()["seconds"]
    assert 0.05 <= seconds["prefix"] < 0.5
    assert 0.02 <= seconds["loss"] < seconds["prefix"]  # the inner 0.05 s left out of the outer phase
    assert seconds["loss"] + seconds["prefix"] <= total + 1e-3
