"""HFChatModel.generate(..., banned=...) and HFChatModel.loss with a real small
model (SmolLM2-135M-Instruct on the CPU; skipped when it is missing: `python -m
spacy_linkguard fetch-models --only smollm2`).

Oracles: `rewrite.occurs` on every reply; greedy decoding without bans (same
path until a ban bites); one forward per example for the loss.
"""
import math
from pathlib import Path

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.local_models import LOCAL_MODELS, is_converted
from spacy_linkguard.llm.models.banned_decoding import generate_banned
from spacy_linkguard.llm.models.banned_phrases import PhraseSet
from spacy_linkguard.llm.models.hf import HFChatModel
from spacy_linkguard.ngrams import NgramSettings, text_segments
from spacy_linkguard.rewrite.occurs import occurs

ROOT = Path(__file__).resolve().parents[2]
MODEL_DIR = LOCAL_MODELS["smollm2"].hf_dir(ROOT / "models")
SETTINGS = NgramSettings()
REPEAT = "Repeat exactly: Foo Foo Foo Foo Foo"

pytestmark = pytest.mark.slow


def make(**kwargs) -> HFChatModel:
    if not is_converted(MODEL_DIR):
        pytest.skip(f"{MODEL_DIR} is missing: run `python -m spacy_linkguard fetch-models --only smollm2`")
    settings = dict(device="cpu", temperature=0.0, max_new_tokens=16, batch_size=8, num_threads=1)
    return HFChatModel(str(MODEL_DIR), **{**settings, **kwargs})


@pytest.fixture(scope="module")
def greedy():
    return make()


def test_bad_words_ids_miss_other_tokenizations_the_sampler_does_not(greedy):
    tok, model = greedy.tokenizer, greedy.model
    ids = {w: tok(w, add_special_tokens=False)["input_ids"] for w in ("foo", " foo", "Foo", " Foo")}
    assert len(set(map(tuple, ids.values()))) == 4 and len(ids[" Foo"]) == 2  # four forms, one of them split
    enc = tok([greedy.format_prompt(REPEAT)], return_tensors="pt", add_special_tokens=False)
    # token-level bans of "foo" and " foo": the model writes "Foo" (two other ids) anyway
    out = model.generate(**enc, max_new_tokens=16, do_sample=False, bad_words_ids=[ids["foo"], ids[" foo"]],
                         pad_token_id=tok.pad_token_id, eos_token_id=greedy._stop_ids)
    text = tok.decode(out[0, enc["input_ids"].shape[1]:], skip_special_tokens=True)
    assert occurs("foo", text, SETTINGS), text
    gen = greedy.generate([REPEAT], banned=[["foo"]])[0]
    assert gen.failed is None and gen.rewinds >= 1
    assert gen.text.strip() and not occurs("foo", gen.text, SETTINGS), gen.text


def test_the_cap_fails_a_reply_that_keeps_the_phrase(greedy):
    free = greedy.generate([REPEAT], banned=[["foo"]])[0]
    needed = free.rewinds
    assert needed >= 1 and free.failed is None
    none = make(max_rewinds=0).generate([REPEAT], banned=[["foo"]])[0]
    assert none.failed == "banned_phrase" and none.rewinds == 0
    assert occurs("foo", none.text, SETTINGS)  # what was produced, for the caller to reject
    # greedy: the same path up to the cap, so one rewind short of `needed` fails there
    short = make(max_rewinds=needed - 1).generate([REPEAT], banned=[["foo"]])[0]
    assert short.failed == "banned_phrase" and short.rewinds == needed - 1


def test_rows_without_bans_are_unaffected(greedy):
    prompts = ["Say hello.", REPEAT, "Name a colour of the sky in one word, please, and nothing else."]
    alone = greedy.generate(prompts)
    tok = greedy.tokenizer
    enc = tok([greedy.format_prompt(p) for p in prompts], return_tensors="pt", padding=True,
              add_special_tokens=False)
    sets = [PhraseSet([], SETTINGS), PhraseSet(["foo"], SETTINGS), PhraseSet([], SETTINGS)]
    rows = generate_banned(greedy.model, tok, enc, sets, max_new_tokens=16, temperature=0.0, top_p=1.0,
                           stop_ids=greedy._stop_ids, max_rewinds=8)
    assert rows[1].rewinds >= 1  # its rewinds happened while the other rows decoded
    for k in (0, 2):
        assert tok.decode(rows[k].ids, skip_special_tokens=True) == alone[k].text
    # through generate: the prompt without phrases gives the text it gives without `banned`
    mixed = greedy.generate(prompts, banned=[None, ["foo"], []])
    assert [mixed[0].text, mixed[2].text] == [alone[0].text, alone[2].text]
    assert mixed[1].rewinds >= 1 and not occurs("foo", mixed[1].text, SETTINGS)


