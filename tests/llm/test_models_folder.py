"""The models folder: shipped configs find their models from any folder, and
E200 names the command that fetches a missing one. No weights are loaded
(`linkguard.HF.v1` loads on first use); the model folders here are fakes
holding only what the resolver looks at."""
import json

import pytest
from spacy_llm.registry import registry
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.configs import resolve_config
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.local_models import LOCAL_MODELS, MARKER, models_dir


def shipped_model_name(config: str) -> str:
    from spacy import util

    component = util.load_config(resolve_config(config), interpolate=False)["components"]["linkguard_rewrite"]
    # the sentence configs hold the model in their `rewriter` block (the component's `model` is null)
    model = component.get("model") or component["rewriter"]["model"]
    return model["name"]


def fake_converted(folder):
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}", encoding="utf-8")
    (folder / MARKER).write_text(json.dumps({"fake": True}), encoding="utf-8")
    return folder


def make(name):
    return registry.resolve({"m": {"@llm_models": "linkguard.HF.v1", "name": name, "device": "cpu"}})["m"]


def test_a_shipped_config_finds_its_model_in_the_models_folder_from_another_folder(tmp_path, monkeypatch):
    name = shipped_model_name("rewrite_cpu")
    assert name.startswith("models/")
    store = tmp_path / "store"
    want = fake_converted(store / name[len("models/"):])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # no models/ here
    monkeypatch.setenv("LINKGUARD_MODELS", str(store))
    assert make(name)._source == want


def test_the_default_models_folder_is_per_user_and_fetch_models_writes_there(tmp_path, monkeypatch):
    monkeypatch.delenv("LINKGUARD_MODELS", raising=False)
    monkeypatch.delenv("LINKGUARD_MODELS_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.chdir(tmp_path)
    assert models_dir() == tmp_path / "cache" / "spacy-linkguard" / "models"
    # A model already there: fetch-models without --dest finds it (no download) and prints its folder.
    ready = fake_converted(LOCAL_MODELS["smollm2"].hf_dir(models_dir()))
    res = CliRunner().invoke(app, ["fetch-models", "--only", "smollm2"])
    assert res.exit_code == 0, res.output
    assert str(ready) in res.output.splitlines()  # the folder, printed on stdout
    assert not (tmp_path / "models").exists()
    # ... and the shipped config finds it there.
    assert make(shipped_model_name("rewrite_cpu"))._source == ready


def test_the_checkout_models_folder_comes_first(tmp_path, monkeypatch):
    """`make run` and `make test` fetch into ./models: the path as written wins."""
    name = shipped_model_name("rewrite_cpu")
    local = fake_converted(tmp_path / name)
    fake_converted(tmp_path / "store" / name[len("models/"):])
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LINKGUARD_MODELS", str(tmp_path / "store"))
    assert make(name)._source.resolve() == local.resolve()


@pytest.mark.parametrize("config,key", [("rewrite_cpu", "smollm2"), ("rewrite_qwen25_1p5b", "qwen2.5-coder-1.5b")])
def test_e200_names_the_fetch_models_command_not_a_hub_download(tmp_path, monkeypatch, config, key):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("LINKGUARD_MODELS", str(tmp_path / "empty"))
    with pytest.raises(LinkguardError) as e:
        make(shipped_model_name(config))
    msg = str(e.value)
    assert "E200" in msg and f"python -m spacy_linkguard fetch-models --only {key}" in msg
    assert "hf download" not in msg and str(tmp_path / "empty") in msg


def test_e200_for_a_hub_id_still_says_how_to_fill_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HOME", str(tmp_path))
    with pytest.raises(LinkguardError, match=r"E200.*hf download Qwen/Qwen3-4B-Instruct-2507"):
        make("Qwen/Qwen3-4B-Instruct-2507")
