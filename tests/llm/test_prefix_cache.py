"""llm/models/prefix_cache.py and the prefix path of HFChatModel: the shared
prefix is the brute-force longest common prefix; replies and losses computed
from the cached prefix are those of the whole prompts; and replies do not
depend on the batch (its size, the other prompts, their order).

The model tests use SmolLM2-135M-Instruct in float32 on the CPU (skipped when
it is missing: `python -m spacy_linkguard fetch-models --only smollm2`).
"""
import random
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from spacy_linkguard.llm.local_models import LOCAL_MODELS, is_converted  # noqa: E402
from spacy_linkguard.llm.models.decode_steps import prefill_once, prefix_states  # noqa: E402
from spacy_linkguard.llm.models.hf import HFChatModel  # noqa: E402
from spacy_linkguard.llm.models.prefix_cache import PrefixCache, layout  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
MODEL_DIR = LOCAL_MODELS["smollm2"].hf_dir(ROOT / "models")
HEAD = ("You rewrite one sentence. Rules: leave each phrase out or say it in more general words; "
        "change nothing else; add nothing. Reply with the sentence only.\n\n")
SENTENCES = ["The applicant was born in 1970 and lives in Ankara.", "He was detained on remand for two years.",
             "The court dismissed the appeal on 3 May.", "She won a silver medal in the relay."]
BANNED = [["Ankara"], ["two years"], ["dismissed"], ["silver medal"]]


def brute_shared(rows, keep_last, min_tokens):
    n = 0
    while all(len(r) > n for r in rows) and len({r[n] for r in rows}) == 1:
        n += 1
    n = min(n, min(len(r) for r in rows) - keep_last)
    return n if n >= min_tokens else 0


def test_split_is_the_brute_force_longest_common_prefix():
    rng = random.Random(3)
    for _ in range(400):
        common = [rng.randrange(5) for _ in range(rng.randrange(0, 12))]
        rows = [common + [rng.randrange(5) for _ in range(rng.randrange(0, 6))] for _ in range(rng.randrange(1, 5))]
        rows = [r for r in rows if r] or [[1]]
        keep, low = rng.choice([0, 1, 2]), rng.choice([0, 1, 4])
        assert PrefixCache(min_tokens=low).split(rows, keep) == max(0, brute_shared(rows, keep, low)), rows


def test_layout_puts_the_prefix_first_and_pads_the_rest_on_the_left():
    ids, mask = layout([[7, 8, 1, 2, 3], [7, 8, 4]], 2, pad_id=0)
    assert ids.tolist() == [[7, 8, 1, 2, 3], [7, 8, 0, 0, 4]]
    assert mask.tolist() == [[1, 1, 1, 1, 1], [1, 1, 0, 0, 1]]


def test_cache_keeps_the_last_entries_and_computes_each_once(monkeypatch):
    made = []
    monkeypatch.setattr("spacy_linkguard.llm.models.decode_steps.prefix_states",
                        lambda model, ids: made.append(ids) or [("k", "v")])
    cache = PrefixCache(min_tokens=1, max_entries=2)
    for ids in ([1, 2], [1, 2], [3], [1, 2], [4], [3]):
        cache.states(None, ids)
    assert made == [(1, 2), (3,), (4,), (3,)]  # (3,) left when (4,) came: (1, 2) was used after it
    assert cache.computed == 4


@pytest.fixture(scope="module")
def model_dir():
    if not is_converted(MODEL_DIR):
        pytest.skip(f"{MODEL_DIR} is missing: run `python -m spacy_linkguard fetch-models --only smollm2`")
    return str(MODEL_DIR)


def make(model_dir, **kwargs):
    settings = dict(device="cpu", dtype="float32", temperature=0.9, top_p=0.95, max_new_tokens=20, batch_size=16,
                    num_threads=1, seed=5)
    return HFChatModel(model_dir, **{**settings, **kwargs})


