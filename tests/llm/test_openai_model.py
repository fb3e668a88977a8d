"""linkguard.OpenAI.v1 against a stub OpenAI-compatible server on 127.0.0.1.

The stub is no LLM: it answers each request with a reply computed from the
request (the prompt reversed), so the tests check what the client sends, the
order of replies under concurrency, retries and error handling.
"""
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm.models.openai import OpenAIChatModel


class StubServer:
    """A threaded HTTP server answering POST /v1/chat/completions.

    fail_first (int): answer this many requests with `fail_status` first.
    delay (callable): seconds to sleep before answering a prompt.
    raw_reply (bytes): if set, sent as the body of every 200 reply.
    """

    def __init__(self, fail_first=0, fail_status=503, delay=lambda prompt: 0.0, raw_reply=None):
        self.requests = []
        self.headers = []
        self.fail_left = fail_first
        self.fail_status = fail_status
        self.delay = delay
        self.raw_reply = raw_reply
        self.in_flight = 0
        self.max_in_flight = 0
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # keep pytest output clean
                pass

            def do_POST(self):
                self._left = False
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                with stub.lock:
                    stub.requests.append((self.path, body))
                    stub.headers.append(dict(self.headers))
                    failing = stub.fail_left > 0
                    stub.fail_left -= 1
                    stub.in_flight += 1
                    stub.max_in_flight = max(stub.max_in_flight, stub.in_flight)
                try:
                    if failing:
                        self._send(stub.fail_status, b'{"error": "busy"}')
                        return
                    if self.path != "/v1/chat/completions":
                        self._send(404, b'{"error": "no such route"}')
                        return
                    prompt = body["messages"][-1]["content"]
                    time.sleep(stub.delay(prompt))
                    if stub.raw_reply is not None:
                        self._send(200, stub.raw_reply)
                        return
                    reply = {
                        "id": "stub",
                        "object": "chat.completion",
                        "choices": [{"index": 0, "message": {"role": "assistant", "content": prompt[::-1]},
                                     "finish_reason": "stop"}],
                        "usage": {"prompt_tokens": len(prompt.split()), "completion_tokens": len(prompt),
                                  "total_tokens": len(prompt.split()) + len(prompt)},
                    }
                    self._send(200, json.dumps(reply).encode("utf8"))
                finally:
                    self._leave()

            def _leave(self):
                # A request stops being in flight once its reply is about to be
                # written: counting until after the write would overlap with the
                # client's next request, which may arrive as soon as it has read this one.
                if not getattr(self, "_left", False):
                    self._left = True
                    with stub.lock:
                        stub.in_flight -= 1

            def _send(self, status, payload):
                self._leave()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def _model(url, **kwargs):
    kwargs.setdefault("api_key_env", None)
    return OpenAIChatModel("stub-model", base_url=url, **kwargs)


def test_replies_keep_prompt_order_under_concurrency():
    prompts = [f"prompt number {i} " + "x" * i for i in range(12)]
    # Early prompts answer last, so completion order is the reverse of prompt order.
    with StubServer(delay=lambda p: 0.08 * (12 - len(p.split()[2]))) as stub:  # long enough to overlap under load
        gens = _model(stub.url, concurrency=6).generate(prompts)
    assert [g.text for g in gens] == [p[::-1] for p in prompts]
    assert [g.prompt_tokens for g in gens] == [len(p.split()) for p in prompts]
    assert [g.completion_tokens for g in gens] == [len(p) for p in prompts]
    assert 1 < stub.max_in_flight <= 6


def test_concurrency_limit_is_respected():
    with StubServer(delay=lambda p: 0.05) as stub:
        _model(stub.url, concurrency=2).generate([f"p{i}" for i in range(8)])
    assert stub.max_in_flight <= 2
    assert len(stub.requests) == 8


def test_request_body_and_headers(monkeypatch):
    monkeypatch.setenv("LINKGUARD_TEST_KEY", "sekret")
    model = OpenAIChatModel(
        "served-name",
        api_key_env="LINKGUARD_TEST_KEY",
        temperature=0.7,
        top_p=0.9,
        max_new_tokens=33,
        seed=5,
        system_prompt="be brief",
        stop_strings=["\n\n"],
        extra_body={"top_k": 20},
        concurrency=1,
    )
    with StubServer() as stub:
        model.base_url = stub.url
        model.generate(["first", "second"])
        model.generate(["third"])
    paths = {p for p, _ in stub.requests}
    assert paths == {"/v1/chat/completions"}
    bodies = sorted((b for _, b in stub.requests), key=lambda b: b["seed"])
    assert [b["messages"] for b in bodies] == [
        [{"role": "system", "content": "be brief"}, {"role": "user", "content": p}]
        for p in ("first", "second", "third")
    ]
    # Every request gets its own seed and later calls continue the count, so
    # retries of a chunk sample differently while a run stays repeatable.
    assert [b["seed"] for b in bodies] == [5, 6, 7]
    for b in bodies:
        assert (b["model"], b["max_tokens"], b["temperature"], b["top_p"]) == ("served-name", 33, 0.7, 0.9)
        assert b["stop"] == ["\n\n"] and b["top_k"] == 20
    assert all(h.get("Authorization") == "Bearer sekret" for h in stub.headers)


