"""Self-training (`train-lora`): reading verified rewrites, encoding them as the
model sees them, and a real LoRA fit of SmolLM2-135M-Instruct on CPU. The
pairs are made up here (no LLM wrote them): what is checked is that training
lowers the loss of exactly those replies and that the merged folder loads."""
import json
from pathlib import Path

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.models.hf import HFChatModel
from spacy_linkguard.llm.self_training import (IGNORE, LoraSettings, batches, encode_pair, end_of_turn,
                                               read_verified, train_lora)

MODEL = Path(__file__).resolve().parents[2] / "models" / "SmolLM2-135M-Instruct-hf"
PAIRS = [(f"Rewrite the span 'case {i}' in: The case {i} was heard.",
          json.dumps({"replacements": [f"matter number {i}"]})) for i in range(6)]


def write_lines(path, lines):
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def test_read_verified_keeps_each_pair_once_in_file_order(tmp_path):
    a = write_lines(tmp_path / "a.jsonl", [
        {"id": "1", "text": "t", "verified": [{"pass": 1, "prompt": "p1", "reply": "r1"},
                                             {"pass": 2, "prompt": "p2", "reply": "r2"}]},
        {"id": "2", "text": "t"},  # written without keep_verified: nothing to read
        {"id": "3", "text": "t", "verified": [{"pass": 1, "prompt": "p1", "reply": "r1"}]},
    ])
    b = write_lines(tmp_path / "b.jsonl", [{"id": "4", "verified": [{"pass": 1, "prompt": "p3", "reply": "r3"}]}])
    assert read_verified([a, b]) == [("p1", "r1"), ("p2", "r2"), ("p3", "r3")]


def test_read_verified_errors_say_how_to_get_pairs(tmp_path):
    none = write_lines(tmp_path / "none.jsonl", [{"id": "1", "text": "t"}, {"id": "2", "verified": []}])
    with pytest.raises(LinkguardError, match=r"\[E221\].*keep_verified true"):
        read_verified([none])
    bad = write_lines(tmp_path / "bad.jsonl", [{"id": "1", "verified": [{"prompt": "p"}]}])
    with pytest.raises(LinkguardError, match=r"\[E223\] Line 1 of"):
        read_verified([bad])
    with pytest.raises(LinkguardError, match=r"\[E223\].*not a list"):
        read_verified([write_lines(tmp_path / "str.jsonl", [{"id": "1", "verified": "p"}])])
    with pytest.raises(LinkguardError, match=r"\[E010\]"):
        read_verified([tmp_path / "missing.jsonl"])


@pytest.fixture(scope="module")
def chat():
    return HFChatModel(str(MODEL), device="cpu", dtype="float32")


def test_a_pair_is_the_prompt_as_sent_then_the_reply_and_only_the_reply_is_learnt(chat):
    prompt, reply = PAIRS[0]
    ids, labels = encode_pair(chat, prompt, reply)
    tok = chat.tokenizer
    head = tok(chat.format_prompt(prompt), add_special_tokens=False)["input_ids"]
    assert ids[:len(head)] == head and labels[:len(head)] == [IGNORE] * len(head)
    assert labels[len(head):] == ids[len(head):]
    assert tok.decode(ids[len(head):]) == reply + end_of_turn(tok)
    assert end_of_turn(tok) == "<|im_end|>"  # SmolLM2's chat template ends a turn with it


def test_batches_cover_every_pair_once_an_epoch():
    got = list(batches(7, 3, 2, seed=1))
    assert [len(b) for b in got] == [3, 3, 1, 3, 3, 1]
    assert sorted(sum(got[:3], [])) == sorted(sum(got[3:], [])) == list(range(7))
    assert got == list(batches(7, 3, 2, seed=1)) and got != list(batches(7, 3, 2, seed=2))


def reply_loss(chat, pairs):
    import torch

    from spacy_linkguard.llm.self_training import collate

    ids, mask, labels = collate([encode_pair(chat, p, r) for p, r in pairs], chat.tokenizer.pad_token_id)
    with torch.no_grad():
        return float(chat.model(input_ids=ids, attention_mask=mask, labels=labels).loss)


