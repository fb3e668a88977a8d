"""configs/rewrite_qwen25_1p5b*.cfg: the GPU and CPU variants ask the model the same thing."""
from pathlib import Path

from spacy_llm.registry import registry
from thinc.api import Config

import spacy_linkguard.llm.tasks.rewrite_spans.registry  # noqa: F401 -- registers it without reinstalling
from spacy_linkguard.llm.tasks.rewrite_spans.task import RewriteSpansTask

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SPEED_OPTIONS = {"device", "batch_size", "cache_implementation", "attn_implementation", "num_threads"}


def load(name):
    return Config().from_disk(CONFIGS / name, interpolate=False)["components"]["linkguard_rewrite"]


def test_gpu_and_cpu_variants_differ_only_in_device_and_speed_options():
    gpu, cpu = load("rewrite_qwen25_1p5b.cfg"), load("rewrite_qwen25_1p5b_cpu.cfg")
    assert gpu["task"] == cpu["task"] and gpu["task"]["@llm_tasks"] == "linkguard.RewriteSpans.v1"
    strip = lambda c: {k: v for k, v in c.items() if k not in ("task", "model", "batch_size")}  # noqa: E731
    assert strip(gpu) == strip(cpu) and gpu["max_passes"] == 8 and gpu["max_retries"] == 2
    assert gpu["n_candidates"] == 2
    differ = {k for k in set(gpu["model"]) | set(cpu["model"]) if gpu["model"].get(k) != cpu["model"].get(k)}
    assert differ <= SPEED_OPTIONS, differ
    assert gpu["model"]["dtype"] == cpu["model"]["dtype"] == "bfloat16"
    assert gpu["model"]["stop_at_json"] == "replacements" and gpu["model"]["device"] == "cuda"
    assert gpu["model"]["name"] == "models/Qwen2.5-Coder-1.5B-Instruct-hf"
    assert cpu["model"]["num_threads"] == 1 and "num_threads" not in gpu["model"]


def test_the_task_section_resolves():
    task = registry.resolve({"t": load("rewrite_qwen25_1p5b.cfg")["task"]})["t"]
    assert isinstance(task, RewriteSpansTask) and task.chunking.sentences_per_chunk == 3