@pytest.mark.parametrize("graphs", [False, True])
def test_finished_rows_leave_the_batch_and_the_rest_decode_as_alone(greedy, graphs):
    # 10 rows (>= COMPACT_FROM) of very different reply lengths: the short ones
    # finish, the batch is compacted, the long ones go on; each row's text is
    # the one it gets alone (greedy), and the banned row still avoids its phrase.
    # graphs=True: the fixed buffers of decode_steps.GraphSteps (run eagerly on
    # the CPU), 16 new tokens in 16 + EXTRA_COLUMNS columns.
    prompts = ["Say hi.", "Say yes.", "Say no.", "Say ok.", "Say bye.", "Say thanks.",
               "Write two sentences about the sea.", "Count from one to twenty in words.",
               "Describe a court in three sentences.", REPEAT]
    tok = greedy.tokenizer
    alone = [greedy.generate([p])[0].text for p in prompts[:-1]]
    enc = tok([greedy.format_prompt(p) for p in prompts], return_tensors="pt", padding=True,
              add_special_tokens=False)
    sets = [PhraseSet([], SETTINGS)] * (len(prompts) - 1) + [PhraseSet(["foo"], SETTINGS)]
    calls = []
    hook = greedy.model.register_forward_pre_hook(lambda m, a, kw: calls.append(kw["input_ids"].shape[0]),
                                                  with_kwargs=True)
    try:
        rows = generate_banned(greedy.model, tok, enc, sets, max_new_tokens=16, temperature=0.0, top_p=1.0,
                               stop_ids=greedy._stop_ids, max_rewinds=8, graphs=graphs)
    finally:
        hook.remove()
    assert min(calls) < len(prompts) == calls[0]  # the batch shrank
    for k in range(len(prompts) - 1):
        assert tok.decode(rows[k].ids, skip_special_tokens=True) == alone[k], prompts[k]
    assert rows[-1].rewinds >= 1 and not occurs("foo", tok.decode(rows[-1].ids, skip_special_tokens=True), SETTINGS)


def test_fixed_buffers_decode_as_the_growing_cache_through_rewinds_and_regrowth(greedy, monkeypatch):
    # GraphSteps against EagerSteps (the oracle) on the same batch: every row's
    # tokens, rewinds and failures equal, with phrases that force rewinds and
    # too few columns at first (the buffers are moved to twice the columns).
    from spacy_linkguard.llm.models import decode_steps

    prompts = [REPEAT, "Repeat exactly: the court the court the court", "Say hi.", "Count from one to ten."]
    banned = [["foo"], ["the court", "court"], [], ["three", "five"]]
    tok = greedy.tokenizer
    enc = tok([greedy.format_prompt(p) for p in prompts], return_tensors="pt", padding=True,
              add_special_tokens=False)
    sets = [PhraseSet(b, SETTINGS) for b in banned]
    kwargs = dict(max_new_tokens=24, temperature=0.0, top_p=1.0, stop_ids=greedy._stop_ids, max_rewinds=6)
    want = generate_banned(greedy.model, tok, enc, sets, **kwargs)
    made = []
    original = decode_steps.GraphSteps

    class Counting(original):
        def __init__(self, *a, **kw):
            super().__init__(*a, **kw)
            made.append(self)

    monkeypatch.setattr(decode_steps, "GraphSteps", Counting)
    monkeypatch.setattr(decode_steps, "EXTRA_COLUMNS", -20)  # 4 columns of room: the buffers must grow
    got = generate_banned(greedy.model, tok, enc, sets, graphs=True, **kwargs)
    assert len(made) == 1 and made[0].mask.shape[1] > enc["input_ids"].shape[1] + 4  # it grew
    assert sum(row.rewinds for row in want) >= 2
    for a, b in zip(got, want):
        assert (a.ids, a.rewinds, a.failed) == (b.ids, b.rewinds, b.failed)