def test_training_lowers_the_loss_of_the_verified_replies_and_the_merged_model_loads(chat, tmp_path):
    settings = LoraSettings(rank=4, alpha=8, dropout=0.0, epochs=4, learning_rate=3e-3, batch_size=3, seed=0)
    before = reply_loss(chat, PAIRS)
    out = tmp_path / "selftrained"
    summary = train_lora(str(MODEL), PAIRS, out, settings=settings, device="cpu", dtype="float32", progress=False)
    assert sorted(p.name for p in out.iterdir()) == ["adapter", "model", "training.json"]
    assert json.loads((out / "training.json").read_text()) == summary
    assert summary["pairs"] == summary["pairs_trained"] == 6 and summary["steps"] == 8
    assert not summary["base_model"].startswith("/")  # the file may be committed: no machine's absolute path
    merged = HFChatModel(str(out / "model"), device="cpu", dtype="float32")
    after = reply_loss(merged, PAIRS)
    assert after < 0.5 * before  # it learnt these replies
    assert reply_loss(chat, PAIRS) == pytest.approx(before)  # the base model is unchanged on disk
    assert merged.tokenizer.padding_side == "left"
    (gen,) = merged.generate([PAIRS[0][0]])
    assert isinstance(gen.text, str) and gen.completion_tokens >= 1


def test_nothing_is_written_over_or_left_half_written(tmp_path):
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "x").write_text("keep")
    with pytest.raises(LinkguardError, match=r"\[E224\]"):
        train_lora(str(MODEL), PAIRS, busy, device="cpu", progress=False)
    assert (busy / "x").read_text() == "keep"
    with pytest.raises(LinkguardError, match=r"\[E225\].*--max-length 16"):
        train_lora(str(MODEL), PAIRS, tmp_path / "short", settings=LoraSettings(max_length=16), device="cpu",
                   progress=False)
    assert not (tmp_path / "short").exists() and not (tmp_path / "short.partial").exists()


@pytest.mark.parametrize("name,value", [("rank", 0), ("epochs", 0), ("dropout", 1.0), ("learning_rate", 0.0),
                                        ("batch_size", 0), ("max_length", 8)])
def test_settings_out_of_range_are_coded_errors(name, value):
    with pytest.raises(LinkguardError, match=rf"\[E207\] {name}"):
        LoraSettings(**{name: value}).check()


def test_a_diverging_fit_is_a_coded_error_and_saves_nothing(tmp_path, monkeypatch):
    # Fault injection: the loss of the second step is NaN (as a bf16 fit on a GPU once gave).
    import torch

    real = torch.nn.functional.cross_entropy
    calls = []

    def nan_on_second_step(*args, **kwargs):
        calls.append(1)
        loss = real(*args, **kwargs)
        return loss * float("nan") if len(calls) == 2 else loss

    monkeypatch.setattr(torch.nn.functional, "cross_entropy", nan_on_second_step)
    settings = LoraSettings(rank=4, alpha=8, dropout=0.0, epochs=1, batch_size=3)
    with pytest.raises(LinkguardError, match=r"\[E226\] Training diverged: the loss was nan at step 2.*float32"):
        train_lora(str(MODEL), PAIRS, tmp_path / "out", settings=settings, device="cpu", dtype="float32",
                   progress=False)
    assert len(calls) == 2
    assert not (tmp_path / "out").exists() and not (tmp_path / "out.partial").exists()


def test_the_command_trains_from_rewrite_lines_and_says_where_the_model_is(tmp_path):
    from typer.testing import CliRunner

    from spacy_linkguard.cli import app

    lines = write_lines(tmp_path / "out.jsonl", [
        {"id": str(i), "text": "t", "verified": [{"pass": 1, "prompt": p, "reply": r}]} for i, (p, r) in enumerate(PAIRS)
    ])
    res = CliRunner().invoke(app, ["train-lora", str(lines), "--model", str(MODEL), "-o", str(tmp_path / "m"),
                                   "--rank", "4", "--batch-size", "3", "--device", "cpu", "--no-progress"])
    assert res.exit_code == 0, res.output
    assert "6 verified rewrites, 2 steps" in res.output and str(tmp_path / "m" / "model") in res.output
    summary = json.loads((tmp_path / "m" / "training.json").read_text())
    assert summary["dtype"] == "float32" and summary["settings"]["epochs"] == 1 and summary["settings"]["rank"] == 4
    empty = write_lines(tmp_path / "none.jsonl", [{"id": "1", "text": "t"}])
    res = CliRunner().invoke(app, ["train-lora", str(empty), "--model", str(MODEL), "-o", str(tmp_path / "n")])
    assert res.exit_code != 0 and "[E221]" in res.output and not (tmp_path / "n").exists()
