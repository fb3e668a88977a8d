"""configs/rewrite_qwen25_1p5b*.cfg: the GPU and CPU variants ask the model the same thing."""
from pathlib import Path

from spacy_llm.registry import registry
from thinc.api import Config

import spacy_linkguard.llm.tasks.rewrite_sentences.registry  # noqa: F401 -- registers it without reinstalling
import spacy_linkguard.llm.tasks.rewrite_spans.registry  # noqa: F401
from spacy_linkguard.llm.tasks.rewrite_sentences.task import RewriteSentencesTask
from spacy_linkguard.llm.tasks.rewrite_spans.task import RewriteSpansTask

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SPEED_OPTIONS = {"device", "batch_size", "cache_implementation", "attn_implementation", "num_threads", "cuda_graphs"}


def load(name):
    return Config().from_disk(CONFIGS / name)["components"]["linkguard_rewrite"]


def test_gpu_and_cpu_variants_differ_only_in_device_and_speed_options():
    gpu, cpu = load("rewrite_qwen25_1p5b.cfg"), load("rewrite_qwen25_1p5b_cpu.cfg")
    g, c = gpu["rewriter"], cpu["rewriter"]
    assert g["@misc"] == "linkguard.SentenceRewriter.v1"
    assert g["task"] == c["task"] and g["task"]["@llm_tasks"] == "linkguard.RewriteSentences.v1"
    assert gpu["task"] is None and gpu["model"] is None  # the backend is the rewriter block
    strip = lambda sec: {k: v for k, v in sec.items() if k not in ("rewriter", "batch_size")}  # noqa: E731
    assert strip(gpu) == strip(cpu) and gpu["max_passes"] == 4
    same = lambda sec: {k: v for k, v in sec.items() if k not in ("task", "model", "similarity_device")}  # noqa: E731
    assert same(g) == same(c) and g["n_candidates"] == 8 and g["generalize"] is True
    differ = {k for k in set(g["model"]) | set(c["model"]) if g["model"].get(k) != c["model"].get(k)}
    assert differ <= SPEED_OPTIONS, differ
    assert g["model"]["dtype"] == c["model"]["dtype"] == "bfloat16" and g["model"]["device"] == "cuda"
    assert g["model"]["name"] == "models/Qwen2.5-Coder-1.5B-Instruct-hf"
    assert c["model"]["num_threads"] == 1 and "num_threads" not in g["model"]


def test_the_task_sections_resolve():
    task = registry.resolve({"t": load("rewrite_qwen25_1p5b.cfg")["rewriter"]["task"]})["t"]
    assert isinstance(task, RewriteSentencesTask) and task.chunking.sentences_per_chunk == 1
    spans = registry.resolve({"t": load("rewrite_qwen25_1p5b_spans.cfg")["task"]})["t"]
    assert isinstance(spans, RewriteSpansTask) and spans.chunking.sentences_per_chunk == 3


def test_the_qwen3_sentence_config_is_this_design_with_the_products_model():
    qwen3, qwen25 = load("rewrite_qwen3_sentences.cfg"), load("rewrite_qwen25_1p5b.cfg")
    assert qwen3["rewriter"]["model"]["name"] == "Qwen/Qwen3-4B-Instruct-2507"
    assert qwen3["rewriter"]["model"]["local_files_only"] is True  # never downloaded at run time
    # the model's batch is its memory's: Qwen3-4B's keys and values take about 5x a token's
    without_name = lambda sec: {**sec, "rewriter": {**sec["rewriter"], "model": {  # noqa: E731
        k: v for k, v in sec["rewriter"]["model"].items() if k not in ("name", "batch_size")}}}
    assert without_name(qwen3) == without_name(qwen25)
    assert qwen3["rewriter"]["model"]["batch_size"] == 256 < qwen25["rewriter"]["model"]["batch_size"] == 1024