@pytest.mark.parametrize("graphs", [False, True])
def test_a_prompt_repeated_in_the_batch_is_computed_once(greedy, graphs):
    # the candidates of a sentence: each prompt three times. The prompts' pass
    # runs on the three distinct rows only; every copy decodes as the prompt alone.
    from spacy_linkguard.llm.models.decode_steps import unique_rows

    prompts = ["Say hi.", REPEAT, "Count from one to five."]
    tok = greedy.tokenizer
    alone = [greedy.generate([p], banned=[["foo"]])[0].text for p in prompts]
    batch = [p for p in prompts for _ in range(3)]
    enc = tok([greedy.format_prompt(p) for p in batch], return_tensors="pt", padding=True,
              add_special_tokens=False)
    first, inverse = unique_rows(enc["input_ids"], enc["attention_mask"])
    assert (enc["input_ids"][first][inverse] == enc["input_ids"]).all() and len(first) == 3
    calls = []
    hook = greedy.model.register_forward_pre_hook(lambda m, a, kw: calls.append(tuple(kw["input_ids"].shape)),
                                                  with_kwargs=True)
    try:
        rows = generate_banned(greedy.model, tok, enc, [PhraseSet(["foo"], SETTINGS)] * len(batch),
                               max_new_tokens=16, temperature=0.0, top_p=1.0, stop_ids=greedy._stop_ids,
                               max_rewinds=8, graphs=graphs)
    finally:
        hook.remove()
    assert calls[0] == (3, enc["input_ids"].shape[1])  # the prompts' pass: three rows
    assert all(shape[1] == 1 for shape in calls[1:]) and calls[1][0] == len(batch)  # then every row decodes
    assert [tok.decode(r.ids, skip_special_tokens=True) for r in rows] == [a for a in alone for _ in range(3)]


def test_the_models_cuda_graphs_setting_decodes_over_fixed_buffers(monkeypatch):
    # HF.v1 with cuda_graphs and grouped_sdpa (the sentence GPU configs) reaches
    # GraphSteps; without cuda_graphs it decodes step by step; same text.
    from spacy_linkguard.llm.models import attention, decode_steps

    made = []

    def counting(name):
        class Counting(getattr(decode_steps, name)):
            def __init__(self, *args, **kwargs):
                made.append(name)
                super().__init__(*args, **kwargs)
        return Counting

    for name in ("GraphSteps", "EagerSteps"):
        monkeypatch.setattr(decode_steps, name, counting(name))
    graphs = make(attn_implementation="grouped_sdpa", cuda_graphs=True)
    assert graphs.model.config._attn_implementation == attention.NAME in decode_steps.BOOLEAN_MASK_ATTENTION
    with_graphs = graphs.generate([REPEAT], banned=[["foo"]])[0]
    stepwise = make(attn_implementation="grouped_sdpa").generate([REPEAT], banned=[["foo"]])[0]
    assert made == ["GraphSteps", "EagerSteps"]
    assert with_graphs.text == stepwise.text and with_graphs.rewinds == stepwise.rewinds >= 1


def test_unique_rows_tells_rows_apart_by_their_mask_too():
    import torch

    from spacy_linkguard.llm.models.decode_steps import unique_rows

    ids = torch.tensor([[0, 5, 6], [0, 5, 6], [0, 5, 6], [1, 2, 3]])
    mask = torch.tensor([[0, 1, 1], [1, 1, 1], [0, 1, 1], [1, 1, 1]])  # row 1: token 0 is real there
    first, inverse = unique_rows(ids, mask)
    assert sorted(first.tolist()) == [0, 1, 3]
    assert (ids[first][inverse] == ids).all() and (mask[first][inverse] == mask).all()
    assert unique_rows(ids[1:], mask[1:]) is None  # no row repeats


def produced_phrases(texts):
    """Phrases the model wrote, in several forms: as written, upper-cased, with
    a leading space; one- and two-word ones, including words with inner
    punctuation ("I'm") and words the tokenizer splits."""
    phrases = []
    for text in texts:
        for seg in text_segments(text, SETTINGS):
            if len(seg) >= 2:
                two = text[seg.starts[0] : seg.ends[1]]
                phrases += [two, two.upper(), " " + two]
            for s, e in zip(seg.starts, seg.ends):
                word = text[s:e]
                if "'" in word or len(word) >= 8:
                    phrases.append(word)
    return sorted(set(phrases))


def test_no_reply_contains_a_banned_phrase_brute_force():
    prompts = ["Say hello.", "Write one sentence about Paris.", "What is 2 + 2? Answer in words.",
               "Tell me about the European Court of Human Rights.", REPEAT, "Who are you?"]
    base = make(max_new_tokens=20, temperature=1.0, seed=3)
    found = produced_phrases(g.text for g in base.generate(prompts))
    assert len(found) >= 10, found
    banned = [found] * len(prompts)
    rewinds = 0
    for seed in (0, 1):
        model = make(max_new_tokens=20, temperature=1.0, seed=seed, max_rewinds=16)
        model._install(base.model, base.tokenizer)  # weights loaded once
        for gen in model.generate(prompts, banned=banned, settings=SETTINGS):
            rewinds += gen.rewinds
            if gen.failed:
                assert gen.failed == "banned_phrase"
                continue
            assert gen.text.strip(), gen
            assert not [p for p in found if occurs(p, gen.text, SETTINGS)], gen.text
    assert rewinds >= 3  # the bans did bite


