"""llm/models/kv_cache.py: a cache that grows in place gives the logits of
transformers' DynamicCache (the oracle), through a prompt, decode steps that
outgrow its buffer, rows dropped from the batch and a masked-out column, as
`banned_decoding.generate_banned` uses it. A tiny random Qwen2 on the CPU."""
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from spacy_linkguard.llm.models import kv_cache  # noqa: E402
from spacy_linkguard.llm.models.attention import register  # noqa: E402
from spacy_linkguard.llm.models.decode_steps import cache_argument  # noqa: E402


def tiny_model(attn: str):
    torch.manual_seed(0)
    config = transformers.Qwen2Config(hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=2, vocab_size=97,
                                      max_position_embeddings=256)
    model = transformers.Qwen2ForCausalLM(config).eval()
    model.config._attn_implementation = attn
    for layer in model.model.layers:
        layer.self_attn.config._attn_implementation = attn
    return model


def with_cache(model, cache):
    return {cache_argument(type(model)): cache}


def run(model, cache, steps: int = 12):
    """Prefill a left-padded batch of 4, then decode; rows 1 and 3 leave at step 5,
    and one row's last column is masked out at step 8 (a rewind). RETURNS every step's logits."""
    g = torch.Generator().manual_seed(1)
    ids = torch.randint(0, 97, (4, 9), generator=g)
    mask = torch.ones(4, 9 + steps, dtype=torch.long)
    mask[0, :3] = 0
    mask[2, :5] = 0
    position_ids = (mask[:, :9].cumsum(-1) - 1).masked_fill(mask[:, :9] == 0, 1)
    lengths = mask[:, :9].sum(1)
    feed = torch.randint(0, 97, (4, steps), generator=g)
    out = []
    with torch.inference_mode():
        logits = model(input_ids=ids, attention_mask=mask[:, :9], position_ids=position_ids, **with_cache(model, cache),
                       use_cache=True, cache_position=torch.arange(9), logits_to_keep=1).logits[:, -1]
        out.append(logits)
        for step in range(steps):
            if step == 5:
                keep = torch.tensor([0, 2])
                cache.batch_select_indices(keep)
                mask, lengths, feed = mask[keep], lengths[keep], feed[keep]
            if step == 8:
                mask[1, 9 + step - 1] = 0
            col = 9 + step
            logits = model(input_ids=feed[:, step : step + 1], attention_mask=mask[:, : col + 1],
                           position_ids=(lengths + step).unsqueeze(1), **with_cache(model, cache), use_cache=True,
                           cache_position=torch.arange(col, col + 1), logits_to_keep=1).logits[:, -1]
            out.append(logits)
    return out


@pytest.mark.parametrize("attn", ["sdpa", "eager", "grouped"])
def test_growing_cache_gives_the_dynamic_cache_logits(attn, monkeypatch):
    model = tiny_model(register() if attn == "grouped" else attn)
    monkeypatch.setattr(kv_cache, "FIRST_ROOM", 2)  # the buffer is outgrown (reallocated) during the run
    want = run(model, transformers.DynamicCache(config=model.config))
    cache = kv_cache.growing_cache(model)
    got = run(model, cache)
    assert len(got) == len(want) == 13
    for a, b in zip(got, want):
        assert a.shape == b.shape
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
    layer = cache.layers[0]
    assert type(layer).__name__ == "GrowingLayer"
    assert layer.get_seq_length() == 9 + 12 and layer._k.shape[-2] > layer.get_seq_length()  # room to spare


def test_growing_cache_writes_in_place_between_reallocations():
    model = tiny_model("sdpa")
    cache = kv_cache.growing_cache(model)
    with torch.inference_mode():
        model(input_ids=torch.ones(2, 5, dtype=torch.long), **with_cache(model, cache), use_cache=True)
        first = cache.layers[0]._k.data_ptr()
        for col in range(5, 5 + 10):
            model(input_ids=torch.ones(2, 1, dtype=torch.long), **with_cache(model, cache), use_cache=True,
                  cache_position=torch.arange(col, col + 1))
    layer = cache.layers[0]
    assert layer._k.data_ptr() == first  # no new buffer for 10 steps (FIRST_ROOM columns of room)
    assert layer.keys.shape[-2] == cache.get_seq_length() == 15
    layer.crop(-3)
    assert cache.get_seq_length() == 12 and layer.keys.shape[-2] == 12
    with pytest.raises(ValueError):
        layer.crop(2)
