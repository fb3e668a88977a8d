"""linkguard.HF.v1 without weights: coded errors, never a download."""
import pytest
import torch
from spacy_llm.registry import registry

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.models.hf import HFChatModel


def make(**kwargs):
    return registry.resolve({"m": {"@llm_models": "linkguard.HF.v1", **kwargs}})["m"]


def test_missing_local_folder_names_the_model_and_the_fix(tmp_path):
    with pytest.raises(LinkguardError, match=r"E200.*nope.*fetch-models"):
        make(name=str(tmp_path / "nope"), device="cpu")


def test_folder_without_config_is_refused(tmp_path):
    with pytest.raises(LinkguardError, match=r"E200.*config\.json"):
        make(name=str(tmp_path), device="cpu")


def test_hub_id_absent_from_the_cache_fails_fast_offline(monkeypatch, tmp_path):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(LinkguardError, match=r"E200.*Qwen/Qwen3-4B-Instruct-2507.*Hugging Face cache"):
        make(name="Qwen/Qwen3-4B-Instruct-2507", device="cpu")


def test_missing_gguf_file(tmp_path):
    with pytest.raises(LinkguardError, match=r"E200.*no GGUF file"):
        make(name=str(tmp_path), gguf_file="model.gguf", device="cpu")


def test_bad_dtype_and_sizes(tmp_path):
    with pytest.raises(LinkguardError, match="E201"):
        HFChatModel(str(tmp_path), dtype="int3")
    with pytest.raises(LinkguardError, match="E207"):
        HFChatModel(str(tmp_path), batch_size=0)


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the error on machines without CUDA")
def test_cuda_without_a_gpu_is_a_coded_error(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    with pytest.raises(LinkguardError, match="E202"):
        make(name=str(tmp_path), device="cuda")


def test_empty_prompts_are_answered_without_loading(tmp_path):
    (tmp_path / "config.json").write_text("{}")
    model = make(name=str(tmp_path), device="cpu")
    assert model([["", "  "], [""]]) == [["", ""], [""]]
    assert model._model is None  # nothing was loaded