def test_loss_equals_one_forward_per_example(greedy):
    import torch

    prompts = ["Say hello.", "Name a colour of the sky in one word, please, and nothing else.", "Hi", "Hi"]
    completions = ["Hello! How can I help?", "Blue.", "Hello there, friend of mine.", ""]
    got = greedy.loss(prompts, completions)
    tok, model = greedy.tokenizer, greedy.model
    for p, c, value in zip(prompts, completions, got):
        if not c:
            assert math.isnan(value)
            continue
        ctx = tok(greedy.format_prompt(p), add_special_tokens=False)["input_ids"]
        target = tok(c, add_special_tokens=False)["input_ids"]
        with torch.inference_mode():
            logits = model(input_ids=torch.tensor([ctx + target])).logits[0].float()
        logprobs = logits.log_softmax(-1)
        total = sum(logprobs[len(ctx) - 1 + j, t].item() for j, t in enumerate(target))
        assert value == pytest.approx(-total / len(target), abs=1e-4)
    assert got[1] != got[0]


def test_loss_in_sub_batches_bounds_the_logits_and_gives_the_same_values(greedy, monkeypatch):
    # With a tiny logits budget every row is its own sub-batch; the values do
    # not change, and no forward ever sees more rows than the budget allows.
    from spacy_linkguard.llm.models import hf

    prompts = ["Say hello.", "Name a colour of the sky in one word, please, and nothing else.", "Hi", "Why?"]
    completions = ["Hello! How can I help?", "Blue.", "Hello there, friend of mine.", "Because."]
    whole = greedy.loss(prompts, completions)
    seen = []
    model = greedy.model
    original = type(model).forward

    def counting(self, *args, **kwargs):
        seen.append(kwargs["input_ids"].shape[0])
        return original(self, *args, **kwargs)

    monkeypatch.setattr(hf, "LOSS_LOGITS_BYTES", 1)
    monkeypatch.setattr(type(model), "forward", counting)
    split = greedy.loss(prompts, completions)
    assert seen == [1, 1, 1, 1]
    assert split == pytest.approx(whole, abs=1e-4)


def test_bad_arguments_are_coded_errors():
    with pytest.raises(LinkguardError, match="E228"):
        make(max_rewinds=-1)
    model = make()
    with pytest.raises(LinkguardError, match="E227"):
        model.generate(["a", "b"], banned=[["x"]])
    with pytest.raises(LinkguardError, match="E227"):
        model.generate(["a"], banned=["x"])
    with pytest.raises(LinkguardError, match="E229"):
        model.loss(["a"], [])


def test_grouped_sdpa_tiny_qwen3():
    """The rewind path under attn_implementation="grouped_sdpa" (grouped-query
    heads, masked decode steps): a tiny random Qwen3 in float64, so that the
    masked-out columns must leave the other rows' greedy tokens exactly as
    transformers' own generate gives them."""
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, Qwen3Config, Qwen3ForCausalLM

    if not (MODEL_DIR / "tokenizer.json").is_file():
        pytest.skip(f"{MODEL_DIR} is missing")
    tok = AutoTokenizer.from_pretrained(str(MODEL_DIR), local_files_only=True)
    # untied embeddings: a tied random model only echoes its last input token
    config = Qwen3Config(hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
                         num_key_value_heads=2, head_dim=8, vocab_size=len(tok), tie_word_embeddings=False,
                         eos_token_id=tok.eos_token_id, pad_token_id=tok.pad_token_id)
    torch.manual_seed(0)
    net = Qwen3ForCausalLM._from_config(config, dtype=torch.float64).eval()
    model = HFChatModel.from_objects(net, tok, device="cpu", temperature=0.0, max_new_tokens=12,
                                     attn_implementation="grouped_sdpa")
    prompts = ["The applicant complained.", "On 3 May 2001 the court dismissed the appeal.", "Short."]
    plain = model.generate(prompts)
    # each banned row bans the first word of its own unbanned reply
    banned = [None] + [[text_segments(g.text, SETTINGS)[0].keys[0]] for g in plain[1:]]
    got = model.generate(prompts, banned=banned)
    assert got[0].text == plain[0].text
    assert sum(g.rewinds for g in got) >= 1
    for gen, phrases in zip(got[1:], banned[1:]):
        assert gen.failed or not any(occurs(p, gen.text, SETTINGS) for p in phrases), gen.text
    tok_enc = tok([model.format_prompt(p) for p in prompts], return_tensors="pt", padding=True,
                  add_special_tokens=False)
    sets = [PhraseSet([], SETTINGS), PhraseSet(banned[1], SETTINGS), PhraseSet([], SETTINGS)]
    rows = generate_banned(net, tok, tok_enc, sets, max_new_tokens=12, temperature=0.0, top_p=1.0,
                           stop_ids=model._stop_ids, max_rewinds=8)
    assert rows[1].rewinds >= 1
    assert [tok.decode(rows[k].ids, skip_special_tokens=True) for k in (0, 2)] == [plain[0].text, plain[2].text]
