"""`LlamaCppChatModel`: a GGUF file run on the CPU by llama.cpp (llama-cpp-python).

An optional backend (`pip install "spacy-linkguard[llamacpp]"`, never part of
the default install or of `[all]`): llama-cpp-python 0.3.x has no wheel on
PyPI and builds llama.cpp from source. What it buys on a CPU over
`HFChatModel`: it reads the quantised GGUF directly (no conversion to a
float model), and keeps the KV cache of the previous prompt, so the shared
instructions and examples at the start of every chunk prompt are evaluated
once per run, not once per call. `llama_cpp` is imported when the model is
built, so nothing of it is needed to import this module.

Prompts run one after the other (llama.cpp's Python API completes one
sequence at a time); on one CPU thread that is as fast as a batch would be.
"""
import codecs
import time
from typing import Any, Dict, Iterable, List, Optional, Sequence

from ...errors import Errors, LinkguardError
from .base import Generation, check_settings, replies_per_document
from .stopping import JsonAnswerScanner


class LlamaCppChatModel:
    """Chat completions from a GGUF model through llama.cpp (a `ChatModel`).

    path (str): The .gguf file (e.g. models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf).
    n_ctx (int): Context length in tokens: the longest prompt plus
        `max_new_tokens` must fit.
    n_threads (int): CPU threads generating tokens. 1 by default: on a shared
        or busy CPU, threads that spin-wait for each other collapse (two
        threads on a loaded 2-core machine ran slower than one).
    n_threads_batch (Optional[int]): Threads evaluating prompts; None = `n_threads`.
    n_batch (int): Prompt tokens evaluated per step.
    temperature (float): Sampling temperature; 0 = greedy.
    top_p (float): Nucleus sampling mass. llama.cpp's min-p filter (0.05 by
        default there) is switched off, so with `top_k = 0` the sampling is
        the HF backend's.
    top_k (int): Keep the k likeliest tokens before top-p; 0 = off (the HF
        backend's setting, and the default). Off, each sampled token sorts the
        whole vocabulary (152k tokens for Qwen2.5: measured 15-20 ms a token
        here, against 2 ms with 40); 40 (llama.cpp's default) rarely changes
        what top_p = 0.9 keeps. Greedy decoding (temperature 0) sorts nothing.
    max_new_tokens (int): Completion length limit.
    seed (int): Seed of the first completion (completion i uses seed + i:
        retries differ, runs repeat).
    system_prompt (Optional[str]): A system message before each prompt.
    stop_strings (List[str]): Strings that end a completion (not included in it).
    stop_at_json (Optional[str]): A field name, e.g. "replacements": a
        completion ends once it has written a JSON object whose only key is
        that field (as `HFChatModel`'s option; `stopping.py`). None: only the
        end-of-turn token and `stop_strings` stop.
    chat_format (Optional[str]): llama-cpp-python's chat format name; None
        uses the chat template stored in the GGUF file.

    RAISES: LinkguardError E207 (bad setting), E243 (llama-cpp-python is not
        installed), E244 (the GGUF file is missing or unreadable); at
        generation E245 (a prompt longer than `n_ctx`).
    """

    def __init__(
        self,
        path: str,
        *,
        n_ctx: int = 4096,
        n_threads: int = 1,
        n_threads_batch: Optional[int] = None,
        n_batch: int = 512,
        temperature: float = 1.2,
        top_p: float = 1.0,
        top_k: int = 0,
        max_new_tokens: int = 512,
        seed: int = 0,
        system_prompt: Optional[str] = None,
        stop_strings: Optional[List[str]] = None,
        stop_at_json: Optional[str] = None,
        chat_format: Optional[str] = None,
    ):
        positive = lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 1  # noqa: E731
        check_settings((
            ("n_ctx", n_ctx, positive(n_ctx)),
            ("n_threads", n_threads, positive(n_threads)),
            ("n_threads_batch", n_threads_batch, n_threads_batch is None or positive(n_threads_batch)),
            ("n_batch", n_batch, positive(n_batch)),
            ("max_new_tokens", max_new_tokens, positive(max_new_tokens)),
            ("temperature", temperature, temperature >= 0),
            ("top_k", top_k, isinstance(top_k, int) and not isinstance(top_k, bool) and top_k >= 0),
        ))
        self.name = str(path)
        from ..local_models import find_model_path

        self.path = find_model_path(path)  # a config's models/<file>: also the models folder
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.n_threads_batch = n_threads_batch if n_threads_batch is not None else n_threads
        self.n_batch = n_batch
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.top_k = top_k
        self.max_new_tokens = max_new_tokens
        self.seed = seed
        self.system_prompt = system_prompt
        self.stop_strings = list(stop_strings or [])
        self.stop_at_json = stop_at_json
        self.chat_format = chat_format
        self.n_calls = 0
        self._llama_cpp = _import_llama_cpp()
        if not self.path.is_file():
            raise LinkguardError(Errors.E244.format(path=self.path, detail="there is no such file"))
        self._llm = None

    @property
    def llm(self):
        """The `llama_cpp.Llama`, loaded on first use."""
        if self._llm is None:
            kwargs: Dict[str, Any] = dict(
                model_path=str(self.path),
                n_ctx=self.n_ctx,
                n_batch=self.n_batch,
                n_threads=self.n_threads,
                n_threads_batch=self.n_threads_batch,
                seed=self.seed,
                verbose=False,
            )
            if self.chat_format:
                kwargs["chat_format"] = self.chat_format
            try:
                self._llm = self._llama_cpp.Llama(**kwargs)
            except (ValueError, OSError, RuntimeError) as e:  # llama.cpp's "Failed to load model from file"
                raise LinkguardError(Errors.E244.format(path=self.path, detail=f"{type(e).__name__}: {e}")) from None
        return self._llm

    # --- spacy-llm's model protocol ------------------------------------------
    def __call__(self, prompts: Iterable[Iterable[str]]) -> Iterable[List[str]]:
        """Replies per document to prompts per document.

        An empty prompt gets an empty reply without running the model.
        """
        return replies_per_document(self, prompts)

    # --- generation ----------------------------------------------------------
    def generate(self, prompts: Sequence[str]) -> List[Generation]:
        """Complete every prompt, one after the other; RETURNS one Generation
        per prompt, in order, with the token counts llama.cpp reports.

        RAISES: LinkguardError E245 when a prompt does not fit `n_ctx`.
        """
        out: List[Generation] = []
        for prompt in prompts:
            if not prompt.strip():
                out.append(Generation("", 0, 0))
                continue
            seed = self.seed + self.n_calls
            self.n_calls += 1
            out.append(self._complete(prompt, seed))
        return out

    def messages(self, prompt: str) -> List[Dict[str, str]]:
        """The chat messages of one prompt (the model's chat template formats them)."""
        messages = [{"role": "user", "content": prompt}]
        if self.system_prompt:
            messages.insert(0, {"role": "system", "content": self.system_prompt})
        return messages

    def _complete(self, prompt: str, seed: int) -> Generation:
        llm = self.llm
        kwargs: Dict[str, Any] = dict(
            messages=self.messages(prompt),
            max_tokens=self.max_new_tokens,
            temperature=self.temperature,
            top_p=self.top_p,
            top_k=self.top_k,
            min_p=0.0,
            repeat_penalty=1.0,
            seed=seed,
            stop=list(self.stop_strings),
        )
        if self.stop_at_json:
            kwargs["logits_processor"] = self._llama_cpp.LogitsProcessorList([_EndAtJson(llm, self.stop_at_json)])
        start = time.perf_counter()
        try:
            reply = llm.create_chat_completion(**kwargs)
        except ValueError as e:
            if "exceed context window" not in str(e):
                raise
            raise LinkguardError(Errors.E245.format(detail=str(e), n_ctx=self.n_ctx, path=self.path)) from None
        seconds = time.perf_counter() - start
        text = reply["choices"][0]["message"]["content"] or ""
        usage = reply.get("usage") or {}
        return Generation(
            text, int(usage.get("prompt_tokens", 0) or 0), int(usage.get("completion_tokens", 0) or 0), seconds
        )


