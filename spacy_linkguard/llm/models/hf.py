"""`HFChatModel`: any Hugging Face causal LM, prompted through its chat template.

spacy-llm's own HF models accept fixed lists of model names, use no chat
templates and send one prompt at a time; this one takes any local model
folder, hub id (from the local cache only) or GGUF file, sorts prompts by
length and generates in left-padded batches. Weights are loaded on first use;
whether they exist is checked at construction, so a missing model fails fast
with a coded error instead of hanging on a download.
"""
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence

from ...errors import Errors, LinkguardError
from ..local_models import (MODELS_PREFIX, cached_gguf_dir, convert_gguf, find_model_path, is_converted, model_fix,
                            offline_env)
from .base import Generation, check_settings, replies_per_document
from .prefix_cache import PrefixCache, layout, shared_prefix

__all__ = ["Generation", "HFChatModel"]  # Generation re-exported: it lived here before base.py

DTYPES = ("auto", "float32", "bfloat16", "float16")
# `loss` scores a batch in sub-batches whose float32 logits take at most this many bytes.
LOSS_LOGITS_BYTES = 1 << 30
CACHE_IMPLEMENTATIONS = (None, "static")
# End-of-turn tokens of common chat templates, added to the stop ids when present.
END_OF_TURN_TOKENS = ("<|im_end|>", "<|eot_id|>", "<end_of_turn>", "<|endoftext|>", "<|end|>")


