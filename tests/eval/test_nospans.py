"""The no-span-list baseline with CANNED model replies (no real LLM judgement needed)."""
import json

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.eval.baseline_nospans import NoSpanRewriter, describe_model, find_model_block

TEXT = "The applicant lives in Oslo. He complained about the proceedings.\n\nThe Court disagreed with him."


class CannedModel:
    """Canned replies: swaps 'applicant' -> 'claimant'; replies to chunks
    mentioning 'Court' with malformed JSON, so the guard keeps that chunk."""

    def __init__(self):
        self.prompts = []

    def __call__(self, prompts):
        out = []
        for batch in prompts:
            replies = []
            for p in batch:
                self.prompts.append(p)
                chunk = json.loads(p.rsplit("Input: ", 1)[1])["text"]
                if "Court" in chunk:
                    replies.append('Reasoning... {"text": "broken')
                else:
                    replies.append("Swap a word.\n" + json.dumps({"text": chunk.replace("applicant", "claimant")}))
            out.append(replies)
        return out


def test_every_chunk_is_sent_each_pass_and_bad_replies_keep_the_chunk():
    model = CannedModel()
    rw = NoSpanRewriter(model=model, passes=2, sentences_per_chunk=1)
    [res] = rw.rewrite([TEXT])
    assert res["text"] == TEXT.replace("applicant", "claimant")  # layout kept, Court chunk unchanged
    assert len(res["passes"]) == 2
    n_chunks = len(rw.chunk_bounds(TEXT))
    assert n_chunks == 3
    for p in res["passes"]:
        assert p["llm_calls"] == p["chunks_sent"] == n_chunks
        assert p["chunks_rejected"] == 1
        assert p["prompt_tokens"] > 0 and p["completion_tokens"] > 0
    assert len(model.prompts) == 2 * n_chunks
    # The prompt gives no span list, and uses the placeholder for names.
    assert '"spans"' not in model.prompts[0] and "[REDACTED]" in model.prompts[0]


def test_batches_across_documents():
    model = CannedModel()
    res = NoSpanRewriter(model=model, passes=1).rewrite(["The applicant won.", "No change here."])
    assert [r["text"] for r in res] == ["The claimant won.", "No change here."]


def test_bad_passes():
    with pytest.raises(LinkguardError, match="E254"):
        NoSpanRewriter(model=CannedModel(), passes=0)


def test_model_block_found_anywhere_in_a_config():
    cfg = {"nlp": {}, "components": {"rewrite": {"model": {"@llm_models": "linkguard.HF.v1", "name": "models/x",
                                                             "gguf_file": "SmolLM2.gguf", "device": "cpu"}}}}
    block = find_model_block(cfg)
    assert block["name"] == "models/x"
    assert describe_model(block) == "SmolLM2.gguf (linkguard.HF.v1, cpu)"
    assert find_model_block({"a": {"b": 1}}) is None
