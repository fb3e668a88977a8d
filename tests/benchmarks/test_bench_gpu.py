"""benchmarks/bench_gpu.py: the --tiny run on the CPU (what CI can cover of the GPU
benchmark) and its pure helpers against brute-force oracles.

The tiny run builds a 2-layer Qwen3 with random weights and drives it through
HFChatModel.from_objects, i.e. the production generation code; it needs the
SmolLM2 tokenizer from `python -m spacy_linkguard fetch-models --only smollm2`
(`make test` runs it first).
"""
import itertools
import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from .scripts import load_script

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_gpu.py"
TOKENIZER = ROOT / "models" / "SmolLM2-135M-Instruct-hf"


bench = load_script("bench_gpu")


def _need_tokenizer():
    assert (TOKENIZER / "tokenizer.json").is_file(), (
        f"{TOKENIZER} is missing: run `python -m spacy_linkguard fetch-models --only smollm2` (make test does)"
    )


# --- pure helpers ------------------------------------------------------------------
def _padding_oracle(batches):
    p_used = sum(p for b in batches for p, _ in b)
    c_used = sum(c for b in batches for _, c in b)
    p_slots = sum(len(b) * max(p for p, _ in b) for b in batches)
    c_slots = sum(len(b) * max(c for _, c in b) for b in batches)
    return 1 - p_used / p_slots, 1 - c_used / c_slots


@pytest.mark.parametrize("seed", range(5))
def test_padding_waste_matches_brute_force_and_sorting_never_pads_more(seed):
    rng = random.Random(seed)
    work = [(rng.randint(10, 900), rng.randint(5, 300)) for _ in range(rng.randint(5, 40))]
    for b in (1, 3, 8):
        unsorted = bench.padding_waste(work, b, sort=False)
        expected = _padding_oracle([work[i : i + b] for i in range(0, len(work), b)])
        assert unsorted["prompt_padding_share"] == pytest.approx(expected[0])
        assert unsorted["decode_padding_share"] == pytest.approx(expected[1])
        ordered = sorted(work, key=lambda pc: -pc[0])
        expected_sorted = _padding_oracle([ordered[i : i + b] for i in range(0, len(ordered), b)])
        sorted_ = bench.padding_waste(work, b, sort=True)
        assert sorted_["prompt_padding_share"] == pytest.approx(expected_sorted[0])
        # Contiguous groups of the sorted lengths minimise the sum of batch maxima.
        assert sorted_["prompt_padding_share"] <= unsorted["prompt_padding_share"] + 1e-12
        if b == 1:
            assert sorted_ == {"prompt_padding_share": 0.0, "decode_padding_share": 0.0}


