"""The no-span-list baseline with CANNED model replies (no real LLM judgement needed)."""
import json

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.experiments.nospans import make_nospan_rewriter, nospan_record
from spacy_linkguard.llm.models.describe import describe_model, model_block
from spacy_linkguard.llm.tasks.rewrite_nospans.registry import make_rewrite_nospans_task

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


def rewrite(model, texts, **kwargs):
    """The baseline's loop (`linkguard.NoSpanRewrite.v1`), its results as the command writes them."""
    return [nospan_record(r) for r in make_nospan_rewriter(**kwargs)(model).run(texts)]


def test_every_chunk_is_sent_each_pass_and_bad_replies_keep_the_chunk():
    model = CannedModel()
    [res] = rewrite(model, [TEXT], passes=2, sentences_per_chunk=1)
    assert res["text"] == TEXT.replace("applicant", "claimant")  # layout kept, Court chunk unchanged
    assert len(res["passes"]) == 2
    chunks = make_rewrite_nospans_task(sentences_per_chunk=1).chunks(TEXT, [])
    n_chunks = len(chunks)
    assert n_chunks == 3 and all(c.flagged and c.whole and not c.spans for c in chunks)
    for p in res["passes"]:
        assert p["llm_calls"] == p["chunks_sent"] == n_chunks
        assert p["chunks_rejected"] == 1
        assert p["prompt_tokens"] > 0 and p["completion_tokens"] > 0
    assert len(model.prompts) == 2 * n_chunks
    # The prompt gives no span list, and uses the placeholder for names.
    assert '"spans"' not in model.prompts[0] and "[REDACTED]" in model.prompts[0]


def test_batches_across_documents():
    model = CannedModel()
    res = rewrite(model, ["The applicant won.", "No change here."], passes=1)
    assert [r["text"] for r in res] == ["The claimant won.", "No change here."]


def test_bad_passes():
    with pytest.raises(LinkguardError, match="E254"):
        make_nospan_rewriter(passes=0)


def test_blank_chunks_are_not_sent():
    chunks = make_rewrite_nospans_task(sentences_per_chunk=1).chunks("One.\n\n\n\nTwo.", [(0, 3)])
    assert all(c.span_offsets == () for c in chunks)  # spans are ignored
    assert [c.flagged for c in chunks] == [bool(c.text.strip()) for c in chunks]


def test_generate_models_report_their_own_token_counts():
    from spacy_linkguard.llm.models.base import Generation

    class Gen(CannedModel):
        name = "canned"

        def generate(self, prompts):
            return [Generation(r, 7, 3) for r in self([prompts])[0]]

    [res] = rewrite(Gen(), ["The applicant won."], passes=1)
    assert res["passes"][0]["prompt_tokens"] == 7 and res["passes"][0]["completion_tokens"] == 3


def test_the_model_block_of_the_rewrite_component():
    cfg = {"nlp": {}, "components": {"linkguard_rewrite": {"model": {
        "@llm_models": "linkguard.HF.v1", "name": "models/x", "gguf_file": "SmolLM2.gguf", "device": "cpu"}}}}
    block = model_block(cfg)
    assert block["name"] == "models/x"
    assert describe_model(block) == "SmolLM2.gguf (linkguard.HF.v1, cpu)"
    assert model_block({"a": {"b": 1}}) is None
    assert model_block({"components": {"linkguard_rewrite": {"model": {"name": "x"}}}}) is None


def test_the_model_block_inside_a_rewriter_block_of_a_shipped_config():
    # the sentence-form configs hold task and model in their rewriter block (component model: null)
    from spacy_linkguard.configs import resolve_config
    from spacy_linkguard.experiments.nospans import read_config

    for name in ("rewrite_qwen25_1p5b", "rewrite_qwen25_1p5b_cpu", "rewrite_qwen25_1p5b_spans", "rewrite_cpu"):
        block = model_block(dict(read_config(resolve_config(name))))
        assert block is not None and block["@llm_models"] == "linkguard.HF.v1", name
    cfg = {"components": {"linkguard_rewrite": {"model": None, "rewriter": {"model": {
        "@llm_models": "linkguard.HF.v1", "name": "models/q", "device": "cuda"}}}}}
    assert model_block(cfg)["name"] == "models/q"