class HFChatModel:
    """Batched chat generation with a transformers causal LM (a `ChatModel`).

    name (str): A local folder, a hub id present in the local HF cache, or,
        with `gguf_file`, the folder holding that GGUF file.
    device (str): "cpu", "cuda", "cuda:N" or "auto" (cuda when available).
    dtype (str): One of DTYPES.
    temperature (float): Sampling temperature; 0 = greedy.
    top_p (float): Nucleus sampling mass.
    max_new_tokens (int): Completion length limit.
    batch_size (int): Prompts per `generate` call.
    seed (int): Seed of the first call (call i uses seed + i: retries differ,
        runs repeat).
    gguf_file (Optional[str]): A GGUF file in `name`; converted once to
        `<name>/<stem>-hf` and loaded from there afterwards.
    local_files_only (bool): Never download (sets HF_HUB_OFFLINE).
    system_prompt (Optional[str]): A system message before each prompt.
    use_chat_template (bool): False sends the raw prompt text.
    chat_template_kwargs (Dict): Extra arguments of `apply_chat_template`.
    stop_strings (List[str]): Extra strings that end a completion.
    cache_implementation (Optional[str]): None (the default dynamic KV cache)
        or "static": a preallocated KV cache, with which transformers compiles
        the decoding step (torch.compile + CUDA graphs) on a GPU; 2-5x faster
        decoding for a Qwen3-4B-sized model (benchmarks/results/gpu.md) after a
        one-off compile per batch size. Short batches are then padded up to a
        power of two, so that few batch sizes (hence compiles) ever occur.
    attn_implementation (Optional[str]): None keeps the model's (SDPA);
        "grouped_sdpa" runs masked decode steps of grouped-query models
        without copying the KV cache per query head (`attention.py`; same
        result, less memory traffic at large batches); any other transformers
        name ("eager", "sdpa", "flash_attention_2", ...) is passed on.
    stop_at_json (Optional[str]): A field name, e.g. "text": a sequence ends
        once it has written a JSON object whose only key is that field (the
        rewrite task's answer; "replacements" for linkguard.RewriteSpans.v1), instead of running on to its end token
        (`stopping.py`). None: only end tokens and `stop_strings` stop.
    num_threads (Optional[int]): torch's CPU threads for this process
        (`torch.set_num_threads`, process-wide), set when the model is
        installed. None keeps torch's default (one per core). On a shared or
        busy CPU, threads that spin-wait for each other collapse (measured:
        2 threads on 2 loaded cores ran a SmolLM2 rewrite 8x slower in CPU
        time than 1), so the CPU configs set 1.
    max_rewinds (int): With `generate(..., banned=...)`: how often one reply
        may be cut back because it completed a banned phrase; one more and it
        fails (`Generation.failed == "banned_phrase"`). See
        `banned_decoding.py`.
    cuda_graphs (bool): With `generate(..., banned=...)` on a GPU: decode
        over fixed KV buffers and replay each step as a CUDA graph instead of
        running transformers' Python for every layer at every step
        (`decode_steps.GraphSteps`; the same tokens, tested on a CPU against
        the per-step forward). Needs an SDPA attention ("sdpa" or
        "grouped_sdpa"); other attentions decode step by step.
    prefix_cache (bool): Compute the prompt prefix that every prompt of a
        batch shares (the task's instruction and examples) once a run and
        copy its keys and values into each batch (`prefix_cache.py`), in
        `generate(..., banned=...)` and `loss`; False: every prompt whole.

    Sampling in `generate(..., banned=...)` is per row: each reply draws
    from noise keyed by the seed, its prompt and how often that prompt was
    asked before (`sampling.row_key`), so a reply is the same whatever the
    batch it ran in (its size, the other prompts, their order). Plain
    `generate` (no banned phrases) seeds torch once a call (`seed + i`).

    `generate(prompts, banned=...)` enforces banned phrases while decoding:
    the reply can never contain one (as `rewrite.occurs` tests it), whatever
    its case, spacing or tokenization. `loss(prompts, completions)` is the
    model's own mean negative log-likelihood of given replies.
    """

    def __init__(
        self,
        name: str,
        *,
        device: str = "auto",
        dtype: str = "auto",
        temperature: float = 1.2,
        top_p: float = 1.0,
        max_new_tokens: int = 512,
        batch_size: int = 8,
        seed: int = 0,
        gguf_file: Optional[str] = None,
        local_files_only: bool = True,
        system_prompt: Optional[str] = None,
        use_chat_template: bool = True,
        chat_template_kwargs: Optional[Dict[str, Any]] = None,
        stop_strings: Optional[List[str]] = None,
        trust_remote_code: bool = False,
        cache_implementation: Optional[str] = None,
        attn_implementation: Optional[str] = None,
        stop_at_json: Optional[str] = None,
        num_threads: Optional[int] = None,
        max_rewinds: int = 8,
        cuda_graphs: bool = False,
        prefix_cache: bool = True,
    ):
        if dtype not in DTYPES:
            raise LinkguardError(Errors.E201.format(value=dtype, name=name, options=", ".join(DTYPES)))
        check_settings((
            ("max_new_tokens", max_new_tokens, isinstance(max_new_tokens, int) and max_new_tokens >= 1),
            ("batch_size", batch_size, isinstance(batch_size, int) and batch_size >= 1),
            ("temperature", temperature, temperature >= 0),
            ("num_threads", num_threads, num_threads is None or (isinstance(num_threads, int) and num_threads >= 1)),
        ))
        if not isinstance(max_rewinds, int) or isinstance(max_rewinds, bool) or max_rewinds < 0:
            raise LinkguardError(Errors.E228.format(value=max_rewinds))
        self.max_rewinds = max_rewinds
        self.cuda_graphs = bool(cuda_graphs)
        self.prefix_cache = PrefixCache() if prefix_cache else None
        self._asked: Dict[bytes, int] = {}  # prompt digest -> rows asked with it so far (sampling keys)
        self.name = name
        self.device_name = device
        self.dtype_name = dtype
        self.temperature = float(temperature)
        self.top_p = float(top_p)
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        self.seed = seed
        self.gguf_file = gguf_file
        self.local_files_only = local_files_only
        self.system_prompt = system_prompt
        self.use_chat_template = use_chat_template
        self.chat_template_kwargs = dict(chat_template_kwargs or {})
        self.stop_strings = list(stop_strings or [])
        self.trust_remote_code = trust_remote_code
        if cache_implementation not in CACHE_IMPLEMENTATIONS:
            raise LinkguardError(
                Errors.E207.format(name="cache_implementation", expected=f"one of {CACHE_IMPLEMENTATIONS}",
                                   value=cache_implementation)
            )
        self.cache_implementation = cache_implementation
        self.attn_implementation = attn_implementation
        self.stop_at_json = stop_at_json
        self.num_threads = num_threads
        self.n_calls = 0
        self._model = None
        self._tokenizer = None
        if local_files_only:
            offline_env()
        self._source = self._resolve_source()
        self._device = self._resolve_device(device)

    @classmethod
    def from_objects(cls, model, tokenizer, *, name: str = "<in-memory>", **kwargs) -> "HFChatModel":
        """Wrap a model and tokenizer built in Python instead of loading them by name.

        For benchmarks and notebooks: benchmarks/bench_gpu.py builds a model of
        Qwen3-4B's shape with random weights and times it through this class,
        so what it measures is the code production runs.
        model: A transformers causal LM (moved to `device`).
        tokenizer: Its tokenizer (set to left padding).
        name (str): A label for messages; nothing is looked up under it.
        kwargs: The generation settings of `__init__` (not the loading ones).
        RETURNS (HFChatModel): Ready to generate, nothing left to load.
        """
        self = cls(name, local_files_only=False, gguf_file=None, **kwargs)
        self._install(model, tokenizer)
        return self

    # --- spacy-llm's model protocol ------------------------------------------
    def __call__(self, prompts: Iterable[Iterable[str]]) -> Iterable[List[str]]:
        """Replies per document to prompts per document, batched across documents.

        An empty prompt gets an empty reply without running the model.
        """
        return replies_per_document(self, prompts)

    # --- generation ----------------------------------------------------------
    def generate(
        self,
        prompts: Sequence[str],
        banned: Optional[Sequence[Optional[Sequence[str]]]] = None,
        settings: Optional[Any] = None,
    ) -> List[Generation]:
        """Complete every prompt; RETURNS one Generation per prompt, in order.

        Prompts are sorted by token length (longest first, so memory problems
        show up at once) and run in left-padded batches of `batch_size`.
        banned: None, or per prompt None or a list of phrases (raw text) that
            must not occur in its reply, as `rewrite.occurs` decides it under
            `settings` (NgramSettings; default NgramSettings()). Those prompts
            are decoded by `banned_decoding.generate_banned` (dynamic KV
            cache); a reply still containing a phrase after `max_rewinds`
            rewinds comes back with `failed="banned_phrase"` and must be
            rejected. Prompts without phrases run as without `banned`, in
            batches of their own.
        RAISES: LinkguardError E227 when `banned` is not one list per prompt.
        """
        out: List[Optional[Generation]] = [None] * len(prompts)
        todo = [i for i, p in enumerate(prompts) if p.strip()]
        for i in set(range(len(prompts))) - set(todo):
            out[i] = Generation("", 0, 0)
        phrase_sets = self._phrase_sets(prompts, banned, settings)
        plain = [i for i in todo if i not in phrase_sets]
        guarded = [i for i in todo if i in phrase_sets]
        if plain:
            self._run_batches(prompts, plain, out, lambda texts, batch: self._generate_batch(texts),
                              self.cache_implementation == "static")
        if guarded:
            keys = self._sampling_keys(prompts, guarded)
            self._run_batches(prompts, guarded, out, lambda texts, batch: self._generate_banned_batch(
                texts, [phrase_sets[i] for i in batch], [keys[i] for i in batch]), False)
        return out  # type: ignore[return-value]

    def _sampling_keys(self, prompts: Sequence[str], todo: List[int]) -> Dict[int, int]:
        """Each prompt's sampling key (`sampling.row_key`), in prompt order: the
        k-th time a prompt is asked in this model's life gets occurrence k."""
        import hashlib

        from .sampling import row_key

        keys = {}
        for i in todo:
            digest = hashlib.blake2b(prompts[i].encode("utf-8"), digest_size=16).digest()
            k = self._asked.get(digest, 0)
            self._asked[digest] = k + 1
            keys[i] = row_key(self.seed, prompts[i], k)
        return keys

    def _run_batches(self, prompts: Sequence[str], todo: List[int], out: List[Optional[Generation]],
                     run: Callable, pad_batches: bool) -> None:
        """Generate `todo` (prompt indices) in batches of `batch_size`, longest
        first, into `out`; `run(texts, batch)` generates one batch."""
        chats = {i: self.format_prompt(prompts[i]) for i in todo}
        lengths = {i: len(self.tokenizer(chats[i], add_special_tokens=False)["input_ids"]) for i in todo}
        todo = sorted(todo, key=lambda i: -lengths[i])
        for b in range(0, len(todo), self.batch_size):
            batch = todo[b : b + self.batch_size]
            texts = [chats[i] for i in batch]
            if pad_batches:
                # The compiled step is specialised to the batch size: fill
                # a short batch up to a power of two with copies of its
                # last prompt (their replies are dropped), so a run
                # compiles for a handful of sizes, not for every remainder.
                texts += texts[-1:] * (_padded_size(len(texts), self.batch_size) - len(texts))
            gens = run(texts, batch)
            for i, gen in zip(batch, gens):
                gen.seconds *= len(texts) / len(batch)  # the fillers' time is the batch's
                out[i] = gen

    def _phrase_sets(self, prompts: Sequence[str], banned, settings) -> Dict[int, Any]:
        """Compiled banned phrases per prompt index (no phrase: no entry).

        RAISES: LinkguardError E227 when `banned` is not one list per prompt.
        """
        if banned is None:
            return {}
        if isinstance(banned, str) or len(banned) != len(prompts):
            detail = repr(banned) if isinstance(banned, str) else f"{len(banned)} lists"
            raise LinkguardError(Errors.E227.format(n_prompts=len(prompts), detail=detail))
        bad = next((p for p in banned if p is not None and (isinstance(p, str)
                                                             or not all(isinstance(x, str) for x in p))), None)
        if bad is not None:
            raise LinkguardError(Errors.E227.format(n_prompts=len(prompts), detail=f"the entry {bad!r}"))
        if not any(banned):
            return {}
        from ...ngrams import NgramSettings
        from .banned_phrases import PhraseSet

        settings = settings if settings is not None else NgramSettings()
        compiled: Dict[tuple, Any] = {}  # the n candidates of a sentence share its phrases: compiled once
        sets = {}
        for i, phrases in enumerate(banned):
            if phrases:
                key = tuple(phrases)
                if key not in compiled:
                    compiled[key] = PhraseSet(phrases, settings)
                if compiled[key]:
                    sets[i] = compiled[key]
        return sets

    @property
    def device(self) -> Any:
        """The torch device the model runs on (resolved from the `device` setting)."""
        return self._device

    def format_prompt(self, prompt: str) -> str:
        """The prompt as the model sees it (chat template applied).

        RAISES: LinkguardError E203 when the tokenizer has no chat template.
        """
        if not self.use_chat_template:
            return prompt
        tok = self.tokenizer
        if not getattr(tok, "chat_template", None):
            raise LinkguardError(Errors.E203.format(name=self.name))
        messages = [{"role": "user", "content": prompt}]
        if self.system_prompt:
            messages.insert(0, {"role": "system", "content": self.system_prompt})
        return tok.apply_chat_template(
            messages, tokenize=False, add_generation_prompt=True, **self.chat_template_kwargs
        )

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _generate_batch(self, texts: List[str]) -> List[Generation]:
        import torch

        tok, model = self.tokenizer, self.model
        start = time.perf_counter()
        enc = tok(texts, return_tensors="pt", padding=True, add_special_tokens=False).to(self._device)
        torch.manual_seed(self.seed + self.n_calls)
        self.n_calls += 1
        kwargs: Dict[str, Any] = dict(
            max_new_tokens=self.max_new_tokens,
            pad_token_id=tok.pad_token_id,
            eos_token_id=self._stop_ids,
        )
        if self.temperature > 0:
            kwargs.update(do_sample=True, temperature=self.temperature, top_p=self.top_p, top_k=0)
        else:
            kwargs.update(do_sample=False, temperature=None, top_p=None, top_k=None)
        if self.stop_strings:
            kwargs.update(stop_strings=self.stop_strings, tokenizer=tok)
        if self.cache_implementation:
            kwargs.update(cache_implementation=self.cache_implementation)
        json_stop = None
        if self.stop_at_json:
            from transformers import StoppingCriteriaList

            from .stopping import JsonAnswerStop

            json_stop = JsonAnswerStop(tok, len(texts), self.stop_at_json)
            kwargs.update(stopping_criteria=StoppingCriteriaList([json_stop]))
        with torch.inference_mode():
            seqs = model.generate(**enc, **kwargs)
        new = seqs[:, enc["input_ids"].shape[1] :].tolist()
        prompt_lens = enc["attention_mask"].sum(dim=1).tolist()
        seconds = (time.perf_counter() - start) / len(texts)
        gens = []
        stop = set(self._stop_ids)
        for row, (ids, n_prompt) in enumerate(zip(new, prompt_lens)):
            n = next((j + 1 for j, t in enumerate(ids) if t in stop), len(ids))
            if json_stop is not None and json_stop.lengths[row] is not None:
                n = min(n, json_stop.lengths[row])  # what follows is padding
            text = tok.decode(ids[:n], skip_special_tokens=True)
            gens.append(Generation(text, int(n_prompt), n, seconds))
        return gens

    def _generate_banned_batch(self, texts: List[str], phrase_sets: List[Any], keys: List[int]) -> List[Generation]:
        from .banned_decoding import generate_banned

        tok = self.tokenizer
        start = time.perf_counter()
        ids = tok(texts, add_special_tokens=False)["input_ids"]
        shared = shared_prefix(self.prefix_cache, ids)
        input_ids, mask = layout(ids, shared, tok.pad_token_id, self._device)
        prefix = self.prefix_cache.states(self.model, ids[0][:shared], len(ids)) if shared else None
        self.n_calls += 1
        rows = generate_banned(
            self.model, tok, {"input_ids": input_ids, "attention_mask": mask}, phrase_sets,
            max_new_tokens=self.max_new_tokens, temperature=self.temperature,
            top_p=self.top_p, stop_ids=self._stop_ids, max_rewinds=self.max_rewinds,
            stop_strings=self.stop_strings, stop_at_json=self.stop_at_json, graphs=self.cuda_graphs,
            keys=keys, prefix=prefix,
        )
        seconds = (time.perf_counter() - start) / len(texts)
        prompt_lens = [len(r) for r in ids]
        return [
            Generation(tok.decode(row.ids, skip_special_tokens=True), int(n), len(row.ids), seconds,
                       rewinds=row.rewinds, failed=row.failed)
            for row, n in zip(rows, prompt_lens)
        ]

    # --- the model's own loss of a reply -----------------------------------------
    def loss(self, prompts: Sequence[str], completions: Sequence[str]) -> List[float]:
        """Mean negative log-likelihood per token of each completion, given its
        prompt as the model sees it (`format_prompt`); nan for an empty completion.

        The completion is tokenized on its own (as the model would have
        written it after the chat template's assistant header) and scored
        without an end-of-turn token. Batched (left padding, `batch_size`,
        longest first; the prompts' shared prefix computed once with
        `prefix_cache`); log-probabilities in float32.
        RAISES: LinkguardError E229 when the lists differ in length.
        """
        from ... import profiling

        if len(prompts) != len(completions):
            raise LinkguardError(Errors.E229.format(n_prompts=len(prompts), n_completions=len(completions)))
        with profiling.phase("loss", sync=True):
            return self._loss(prompts, completions)

    def _loss(self, prompts: Sequence[str], completions: Sequence[str]) -> List[float]:
        import torch

        from ... import profiling

        tok, model = self.tokenizer, self.model
        pairs = [
            (tok(self.format_prompt(p), add_special_tokens=False)["input_ids"],
             tok(c, add_special_tokens=False)["input_ids"])
            for p, c in zip(prompts, completions)
        ]
        out = [float("nan")] * len(pairs)
        order = sorted((i for i, (_, c) in enumerate(pairs) if c), key=lambda i: -sum(map(len, pairs[i])))
        for b in range(0, len(order), self.batch_size):
            batch = order[b : b + self.batch_size]
            seqs = [pairs[i][0] + pairs[i][1] for i in batch]
            # the prompts' shared prefix is computed once (its last token stays: its logits score the reply)
            shared = shared_prefix(self.prefix_cache, [pairs[i][0] for i in batch])
            ids, mask = layout(seqs, shared, tok.pad_token_id, self._device)
            prefix = self.prefix_cache.states(model, seqs[0][:shared], len(batch)) if shared else None
            width = ids.shape[1]
            profiling.count("loss_tokens", len(batch) * (width - shared))
            position_ids = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 1)
            keep = max(len(pairs[i][1]) for i in batch) + 1  # logits at the completions' positions only
            # the float32 logits of a sub-batch stay under LOSS_LOGITS_BYTES (a batch of 512
            # replies of 100 tokens over a 150k vocabulary would need 31 GB, twice with log_softmax)
            rows = max(1, LOSS_LOGITS_BYTES // (keep * len(tok) * 4))
            for r0 in range(0, len(batch), rows):
                sub = slice(r0, r0 + rows)
                with torch.inference_mode():
                    logits = self._forward_rest(ids[sub], mask[sub], position_ids[sub], prefix, keep)[:, :-1].float()
                    targets = ids[sub, width - keep + 1 :].unsqueeze(-1)
                    logprobs = logits.log_softmax(dim=-1).gather(2, targets).squeeze(-1)
                del logits
                for row, i in enumerate(batch[sub]):
                    n = len(pairs[i][1])
                    out[i] = float(-logprobs[row, -n:].sum() / n)
        return out

    def _forward_rest(self, ids, mask, position_ids, prefix, keep: int):
        """The logits of the last `keep` positions of a batch whose first
        columns are the shared `prefix` (each layer's keys and values; None:
        no prefix, every column computed)."""
        import torch

        if not prefix:
            return self.model(input_ids=ids, attention_mask=mask, position_ids=position_ids, logits_to_keep=keep).logits
        from transformers import DynamicCache

        from .decode_steps import cache_argument, put_prefix

        start = prefix[0][0].shape[-2]
        cache = DynamicCache(config=self.model.config)
        put_prefix(cache, prefix, ids.shape[0])
        return self.model(input_ids=ids[:, start:], attention_mask=mask, position_ids=position_ids[:, start:],
                          cache_position=torch.arange(start, ids.shape[1], device=ids.device), use_cache=True,
                          logits_to_keep=keep, **{cache_argument(type(self.model)): cache}).logits

    # --- loading ---------------------------------------------------------------
    @property
    def tokenizer(self):
        if self._tokenizer is None:
            self._load()
        return self._tokenizer

    @property
    def model(self):
        if self._model is None:
            self._load()
        return self._model

    def _load(self) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        source = self._source
        if self.gguf_file and not is_converted(source):
            convert_gguf(find_model_path(self.name) / self.gguf_file, source)
        dtype = "auto" if self.dtype_name == "auto" else getattr(torch, self.dtype_name)
        common = dict(local_files_only=self.local_files_only, trust_remote_code=self.trust_remote_code)
        try:
            tok = AutoTokenizer.from_pretrained(str(source), **common)
            model = AutoModelForCausalLM.from_pretrained(str(source), dtype=dtype, **common)
        except (OSError, ValueError) as e:
            raise LinkguardError(Errors.E200.format(name=self.name, detail=f"{type(e).__name__}: {e}",
                                                    fix=model_fix(self.name))) from None
        self._install(model, tok)

    def _install(self, model, tok) -> None:
        """Make `model` and `tok` the ones `generate` uses (after loading or `from_objects`)."""
        if self.num_threads is not None:
            import torch

            torch.set_num_threads(self.num_threads)
        tok.padding_side = "left"  # generation continues at the right edge
        if tok.pad_token_id is None:
            tok.pad_token = tok.eos_token
        model.to(self._device)
        model.eval()
        if self.attn_implementation:
            from .attention import register

            grouped = self.attn_implementation == "grouped_sdpa"
            model.set_attn_implementation(register() if grouped else self.attn_implementation)
        stop = {model.generation_config.eos_token_id, tok.eos_token_id}
        stop = {t for s in stop for t in (s if isinstance(s, list) else [s]) if t is not None}
        vocab = tok.get_vocab()
        stop.update(vocab[t] for t in END_OF_TURN_TOKENS if t in vocab)
        self._stop_ids = sorted(stop)
        self._tokenizer, self._model = tok, model

    def _resolve_source(self) -> Path:
        """Where the weights are; RAISES LinkguardError E200 when they are nowhere local.

        A path is looked up as written, then (a config's `models/<folder>`) in
        the models folder (`llm/local_models.find_model_path`)."""
        def missing(detail: str) -> LinkguardError:
            return LinkguardError(Errors.E200.format(name=self.name, detail=detail, fix=model_fix(self.name)))

        if self.gguf_file:
            folder = find_model_path(self.name)
            gguf = folder / self.gguf_file
            cache = cached_gguf_dir(gguf)
            if is_converted(cache) or gguf.is_file():
                return cache
            raise missing(f"no GGUF file {gguf}")
        path = find_model_path(self.name)
        if path.exists():
            if not (path / "config.json").is_file():
                raise missing(f"{path} has no config.json")
            return path
        if _looks_like_path(self.name):
            raise missing(f"there is no folder {path}")
        if self.local_files_only and not _in_hf_cache(self.name):
            raise missing("it is neither a local folder nor in the Hugging Face cache")
        return Path(self.name)

    def _resolve_device(self, device: str):
        import torch

        if device == "auto":
            return torch.device("cuda" if torch.cuda.is_available() else "cpu")
        if device.startswith("cuda") and not torch.cuda.is_available():
            raise LinkguardError(Errors.E202.format(value=device, name=self.name, detail="CUDA is not available"))
        return torch.device(device)


def _padded_size(n: int, batch_size: int) -> int:
    """The smallest power of two >= n, capped at batch_size."""
    return min(batch_size, 1 << max(0, n - 1).bit_length())


def _looks_like_path(name: str) -> bool:
    # Hub ids are "org/name"; anything else with a slash is a local path, and so is a
    # config's models/<folder> (the models folder, never the hub).
    return name.startswith((".", "/", "~", MODELS_PREFIX)) or name.count("/") > 1 or "\\" in name


def _in_hf_cache(repo_id: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, "config.json")
    except Exception:  # an invalid repo id is simply not in the cache
        return False
    return isinstance(found, str)
