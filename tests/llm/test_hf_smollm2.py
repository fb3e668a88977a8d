"""linkguard.HF.v1 with a real model: SmolLM2-135M-Instruct on the CPU.

The weights come from `python -m spacy_linkguard fetch-models --only smollm2`
(`make test` runs it first). These tests assert the code path's invariants --
batching, token counts, the loop's guarantee -- not the model's eloquence.
"""
from pathlib import Path

import pytest
from spacy import util
from spacy_llm.registry import registry

from spacy_linkguard.detect import Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.local_models import LOCAL_MODELS, is_converted
from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task
from spacy_linkguard.rewrite import RewriteLoop
from tests.rewrite.oracle import CORPUS, QUERY, DictIndex, brute_force

ROOT = Path(__file__).resolve().parents[2]
MODEL_DIR = LOCAL_MODELS["smollm2"].hf_dir(ROOT / "models")
CPU_CONFIG = ROOT / "configs" / "rewrite_cpu.cfg"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def model_cfg():
    assert is_converted(MODEL_DIR), (
        f"{MODEL_DIR} is missing: run `python -m spacy_linkguard fetch-models --only smollm2` (make test does)"
    )
    cfg = util.load_config(CPU_CONFIG, interpolate=False)["components"]["linkguard_rewrite"]["model"]
    return {**cfg, "name": str(MODEL_DIR)}


@pytest.fixture(scope="module")
def greedy(model_cfg):
    return registry.resolve({"m": {**model_cfg, "temperature": 0.0, "max_new_tokens": 8}})["m"]


def test_batched_generation_equals_one_at_a_time(greedy):
    prompts = ["Say hello.", "Name a colour of the sky in one word, please, and nothing else.", ""]
    batched = greedy.generate(prompts)
    single = [greedy.generate([p])[0] for p in prompts]
    assert [g.text for g in batched] == [g.text for g in single]
    assert [g.prompt_tokens for g in batched] == [g.prompt_tokens for g in single]
    assert batched[2].text == "" and batched[2].completion_tokens == 0
    assert batched[1].prompt_tokens > batched[0].prompt_tokens > 0
    assert all(1 <= g.completion_tokens <= 8 for g in batched[:2])
    assert greedy.count_tokens(greedy.format_prompt("Say hello.")) == batched[0].prompt_tokens


def test_a_tokenizer_without_chat_template_is_e203(greedy, tmp_path):
    for f in MODEL_DIR.iterdir():
        if f.name != "chat_template.jinja":
            (tmp_path / f.name).symlink_to(f)
    plain = registry.resolve({"m": {"@llm_models": "linkguard.HF.v1", "name": str(tmp_path), "device": "cpu"}})["m"]
    if plain.tokenizer.chat_template:  # the template lives in tokenizer_config.json here
        pytest.fail("expected the chat template in chat_template.jinja")
    with pytest.raises(LinkguardError, match="E203"):
        plain.generate(["hi"])
    plain.use_chat_template = False
    assert plain.format_prompt("hi") == "hi"


def test_the_loop_with_smollm2_returns_a_safe_text(model_cfg):
    index = DictIndex(CORPUS)
    model = registry.resolve({"m": {**model_cfg, "max_new_tokens": 64}})["m"]
    task = make_rewrite_task(examples=[], sentences_per_chunk=3)
    loop = RewriteLoop(Detector(index), task, model, max_passes=1, max_retries=0)
    doc = QUERY.split("\n\nThe Government")[0]  # two paragraphs, one flagged chunk: short on a CPU
    (res,) = loop.run([doc])
    assert res.safe and brute_force(res.text, index).safe
    (p,) = res.passes
    assert p.chunks_sent >= 1 and p.llm_calls == p.chunks_sent
    assert p.prompt_tokens > 0 and p.completion_tokens > 0
    assert len(p.chunk_tokens) == p.llm_calls and all(c <= 64 for _, c in p.chunk_tokens)
    assert p.chunks_accepted + sum(p.rejected.values()) == p.llm_calls
    assert res.text.count("\n\n") == doc.count("\n\n")  # layout kept whatever the model said