def test_no_key_no_authorization_header(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with StubServer() as stub:
        OpenAIChatModel("m", base_url=stub.url).generate(["hello"])
    assert "Authorization" not in stub.headers[0]


def test_call_protocol_nested_and_empty_prompts_skip_the_server():
    with StubServer() as stub:
        replies = _model(stub.url)([["ab", "  "], [], ["cde"]])
    assert [list(r) for r in replies] == [["ba", ""], [], ["edc"]]
    assert sorted(b["messages"][-1]["content"] for _, b in stub.requests) == ["ab", "cde"]


def test_retryable_status_is_retried():
    with StubServer(fail_first=2, fail_status=503) as stub:
        gens = _model(stub.url, max_retries=2, concurrency=1).generate(["abc"])
    assert gens[0].text == "cba"
    assert len(stub.requests) == 3


def test_retries_exhausted_raise_e240():
    with StubServer(fail_first=10, fail_status=429) as stub:
        with pytest.raises(LinkguardError, match=r"E240.*HTTP 429"):
            _model(stub.url, max_retries=1).generate(["abc"])
    assert len(stub.requests) == 2


def test_client_error_is_not_retried():
    with StubServer(fail_first=10, fail_status=400) as stub:
        with pytest.raises(LinkguardError, match=r"E241.*HTTP 400"):
            _model(stub.url, max_retries=3).generate(["abc"])
    assert len(stub.requests) == 1


def test_wrong_route_gives_e241():
    with StubServer() as stub:
        with pytest.raises(LinkguardError, match="E241"):
            _model(stub.url.replace("/v1", "/v2")).generate(["abc"])


def test_unreachable_server_raises_e240():
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()  # nothing listens on this port now
    with pytest.raises(LinkguardError, match="E240"):
        _model(f"http://127.0.0.1:{port}/v1", max_retries=0, timeout=2).generate(["abc"])


@pytest.mark.parametrize("raw", [b"not json", b'{"choices": []}', b'{"choices": [{"text": "old API"}]}'])
def test_malformed_reply_raises_e242(raw):
    with StubServer(raw_reply=raw) as stub:
        with pytest.raises(LinkguardError, match="E242"):
            _model(stub.url).generate(["abc"])


@pytest.mark.parametrize(
    "kwargs", [{"max_new_tokens": 0}, {"concurrency": 0}, {"timeout": 0}, {"base_url": "127.0.0.1:8000"}]
)
def test_bad_settings_raise_e207(kwargs):
    with pytest.raises(LinkguardError, match="E207"):
        OpenAIChatModel("m", **kwargs)


FRESH = r"""
import json, sys
from spacy_llm.registry import registry
assert not any(m.startswith("spacy_linkguard.llm") for m in sys.modules)
make = registry.llm_models.get("linkguard.OpenAI.v1")
model = registry.resolve({"m": {"@llm_models": "linkguard.OpenAI.v1", "name": "served",
                                "base_url": sys.argv[1], "api_key_env": None, "temperature": 0.0}})["m"]
print(json.dumps({"module": make.__module__, "replies": [list(r) for r in model([["abc"], ["de", ""]])]}))
"""


def test_fresh_process_resolves_the_entry_point_and_talks_to_the_server():
    import subprocess
    import sys

    with StubServer() as stub:
        proc = subprocess.run([sys.executable, "-c", FRESH, stub.url], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {"module": "spacy_linkguard.llm.models.registry", "replies": [["cba"], ["ed", ""]]}
    assert [b["temperature"] for _, b in stub.requests] == [0.0, 0.0]


def test_rewrite_loop_runs_through_the_http_backend():
    """The loop with linkguard.OpenAI.v1 against a server that answers with the
    canned rule of tests/rewrite/canned.py (no real LLM): edits are accepted,
    the text comes back safe by the brute-force oracle, and the pass records
    carry the server's token counts, one request per LLM call."""
    from spacy_linkguard.detect import Detector
    from spacy_linkguard.llm.tasks.rewrite.registry import make_rewrite_task
    from spacy_linkguard.rewrite import RewriteLoop
    from tests.rewrite.canned import answer, chunk_of, reword
    from tests.rewrite.oracle import CORPUS, QUERY, DictIndex, brute_force

    class CannedServer(StubServer):
        def __init__(self):
            super().__init__()
            handler = self.server.RequestHandlerClass
            stub = self

            def do_POST(h):
                body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
                stub.requests.append((h.path, body))
                text, spans = chunk_of(body["messages"][-1]["content"])
                reply = answer(reword(text, spans))
                payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": reply}}],
                                      "usage": {"prompt_tokens": 100 + len(stub.requests),
                                                "completion_tokens": len(reply.split())}}).encode("utf8")
                h._send(200, payload)

            handler.do_POST = do_POST

    index = DictIndex(CORPUS)
    task = make_rewrite_task(examples=[], placeholder="[REDACTED]")
    with CannedServer() as server:
        model = OpenAIChatModel("served", base_url=server.url, api_key_env=None, concurrency=4)
        (result,) = RewriteLoop(Detector(index, k=2, max_arity=3), task, model, max_passes=3).run([QUERY])
    assert result.safe and brute_force(result.text, index, k=2, m=3).safe
    # The server's edits were accepted and written back (the canned rule's
    # "q" suffixes); guarantee mode redacts whatever they left linkable.
    assert sum(p.chunks_accepted for p in result.passes) > 0 and "1961q" in result.text
    calls = sum(p.llm_calls for p in result.passes)
    assert calls == len(server.requests) > 0
    prompt_tokens = sorted(100 + i for i in range(1, calls + 1))
    assert sorted(t[0] for p in result.passes for t in p.chunk_tokens) == prompt_tokens
