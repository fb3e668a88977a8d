"""HFChatModel's speed options on a tiny random Qwen3 (CPU): `from_objects`, the
static KV cache with batch-size buckets. Greedy decoding with the plain dynamic
cache is the oracle: a speed option must not change a single token.

Needs the SmolLM2 tokenizer (`python -m spacy_linkguard fetch-models --only
smollm2`; `make test` runs it first); the model weights are random.
"""
from pathlib import Path

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.models.hf import HFChatModel, _padded_size

TOKENIZER = Path(__file__).resolve().parents[2] / "models" / "SmolLM2-135M-Instruct-hf"
PROMPTS = [
    "The applicant complained under Article 6 of the Convention.",
    "On 3 May 2001 the court dismissed the appeal.",
    "Short.",
    "The Government contested that argument, stating that the domestic remedies had not been exhausted.",
    "The hearing took place in public.",
]


@pytest.fixture(scope="module")
def parts():
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

    assert (TOKENIZER / "tokenizer.json").is_file(), f"{TOKENIZER} missing: run fetch-models --only smollm2"
    tok = AutoTokenizer.from_pretrained(str(TOKENIZER), local_files_only=True)
    config = Qwen3Config(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, head_dim=8, vocab_size=len(tok), tie_word_embeddings=True,
                         eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    # float64: batch composition must not flip an argmax through rounding.
    model = Qwen3ForCausalLM._from_config(config, dtype=torch.float64).eval()
    return model, tok


def _greedy(parts, **kwargs):
    model, tok = parts
    return HFChatModel.from_objects(model, tok, device="cpu", temperature=0.0, max_new_tokens=6, **kwargs)


def test_padded_size_is_the_next_power_of_two_capped():
    for batch_size in (1, 5, 8, 64):
        for n in range(1, batch_size + 1):
            size = _padded_size(n, batch_size)
            assert n <= size <= batch_size
            assert size == batch_size or (size & (size - 1) == 0 and size < 2 * n)


def test_from_objects_generates_with_the_given_model(parts):
    hf = _greedy(parts, batch_size=2)
    gens = hf.generate(PROMPTS)
    assert [g.prompt_tokens for g in gens] == [hf.count_tokens(hf.format_prompt(p)) for p in PROMPTS]
    assert all(1 <= g.completion_tokens <= 6 for g in gens)
    assert hf.tokenizer.padding_side == "left"
    assert hf([["", PROMPTS[0]]])[0][0] == ""


def test_static_cache_pads_short_batches_and_changes_no_token(parts, monkeypatch):
    reference = _greedy(parts, batch_size=4).generate(PROMPTS)
    static = _greedy(parts, batch_size=4, cache_implementation="static")
    sizes = []
    original = HFChatModel._generate_batch

    def spy(self, texts):
        sizes.append(len(texts))
        return original(self, texts)

    monkeypatch.setattr(HFChatModel, "_generate_batch", spy)
    gens = static.generate(PROMPTS)
    assert sizes == [4, 1]  # 5 prompts: a full batch, then 1 (already a power of two)
    sizes.clear()
    gens3 = static.generate(PROMPTS[:3])
    assert sizes == [4]  # 3 -> padded to 4
    assert [(g.text, g.completion_tokens) for g in gens] == [(g.text, g.completion_tokens) for g in reference]
    assert [g.text for g in gens3] == [g.text for g in reference[:3]]


def test_unknown_cache_implementation_is_a_coded_error(tmp_path):
    with pytest.raises(LinkguardError, match="E207.*cache_implementation"):
        HFChatModel(str(tmp_path), cache_implementation="paged")


def test_grouped_sdpa_gives_the_same_logits_as_sdpa_and_is_used(parts, monkeypatch):
    import torch
    from transformers import AttentionInterface

    from spacy_linkguard.llm.models import attention

    model, tok = parts
    tok.padding_side = "left"
    enc = tok(PROMPTS[:3], return_tensors="pt", padding=True)  # left padding: decode steps carry a mask
    name = attention.register()
    grouped_calls = []

    def spy(module, query, key, value, mask, **kwargs):
        if query.shape[2] == 1 and mask is not None:
            grouped_calls.append(query.shape)
        return attention.grouped_sdpa_attention(module, query, key, value, mask, **kwargs)

    AttentionInterface.register(name, spy)
    try:
        logits = {}
        for impl in ("sdpa", name):
            model.set_attn_implementation(impl)
            out = model.generate(**enc, max_new_tokens=5, min_new_tokens=5, do_sample=False, output_logits=True,
                                 return_dict_in_generate=True, pad_token_id=tok.pad_token_id)
            logits[impl] = torch.stack(out.logits)
    finally:
        AttentionInterface.register(name, attention.grouped_sdpa_attention)
        model.set_attn_implementation("sdpa")
    assert grouped_calls, "the grouped path never ran"
    assert torch.allclose(logits["sdpa"], logits[name], rtol=0, atol=1e-9)


def test_grouped_sdpa_never_lets_pytorch_choose_the_cudnn_kernel(parts, monkeypatch):
    # cuDNN's kernel failed on a masked decode step on an H200; the flag is
    # global, so it can be read on the CPU at each call of the kernel
    import torch

    model, tok = parts
    seen = []
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def spy(*args, **kwargs):
        seen.append((args[0].shape[1], torch.backends.cuda.cudnn_sdp_enabled()))
        return sdpa(*args, **kwargs)

    monkeypatch.setattr(torch.nn.functional, "scaled_dot_product_attention", spy)
    before = torch.backends.cuda.cudnn_sdp_enabled()
    try:
        _greedy(parts, batch_size=2, attn_implementation="grouped_sdpa").generate(PROMPTS[:2])
    finally:
        model.set_attn_implementation("sdpa")
    # prefill: 4 query heads (the stock path); masked decode steps: the grouped call, 2 KV heads
    assert {heads for heads, _ in seen} == {4, 2}
    assert not any(enabled for _, enabled in seen)
    assert torch.backends.cuda.cudnn_sdp_enabled() == before  # restored after each call


def test_grouped_sdpa_with_static_cache_changes_no_token(parts):
    reference = _greedy(parts, batch_size=4).generate(PROMPTS)
    fast = _greedy(parts, batch_size=4, cache_implementation="static", attn_implementation="grouped_sdpa")
    try:
        gens = fast.generate(PROMPTS)
    finally:
        parts[0].set_attn_implementation("sdpa")
    assert [(g.text, g.completion_tokens) for g in gens] == [(g.text, g.completion_tokens) for g in reference]


def test_num_threads_sets_torch_threads_and_keeps_the_tokens(parts):
    import torch

    before = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        reference = _greedy(parts, batch_size=2).generate(PROMPTS)
        assert torch.get_num_threads() == 2  # None leaves torch's setting alone
        one = _greedy(parts, batch_size=2, num_threads=1)
        assert torch.get_num_threads() == 1
        assert [g.text for g in one.generate(PROMPTS)] == [g.text for g in reference]
    finally:
        torch.set_num_threads(before)
    for bad in (0, -1, 1.5):
        with pytest.raises(LinkguardError, match="E207"):
            _greedy(parts, num_threads=bad)
