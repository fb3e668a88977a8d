"""linkguard.LlamaCpp.v1 against a fake `llama_cpp` module (no real llama.cpp).

`FakeLlama` stands in for `llama_cpp.Llama` through monkeypatched
sys.modules: it records its constructor arguments and every
create_chat_completion call and answers with canned replies computed from the
prompt, with made-up usage counts. Its "tokens" are bytes (id = byte value,
0 = end of sequence), so the JSON stop sees a completion written token by
token. The replies are canned; they say nothing about a real model.
"""
import configparser
import sys
import types
from pathlib import Path

import numpy as np
import pytest
from spacy_llm.registry import registry
from thinc.api import Config

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.models import registry as model_registry
from spacy_linkguard.llm.models.base import ChatModel
from spacy_linkguard.llm.models.llamacpp import LlamaCppChatModel
from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task
from spacy_linkguard.rewrite import RewriteLoop

from ..rewrite.canned import answer, chunk_of, reword
from ..rewrite.oracle import CORPUS, QUERY, BruteDetector, DictIndex, brute_force

ROOT = Path(__file__).resolve().parents[2]


def echo(prompt: str) -> str:
    return "reply to " + prompt


class FakeLlama:
    instances = []
    responder = staticmethod(echo)
    fail_load = None

    def __init__(self, **kwargs):
        if FakeLlama.fail_load:
            raise ValueError(FakeLlama.fail_load)
        self.kwargs = kwargs
        self.calls = []
        FakeLlama.instances.append(self)

    def token_eos(self):
        return 0

    def detokenize(self, ids):
        return bytes(ids)

    def create_chat_completion(self, **kwargs):
        self.calls.append(kwargs)
        prompt = kwargs["messages"][-1]["content"]
        if len(prompt) > self.kwargs["n_ctx"]:
            raise ValueError(f"Requested tokens ({len(prompt)}) exceed context window of {self.kwargs['n_ctx']}")
        planned = FakeLlama.responder(prompt).encode("utf8")
        text = planned
        processors = kwargs.get("logits_processor")
        if processors:  # write the reply byte by byte, asking the processors before each step
            ids = list(prompt.encode("utf8"))
            n_prompt = len(ids)
            for _ in range(len(planned) + 1):
                scores = np.zeros(256, dtype=np.float32)
                for proc in processors:
                    scores = proc(np.array(ids, dtype=np.intc), scores)
                step = len(ids) - n_prompt
                if np.isfinite(scores).sum() == 1 and scores[0] == 0 or step == len(planned):
                    break
                ids.append(planned[step])
            text = bytes(ids[n_prompt:])
        text = text.decode("utf8")
        usage = {"prompt_tokens": 1000 + len(prompt), "completion_tokens": len(text) + 1,
                 "total_tokens": 1001 + len(prompt) + len(text)}
        return {"choices": [{"message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": usage}


@pytest.fixture
def fake(monkeypatch):
    module = types.ModuleType("llama_cpp")
    module.Llama = FakeLlama
    module.LogitsProcessorList = type("LogitsProcessorList", (list,), {})
    monkeypatch.setitem(sys.modules, "llama_cpp", module)
    monkeypatch.setattr(FakeLlama, "instances", [])
    monkeypatch.setattr(FakeLlama, "responder", staticmethod(echo))
    monkeypatch.setattr(FakeLlama, "fail_load", None)
    return FakeLlama


@pytest.fixture
def gguf(tmp_path):
    path = tmp_path / "tiny.gguf"
    path.write_bytes(b"GGUF")
    return path


def test_one_thread_by_default_and_the_file_is_loaded_once_on_first_use(fake, gguf):
    model = LlamaCppChatModel(str(gguf))
    assert isinstance(model, ChatModel) and model.name == str(gguf)
    assert fake.instances == []  # nothing loaded at construction
    model.generate(["a", "b"])
    (llm,) = fake.instances
    assert llm.kwargs == {"model_path": str(gguf), "n_ctx": 4096, "n_batch": 512, "n_threads": 1,
                          "n_threads_batch": 1, "seed": 0, "verbose": False}
    model.generate(["c"])
    assert len(fake.instances) == 1
    LlamaCppChatModel(str(gguf), n_threads=3, n_threads_batch=2, chat_format="chatml").generate(["x"])
    kw = fake.instances[-1].kwargs
    assert (kw["n_threads"], kw["n_threads_batch"], kw["chat_format"]) == (3, 2, "chatml")


def test_each_completion_gets_the_next_seed_and_the_generation_options(fake, gguf):
    model = LlamaCppChatModel(str(gguf), seed=7, temperature=0.7, top_p=0.9, max_new_tokens=99,
                              stop_strings=["</s>", "\n\n"], system_prompt="Be brief.")
    model.generate(["one", "", "two"])
    model.generate(["three"])
    calls = fake.instances[0].calls
    assert [c["seed"] for c in calls] == [7, 8, 9]  # the blank prompt runs nothing and uses no seed
    first = calls[0]
    assert first["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "one"}]
    assert (first["max_tokens"], first["temperature"], first["top_p"], first["stop"]) == (99, 0.7, 0.9, ["</s>", "\n\n"])
    # llama.cpp's own top-k and min-p filters are off: the sampling is the HF backend's
    assert (first["top_k"], first["min_p"], first["repeat_penalty"]) == (0, 0.0, 1.0)
    assert "logits_processor" not in first
    LlamaCppChatModel(str(gguf), top_k=40).generate(["x"])
    assert fake.instances[-1].calls[0]["top_k"] == 40


def test_replies_and_token_counts_come_from_the_completion(fake, gguf):
    model = LlamaCppChatModel(str(gguf))
    gens = model.generate(["hello", "  ", "world!"])
    assert [g.text for g in gens] == ["reply to hello", "", "reply to world!"]
    assert [(g.prompt_tokens, g.completion_tokens) for g in gens] == [(1005, 15), (0, 0), (1006, 16)]
    assert gens[0].seconds > 0 and gens[1].seconds == 0
    assert model([["hello"], [], ["a", "b"]]) == [["reply to hello"], [], ["reply to a", "reply to b"]]


def test_stop_at_json_ends_the_completion_after_the_answer_object(fake, gguf):
    fake.responder = staticmethod(
        lambda p: 'Reasoning: the input is {"text": "x", "spans": ["a"]}.\n'
                  '{"replacements": [{"span": "a", "with": "b"}]}\nThat is all. {"replacements": []}'
    )
    model = LlamaCppChatModel(str(gguf), stop_at_json="replacements")
    (gen,) = model.generate(["go"])
    assert gen.text == 'Reasoning: the input is {"text": "x", "spans": ["a"]}.\n{"replacements": [{"span": "a", "with": "b"}]}'
    # a new scanner per completion: the second one is cut again, not at once
    (again,) = model.generate(["go"])
    assert again.text == gen.text
    without = LlamaCppChatModel(str(gguf)).generate(["go"])[0]
    assert without.text.endswith('That is all. {"replacements": []}')


def test_missing_llama_cpp_is_a_coded_error_with_the_install_command(monkeypatch, gguf):
    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import llama_cpp raises ImportError
    with pytest.raises(LinkguardError, match=r"E243.*spacy-linkguard\[llamacpp\].*source"):
        LlamaCppChatModel(str(gguf))


def test_a_missing_or_unreadable_file_is_a_coded_error(fake, gguf, tmp_path):
    with pytest.raises(LinkguardError, match=r"E244.*nope\.gguf.*no such file"):
        LlamaCppChatModel(str(tmp_path / "nope.gguf"))
    fake.fail_load = "Failed to load model from file"
    model = LlamaCppChatModel(str(gguf))
    with pytest.raises(LinkguardError, match=r"E244.*Failed to load model"):
        model.generate(["x"])


def test_a_prompt_longer_than_the_context_is_a_coded_error(fake, gguf):
    model = LlamaCppChatModel(str(gguf), n_ctx=10)
    with pytest.raises(LinkguardError, match=r"E245.*n_ctx.*10"):
        model.generate(["a prompt of more than ten characters"])


@pytest.mark.parametrize("arg,value", [("n_threads", 0), ("n_ctx", -1), ("max_new_tokens", 0),
                                       ("temperature", -0.1), ("n_threads_batch", 0), ("n_threads", True),
                                       ("top_k", -1)])
def test_bad_settings_are_coded_errors(fake, gguf, arg, value):
    with pytest.raises(LinkguardError, match=f"E207.*{arg}"):
        LlamaCppChatModel(str(gguf), **{arg: value})


def test_the_registry_builds_it_from_the_shipped_config(fake, gguf):
    cfg = Config().from_disk(ROOT / "configs" / "rewrite_qwen25_1p5b_llamacpp.cfg", interpolate=False)
    section = dict(cfg["components"]["linkguard_rewrite"]["rewriter"]["model"], path=str(gguf))
    model = registry.resolve({"m": section})["m"]
    assert isinstance(model, LlamaCppChatModel)
    assert (model.n_threads, model.n_threads_batch, model.stop_at_json) == (1, 1, None)
    assert (model.temperature, model.top_p, model.max_new_tokens, model.seed) == (0.7, 0.9, 200, 0)
    assert registry.llm_models.get("linkguard.LlamaCpp.v1") is model_registry.make_llamacpp_model
    # the same task, rewriter, guards and passes as the torch CPU config of the same model
    hf = Config().from_disk(ROOT / "configs" / "rewrite_qwen25_1p5b_cpu.cfg", interpolate=False)
    ours, theirs = cfg["components"]["linkguard_rewrite"], hf["components"]["linkguard_rewrite"]
    assert ours["rewriter"]["task"] == theirs["rewriter"]["task"]
    strip = lambda c: {k: v for k, v in c["rewriter"].items() if k != "model"}  # noqa: E731
    assert strip(ours) == strip(theirs)
    assert {k: v for k, v in ours.items() if k != "rewriter"} == {k: v for k, v in theirs.items() if k != "rewriter"}
    for key in ("temperature", "top_p", "max_new_tokens", "seed"):
        assert ours["rewriter"]["model"][key] == theirs["rewriter"]["model"][key], key


def test_the_extra_is_declared_but_not_part_of_all():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    extras = cfg["options.extras_require"]
    assert "llama-cpp-python>=0.3,<0.4" in extras["llamacpp"]
    assert "llamacpp" not in extras["all"] and "llama" not in extras["all"]
    models = cfg["options.entry_points"]["thinc_llm_models"]
    assert "linkguard.LlamaCpp.v1 = spacy_linkguard.llm.models.registry:make_llamacpp_model" in models


def test_the_installed_entry_point_finds_the_factory():
    from importlib.metadata import entry_points

    found = {ep.name: ep for ep in entry_points(group="thinc_llm_models")}
    assert "linkguard.LlamaCpp.v1" in found, "the installed entry points predate setup.cfg: reinstall (`make test` does)"
    assert found["linkguard.LlamaCpp.v1"].value == "spacy_linkguard.llm.models.registry:make_llamacpp_model"


def test_the_rewrite_loop_runs_through_it(fake, gguf):
    fake.responder = staticmethod(lambda prompt: answer(reword(*chunk_of(prompt))))
    model = LlamaCppChatModel(str(gguf), temperature=0.3, stop_at_json="text")
    (res,) = RewriteLoop(BruteDetector(DictIndex(CORPUS)), make_rewrite_task(), model, max_passes=8).run([QUERY])
    assert res.safe and brute_force(res.text, DictIndex(CORPUS)).safe and res.forced_redactions == 0
    calls = fake.instances[0].calls
    first = res.passes[0]
    assert first.llm_calls == first.chunks_sent > 0
    assert sum(p.llm_calls for p in res.passes) == len(calls)
    assert [c["seed"] for c in calls] == list(range(len(calls)))
    sent = [c["messages"][-1]["content"] for c in calls[: first.llm_calls]]
    assert first.prompt_tokens == sum(1000 + len(p) for p in sent)  # the counts of the fake's usage
