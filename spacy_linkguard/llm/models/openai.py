"""`OpenAIChatModel`: an OpenAI-compatible chat-completions endpoint over HTTP.

What a vLLM (or llama.cpp, TGI, SGLang) server exposes at
`<base_url>/chat/completions`: users with a serving cluster point the rewrite
loop at it instead of loading weights in-process. Only the standard library
is used (urllib), so the backend adds no dependency. The server batches
concurrent requests itself (continuous batching), so we send up to
`concurrency` requests at once from a thread pool and keep the reply order.
"""
import json
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ...errors import Errors, LinkguardError
from .base import Generation, check_settings, replies_per_document

# HTTP statuses worth another try: rate limits and overloaded/restarting servers.
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})


class OpenAIChatModel:
    """Chat completions from an OpenAI-compatible HTTP server (a `ChatModel`).

    name (str): The model name the server serves (vLLM: `--served-model-name`).
    base_url (str): The API root, e.g. "http://127.0.0.1:8000/v1".
    api_key_env (Optional[str]): Environment variable holding the API key, sent
        as a Bearer token when set (the key never lives in a config file).
    temperature (float): Sampling temperature; 0 = greedy.
    top_p (float): Nucleus sampling mass.
    max_new_tokens (int): Completion length limit (`max_tokens`).
    seed (int): Seed of the first request (request i uses seed + i).
    concurrency (int): Requests in flight at once.
    timeout (float): Seconds to wait for one reply.
    max_retries (int): Further tries after a connection error or a retryable
        status (429, 5xx), with exponential back-off.
    system_prompt (Optional[str]): A system message before each prompt.
    stop_strings (List[str]): Strings that end a completion (`stop`).
    extra_body (Dict): More request fields, e.g. {"top_k": 20} for vLLM or
        {"chat_template_kwargs": {"enable_thinking": false}}.
    """

    def __init__(
        self,
        name: str,
        *,
        base_url: str = "http://127.0.0.1:8000/v1",
        api_key_env: Optional[str] = "OPENAI_API_KEY",
        temperature: float = 1.2,
        top_p: float = 1.0,
        max_new_tokens: int = 512,
        seed: int = 0,
        concurrency: int = 8,
        timeout: float = 120.0,
        max_retries: int = 3,
        system_prompt: Optional[str] = None,
        stop_strings: Optional[List[str]] = None,
        extra_body: Optional[Dict[str, Any]] = None,
    ):
        check_settings((
            ("max_new_tokens", max_new_tokens, isinstance(max_new_tokens, int) and max_new_tokens >= 1),
            ("concurrency", concurrency, isinstance(concurrency, int) and concurrency >= 1),
            ("max_retries", max_retries, isinstance(max_retries, int) and max_retries >= 0),
            ("timeout", timeout, timeout > 0),
            ("temperature", temperature, temperature >= 0),
        ))
        if not base_url.startswith(("http://", "https://")):
            raise LinkguardError(
                Errors.E207.format(name="base_url", expected="an http:// or https:// URL", value=base_url)
            )
        self.name = name
        self.base_url = base_url.rstrip("/")
        self.api_key_env = api_key_env
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.max_new_tokens = max_new_tokens
        self.seed = seed
        self.concurrency = concurrency
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.system_prompt = system_prompt
        self.stop_strings = list(stop_strings or [])
        self.extra_body = dict(extra_body or {})
        self.n_calls = 0

    # --- spacy-llm's model protocol ------------------------------------------
    def __call__(self, prompts: Iterable[Iterable[str]]) -> Iterable[List[str]]:
        """Replies per document to prompts per document, sent across documents.

        An empty prompt gets an empty reply without a request.
        """
        return replies_per_document(self, prompts)

    # --- generation ----------------------------------------------------------
    def generate(self, prompts: Sequence[str]) -> List[Generation]:
        """Complete every prompt; RETURNS one Generation per prompt, in order.

        RAISES: LinkguardError E240 (server unreachable after the retries),
            E241 (an error status), E242 (a reply that is not a chat completion).
        """
        todo = [i for i, p in enumerate(prompts) if p.strip()]
        out: List[Generation] = [Generation("", 0, 0) for _ in prompts]
        if not todo:
            return out
        first_seed = self.seed + self.n_calls
        self.n_calls += len(todo)
        jobs = [(prompts[i], first_seed + k) for k, i in enumerate(todo)]
        start = time.perf_counter()
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(jobs))) as pool:
            gens = list(pool.map(lambda job: self._complete(*job), jobs))
        # Requests overlap, so each gets an equal share of the wall time (as
        # HFChatModel does per batch): the seconds of a pass add up to its time.
        share = (time.perf_counter() - start) / len(gens)
        for i, gen in zip(todo, gens):
            gen.seconds = share
            out[i] = gen
        return out

    def request_body(self, prompt: str, seed: int) -> Dict[str, Any]:
        """The JSON body of one chat-completions request (a pure function of the settings)."""
        messages = [{"role": "user", "content": prompt}]
        if self.system_prompt:
            messages.insert(0, {"role": "system", "content": self.system_prompt})
        body: Dict[str, Any] = {
            "model": self.name,
            "messages": messages,
            "max_tokens": self.max_new_tokens,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "seed": seed,
            "n": 1,
        }
        if self.stop_strings:
            body["stop"] = self.stop_strings
        body.update(self.extra_body)
        return body

    def _complete(self, prompt: str, seed: int) -> Generation:
        reply = self._post("/chat/completions", self.request_body(prompt, seed))
        try:
            text = reply["choices"][0]["message"]["content"] or ""
            usage = reply.get("usage") or {}
        except (KeyError, IndexError, TypeError, AttributeError):
            raise LinkguardError(
                Errors.E242.format(url=self.base_url, preview=json.dumps(reply)[:200])
            ) from None
        return Generation(text, int(usage.get("prompt_tokens", 0) or 0), int(usage.get("completion_tokens", 0) or 0))

    def _post(self, path: str, body: Dict[str, Any]) -> Dict[str, Any]:
        url = self.base_url + path
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(self.api_key_env) if self.api_key_env else None
        if key:
            headers["Authorization"] = f"Bearer {key}"
        data = json.dumps(body).encode("utf8")
        last_error = ""
        for attempt in range(self.max_retries + 1):
            if attempt:
                # Back off 0.5 s, 1 s, 2 s ...: overloaded servers recover, and
                # a burst of immediate retries would only add to the load.
                time.sleep(min(0.5 * 2 ** (attempt - 1), 8.0))
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    raw = response.read()
            except urllib.error.HTTPError as e:
                detail = e.read()[:300].decode("utf8", "replace")
                if e.code in RETRY_STATUSES:
                    last_error = f"HTTP {e.code}: {detail}"
                    continue
                raise LinkguardError(Errors.E241.format(url=url, status=e.code, detail=detail)) from None
            except (urllib.error.URLError, OSError) as e:  # refused, reset, timed out
                last_error = f"{type(e).__name__}: {getattr(e, 'reason', e)}"
                continue
            try:
                return json.loads(raw)
            except ValueError:
                raise LinkguardError(
                    Errors.E242.format(url=url, preview=raw[:200].decode("utf8", "replace"))
                ) from None
        raise LinkguardError(Errors.E240.format(url=url, tries=self.max_retries + 1, detail=last_error))