def asks(n=3):
    prompts = [HEAD + s for s in SENTENCES for _ in range(n)]
    banned = [b for b in BANNED for _ in range(n)]
    return prompts, banned


@pytest.mark.slow
@pytest.mark.parametrize("graphs", [False, True])
def test_replies_from_the_cached_prefix_are_those_of_the_whole_prompts(model_dir, graphs):
    extra = dict(cuda_graphs=True, attn_implementation="sdpa") if graphs else {}
    prompts, banned = asks()
    whole = make(model_dir, prefix_cache=False, **extra).generate(prompts, banned=banned)
    cached_model = make(model_dir, **extra)
    cached = cached_model.generate(prompts, banned=banned)
    assert [g.text for g in cached] == [g.text for g in whole]
    assert [g.prompt_tokens for g in cached] == [g.prompt_tokens for g in whole]
    assert cached_model.prefix_cache.computed == 1 and cached_model.prefix_cache.reused == len(prompts)
    assert len({g.text for g in whole}) > len(SENTENCES)  # sampled: the candidates of a prompt differ


@pytest.mark.slow
def test_replies_do_not_depend_on_the_batch(model_dir):
    prompts, banned = asks()
    reference = [g.text for g in make(model_dir, batch_size=16).generate(prompts, banned=banned)]
    for size in (1, 3, 5):
        assert [g.text for g in make(model_dir, batch_size=size).generate(prompts, banned=banned)] == reference
    # another order and other prompts beside them: each prompt's k-th ask gets the same reply
    order = list(range(len(prompts)))
    random.Random(1).shuffle(order)
    other = make(model_dir, batch_size=4)
    texts = [g.text for g in other.generate([prompts[i] for i in order] + [HEAD + "It rained."],
                                            banned=[banned[i] for i in order] + [["rained"]])]
    by_prompt = {}
    for i, text in zip(order, texts):
        by_prompt.setdefault(prompts[i], []).append(text)
    expected = {}
    for p, text in zip(prompts, reference):
        expected.setdefault(p, []).append(text)
    assert {p: sorted(t) for p, t in by_prompt.items()} == {p: sorted(t) for p, t in expected.items()}
    # asked again, the same prompts draw anew (a retry is not the same reply)
    again = make(model_dir, batch_size=16)
    again.generate(prompts, banned=banned)
    assert [g.text for g in again.generate(prompts, banned=banned)] != reference


@pytest.mark.slow
def test_loss_from_the_cached_prefix_is_the_whole_prompts_loss(model_dir):
    replies = ["The applicant lives in a city.", "He was held.", "The appeal failed.", "She won a medal."]
    prompts = [HEAD + s for s in SENTENCES]
    whole = make(model_dir, prefix_cache=False).loss(prompts, replies)
    cached = make(model_dir, batch_size=3).loss(prompts, replies)
    assert cached == pytest.approx(whole, abs=1e-4)


@pytest.mark.slow
def test_prefill_once_with_a_prefix_gives_the_whole_prefills_logits(model_dir):
    from transformers import DynamicCache

    hf = make(model_dir)
    tok, model = hf.tokenizer, hf.model
    rows = [tok(hf.format_prompt(HEAD + s), add_special_tokens=False)["input_ids"] for s in SENTENCES[:3]]
    rows.append(rows[0])  # a repeated prompt: computed once
    shared = PrefixCache(min_tokens=1).split(rows)
    ids, mask = layout(rows, shared, tok.pad_token_id)
    positions = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 1)
    stats = {}
    with torch.inference_mode():
        cached = prefill_once(model, ids, mask, positions, DynamicCache(config=model.config),
                              prefix_states(model, rows[0][:shared]), stats)
        whole = prefill_once(model, ids, mask, positions, DynamicCache(config=model.config))
    assert torch.allclose(cached, whole, atol=1e-4)
    assert stats["tokens"] == 3 * (ids.shape[1] - shared)  # distinct rows, columns after the prefix
