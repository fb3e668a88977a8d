"""Stopping at the end of the JSON answer: the incremental scanner against a
brute-force oracle, and HFChatModel(stop_at_json=...) on a tiny random model
whose output is scripted by a logits processor (no LLM judgement involved)."""
import random
from pathlib import Path

import pytest

from spacy_linkguard.llm.models.stopping import JsonAnswerScanner, is_answer
from spacy_linkguard.llm.tasks.rewrite.parser import parse_reply

REPLIES = [
    'The span "beaten him" becomes "struck him". {"text": "He was struck."} Done!',
    'Input was {"text": "a b", "spans": ["a"]}. So: {"text": "c b"}\nAnything after.',
    'I use { braces } loosely {"text": "kept"} tail',
    '```json\n{"text": "fenced \\" } { quote"}\n```',
    '{"text": "first"} {"text": "second"}',
    '{"answer": {"text": "nested"}} more',
    'no json here at all',
    '{"text": "never closed',
    '{"text": 3} {"text": ["x"]} {"other": "y"}',
    '{"text": "line\nbreak"} end',
]


def oracle(reply, field="text"):
    """Shortest prefix that ends with an answer object, by trying every (start, end)."""
    for k in range(1, len(reply) + 1):
        if reply[k - 1] == "}" and any(reply[i] == "{" and is_answer(reply[i:k], field) for i in range(k)):
            return k
    return None


def feed_in_pieces(reply, rng):
    scanner = JsonAnswerScanner("text")
    pos = 0
    while pos < len(reply):
        step = rng.randint(1, 6)
        if scanner.feed(reply[pos : pos + step]):
            # The stop comes with the piece that holds the closing brace.
            return pos, pos + step
        pos += step
    return None


@pytest.mark.parametrize("reply", REPLIES)
def test_scanner_stops_where_the_oracle_does_for_any_piece_split(reply):
    expected = oracle(reply)
    rng = random.Random(len(reply))
    for _ in range(20):
        got = feed_in_pieces(reply, rng)
        if expected is None:
            assert got is None
        else:
            start, end = got
            assert start < expected <= end


@pytest.mark.parametrize("reply", REPLIES)
def test_the_parser_reads_the_same_answer_from_the_cut_reply(reply):
    # Cutting after the first answer must not change what the parser extracts,
    # unless the model would have written a second answer (then it gets the first).
    k = oracle(reply)
    if k is None or reply.count('{"text"') > 1 and "spans" not in reply:
        return
    assert parse_reply(reply[:k]) == parse_reply(reply)


def test_input_object_quote_does_not_stop():
    assert oracle('{"text": "a", "spans": ["a"]}') is None
    assert not JsonAnswerScanner("text").feed('{"text": "a", "spans": ["a"]}')
    assert JsonAnswerScanner("rewritten").feed('{"rewritten": "a"}')


TOKENIZER = Path(__file__).resolve().parents[2] / "models" / "SmolLM2-135M-Instruct-hf"


@pytest.fixture(scope="module")
def scripted():
    torch = pytest.importorskip("torch")
    from transformers import AutoTokenizer, LogitsProcessorList, Qwen3Config, Qwen3ForCausalLM

    assert (TOKENIZER / "tokenizer.json").is_file(), f"{TOKENIZER} missing: run fetch-models --only smollm2"
    tok = AutoTokenizer.from_pretrained(str(TOKENIZER), local_files_only=True)
    config = Qwen3Config(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                         num_key_value_heads=2, head_dim=8, vocab_size=len(tok), eos_token_id=tok.eos_token_id,
                         pad_token_id=tok.pad_token_id)
    model = Qwen3ForCausalLM._from_config(config, dtype=torch.float32).eval()
    scripts = {}

    class Script:
        """Forces row r to emit scripts[r] token by token (then the end token)."""

        def __call__(self, input_ids, scores):
            step = input_ids.shape[1] - self.prompt_len
            forced = torch.full_like(scores, float("-inf"))
            for row in range(scores.shape[0]):
                ids = scripts[row]
                forced[row, ids[step] if step < len(ids) else tok.eos_token_id] = 0
            return forced

    script = Script()
    original = model.generate

    def generate(**kwargs):
        script.prompt_len = kwargs["input_ids"].shape[1]
        return original(logits_processor=LogitsProcessorList([script]), **kwargs)

    model.generate = generate
    return model, tok, scripts


def test_hf_model_stops_after_the_answer_and_counts_tokens(scripted):
    from spacy_linkguard.llm.models.hf import HFChatModel

    model, tok, scripts = scripted
    replies = ['Reasoning: "x" goes. {"text": "The new chunk."} And then some more chatter here.',
               "No JSON in this reply at all, just words."]
    scripts.update({i: tok(r, add_special_tokens=False)["input_ids"] for i, r in enumerate(replies)})
    prompts = ["first prompt, a bit longer than the second", "second"]  # sorted: row 0 is the first
    plain = HFChatModel.from_objects(model, tok, device="cpu", temperature=0.0, max_new_tokens=60, batch_size=2)
    full = plain.generate(prompts)
    assert [g.text for g in full] == replies
    fast = HFChatModel.from_objects(model, tok, device="cpu", temperature=0.0, max_new_tokens=60, batch_size=2,
                                    stop_at_json="text")
    gens = fast.generate(prompts)
    cut = replies[0].index("}") + 1
    assert gens[0].text == replies[0][:cut]
    assert gens[0].completion_tokens == len(tok(replies[0][:cut], add_special_tokens=False)["input_ids"])
    assert gens[0].completion_tokens < full[0].completion_tokens
    assert (gens[1].text, gens[1].completion_tokens) == (full[1].text, full[1].completion_tokens)
    assert parse_reply(gens[0].text) == parse_reply(full[0].text) == "The new chunk."


def test_hf_model_stops_after_a_replacements_answer(scripted):
    from spacy_linkguard.llm.models.hf import HFChatModel
    from spacy_linkguard.llm.tasks.rewrite_spans.parser import parse_replacements

    model, tok, scripts = scripted
    answer = '{"replacements": [{"span": "a b", "replacement": "c {d}"}]}'
    replies = ['Sure: {"text": "x", "spans": ["a b"]} ' + answer + " Hope this helps, more words.", "plain"]
    scripts.update({i: tok(r, add_special_tokens=False)["input_ids"] for i, r in enumerate(replies)})
    prompts = ["first prompt, a bit longer than the second", "second"]
    fast = HFChatModel.from_objects(model, tok, device="cpu", temperature=0.0, max_new_tokens=80, batch_size=2,
                                    stop_at_json="replacements")
    gens = fast.generate(prompts)
    assert gens[0].text == replies[0][: replies[0].index(answer) + len(answer)]
    assert parse_replacements(gens[0].text) == [("a b", "c {d}")]
    assert gens[1].text == "plain"