def test_pick_batch_spreads_over_the_workload_and_cycles():
    work = [(p, p // 10) for p in range(100, 1100, 100)]  # 10 chunks
    assert bench.pick_batch(work, 1) == [(600, 60)]  # the median
    assert bench.pick_batch(work, 10) == sorted(work)
    big = bench.pick_batch(work, 25)
    assert len(big) == 25 and set(big) == set(work)
    assert big == sorted(big)  # quantiles, in order


def test_load_workload_finds_nested_records_but_not_sums(tmp_path):
    data = {
        "documents": [
            {"id": "a", "passes": [{"prompt_tokens": 999, "completion_tokens": 999}],
             "calls": [{"prompt_tokens": 10, "completion_tokens": 3}, {"prompt_tokens": 20, "completion_tokens": 0}]},
            {"id": "b", "calls": [{"prompt_tokens": 30, "completion_tokens": 5}]},
        ],
        "per_document": {"arity_1": {"prompt_tokens": 20, "completion_tokens": 4, "llm_calls": 1.5}},
        "totals": {"prompt_tokens": 60, "completion_tokens": 8},
    }
    path = tmp_path / "w.json"
    path.write_text(json.dumps(data))
    chunks, per_doc, _ = bench.load_workload([path])
    assert chunks == [(10, 3), (30, 5)]  # empty completions and summaries left out
    assert per_doc == {"arity_1": {**data["per_document"]["arity_1"], "source": str(path)}}
    path.write_text(json.dumps({"totals": {"prompt_tokens": 1, "completion_tokens": 1}}))
    with pytest.raises(ValueError):
        bench.load_workload([path])


def test_load_workload_reads_bench_rewrite_and_merges_labels(tmp_path):
    rewrite = {"max_arity": 3, "docs": 5, "chunk_tokens": [[800, 150], [0, 0], [900, 200]],
               "summary": {"llm_calls_per_doc": 12.0, "prompt_tokens_per_doc": 9000.0,
                           "completion_tokens_per_doc": 2000.0, "passes_mean": 2.2}}
    fallback = {"chunks": [{"prompt_tokens": 1, "completion_tokens": 1}],
                "per_document": {"arity_1": {"prompt_tokens": 5000, "completion_tokens": 900, "llm_calls": 6},
                                 "arity_le_3": {"prompt_tokens": 1, "completion_tokens": 1, "llm_calls": 1}}}
    a, b = tmp_path / "rewrite.json", tmp_path / "fallback.json"
    a.write_text(json.dumps(rewrite))
    b.write_text(json.dumps(fallback))
    chunks, per_doc, sources = bench.load_workload([a, b])
    assert chunks == [(800, 150), (900, 200)]  # from the first file only
    assert per_doc["arity_le_3"] == {"prompt_tokens": 9000.0, "completion_tokens": 2000.0, "llm_calls": 12.0,
                                     "passes": 2.2, "documents": 5, "source": str(a)}
    assert per_doc["arity_1"]["prompt_tokens"] == 5000 and per_doc["arity_1"]["source"] == str(b)
    assert sources == [f"chunks: {a}"]


def test_estimate_per_document_is_tokens_over_rates():
    rates = {"batch_size": 64, "prefill_tok_s": 1000.0, "useful_completion_tok_s": 50.0}
    est = bench.estimate_per_document(
        {"arity_1": {"prompt_tokens": 3000, "completion_tokens": 100, "llm_calls": 4}}, rates
    )
    assert est["arity_1"]["seconds"] == pytest.approx(3.0 + 2.0)
    assert est["arity_1"]["paper_seconds"] == 15.5


# --- the tiny run through the production code ------------------------------------------
@pytest.mark.slow
def test_prompt_of_length_hits_the_target_through_the_chat_template():
    _need_tokenizer()
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(TOKENIZER), local_files_only=True)
    model, _, _ = bench.build_model(bench.TINY, tok, "cpu", "float32", 0)
    hf = bench.make_hf(model, tok, "cpu", "dynamic", 4, 4)
    ids = bench.filler_ids(tok, bench.DEFAULT_TEXTS, limit_chars=50_000)
    for target in (40, 200, 777):
        prompt = bench.prompt_of_length(hf, ids, target, offset=target * 13)
        assert abs(hf.count_tokens(hf.format_prompt(prompt)) - target) <= 2


@pytest.mark.slow
def test_tiny_run_prints_one_json_object_with_consistent_numbers(tmp_path):
    _need_tokenizer()
    rng = random.Random(1)
    chunks = [{"prompt_tokens": rng.randint(300, 900), "completion_tokens": rng.randint(60, 240)} for _ in range(20)]
    per_doc = {"arity_1": {"prompt_tokens": 4000, "completion_tokens": 800, "llm_calls": 5},
               "arity_le_3": {"prompt_tokens": 9000, "completion_tokens": 1700, "llm_calls": 11}}
    workload = tmp_path / "rewrite.json"
    workload.write_text(json.dumps({"chunks": chunks, "per_document": per_doc}))
    out = tmp_path / "gpu.json"
    proc = subprocess.run(
        [sys.executable, str(SCRIPT), "--tiny", "--tokenizer", str(TOKENIZER), "--workload", str(workload),
         "--batch-sizes", "1,3", "--variants", "dynamic,static+grouped", "--out", str(out)],
        capture_output=True, text=True, timeout=600, env={"HF_HUB_OFFLINE": "1", "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    result = json.loads(proc.stdout)  # exactly one JSON object on stdout
    assert json.loads(out.read_text()) == result
    assert result["config"] == "tiny" and result["model"]["class"] == "Qwen3ForCausalLM"
    assert result["env"]["device"] == "cpu"
    assert result["workload"]["chunks"] == 20
    scaled = [(max(16, c["prompt_tokens"] // 10), max(2, c["completion_tokens"] // 25)) for c in chunks]
    assert set(result["variants"]) == {"dynamic", "static+grouped"}
    for variant in result["variants"].values():
        rows = variant["batches"]
        assert [r["batch_size"] for r in rows] == [1, 3]
        for row, size in zip(rows, (1, 3)):
            picked = bench.pick_batch(scaled, size)
            steps = max(2, max(c for _, c in picked))
            # Every sequence generated exactly the recorded length: the stop ids
            # were masked until then, through the production generate().
            assert row["decode_steps"] == steps
            assert row["completion_tokens_returned"] == [steps]
            assert row["prompt_tokens_requested"] == sum(p for p, _ in picked)
            assert abs(row["prompt_tokens"] - row["prompt_tokens_requested"]) <= 2 * size
            assert row["decode_tok_s"] == pytest.approx(size * (steps - 1) / row["decode_seconds"])
            assert row["prefill_tok_s"] == pytest.approx(row["prompt_tokens"] / row["prefill_seconds"])
        est = variant["per_document_estimate"]
        last = rows[-1]
        for label, stats in per_doc.items():
            expected = stats["prompt_tokens"] / last["prefill_tok_s"] + stats["completion_tokens"] / last[
                "useful_completion_tok_s"]
            assert est[label]["seconds"] == pytest.approx(expected)
    assert set(result["padding"]) == {"1", "3"}


def test_rates_mode_reestimates_from_saved_gpu_results(tmp_path):
    gpu = {"env": {"gpu": "NVIDIA H200"}, "variants": {"static+grouped": {"batches": [
        {"batch_size": 1, "prefill_tok_s": 20000.0, "useful_completion_tok_s": 150.0},
        {"batch_size": 64, "prefill_tok_s": 30000.0, "useful_completion_tok_s": 3600.0}]}}}
    rates = tmp_path / "gpu.json"
    rates.write_text(json.dumps(gpu))
    workload = tmp_path / "rewrite.json"
    workload.write_text(json.dumps({"max_arity": 1, "docs": 5, "chunk_tokens": [[500, 100]],
                                    "summary": {"llm_calls_per_doc": 3.0, "prompt_tokens_per_doc": 6000.0,
                                                "completion_tokens_per_doc": 720.0}}))
    proc = subprocess.run([sys.executable, str(SCRIPT), "--rates", str(rates), "--workload", str(workload)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    by_size = out["estimates"][0]["variants"]["static+grouped"]
    assert by_size["1"]["arity_1"]["seconds"] == pytest.approx(6000 / 20000 + 720 / 150)
    assert by_size["64"]["arity_1"]["seconds"] == pytest.approx(6000 / 30000 + 720 / 3600)
    assert out["estimates"][0]["card"] == "NVIDIA H200"


def test_load_workload_reads_rewrite_cli_output(tmp_path):
    lines = [{"id": "a", "passes": [{"llm_calls": 2, "prompt_tokens": 300, "completion_tokens": 50,
                                     "chunk_tokens": [[100, 20], [200, 30]]},
                                    {"llm_calls": 1, "prompt_tokens": 150, "completion_tokens": 10,
                                     "chunk_tokens": [[150, 10]]}]},
             {"id": "b", "passes": []}]
    path = tmp_path / "out_llm_a1.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n")
    chunks, per_doc, _ = bench.load_workload([Path(f"arity_1={path}")])
    assert chunks == [(100, 20), (200, 30), (150, 10)]
    assert per_doc["arity_1"] == {"prompt_tokens": 225.0, "completion_tokens": 30.0, "llm_calls": 1.5,
                                  "passes": 1.0, "documents": 2, "source": str(path)}