class _EndAtJson:
    """A llama.cpp logits processor: once the completion has written its JSON
    answer, only the end-of-sequence token may follow.

    llama-cpp-python's chat API takes no stopping criteria, but it does take
    logits processors, which see every token so far before each step. Forcing
    the end token costs no extra decode step: the step that would have begun
    a closing remark ends the completion instead.
    """

    def __init__(self, llm, field: str):
        self.llm = llm
        self.eos = llm.token_eos()
        self.scanner = JsonAnswerScanner(field)
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.start: Optional[int] = None  # the prompt's length: the first call sees only the prompt

    def __call__(self, input_ids, scores):
        if self.start is None:
            self.start = len(input_ids)
        elif not self.scanner.done:
            new = [int(t) for t in input_ids[self.start :]]
            self.start = len(input_ids)
            self.scanner.feed(self.decoder.decode(self.llm.detokenize(new)))
        if self.scanner.done:
            scores[:] = -float("inf")
            scores[self.eos] = 0.0
        return scores


def _import_llama_cpp():
    """llama_cpp, or LinkguardError E243 when llama-cpp-python is not installed."""
    try:
        import llama_cpp
    except ImportError as e:
        raise LinkguardError(Errors.E243.format(detail=f"{type(e).__name__}: {e}")) from None
    return llama_cpp
