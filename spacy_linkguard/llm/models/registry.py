"""Registration of `linkguard.HF.v1`, `linkguard.OpenAI.v1` and `linkguard.LlamaCpp.v1`
(entry point group `thinc_llm_models`)."""
from typing import Any, Dict, List, Optional

from spacy_llm.registry import registry

from .hf import HFChatModel
from .llamacpp import LlamaCppChatModel
from .openai import OpenAIChatModel


@registry.llm_models("linkguard.HF.v1")
def make_hf_model(
    name: str = "Qwen/Qwen3-4B-Instruct-2507",
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
) -> HFChatModel:
    """linkguard.HF.v1: any Hugging Face causal LM through its chat template,
    batched. See `HFChatModel` for the arguments.

    RAISES: LinkguardError E200 (weights not found locally), E201 (dtype),
        E202 (device), E207 (bad size), E228 (max_rewinds).
    """
    return HFChatModel(
        name,
        device=device,
        dtype=dtype,
        temperature=temperature,
        top_p=top_p,
        max_new_tokens=max_new_tokens,
        batch_size=batch_size,
        seed=seed,
        gguf_file=gguf_file,
        local_files_only=local_files_only,
        system_prompt=system_prompt,
        use_chat_template=use_chat_template,
        chat_template_kwargs=chat_template_kwargs,
        stop_strings=stop_strings,
        trust_remote_code=trust_remote_code,
        cache_implementation=cache_implementation,
        attn_implementation=attn_implementation,
        stop_at_json=stop_at_json,
        num_threads=num_threads,
        max_rewinds=max_rewinds,
        cuda_graphs=cuda_graphs,
        prefix_cache=prefix_cache,
    )


@registry.llm_models("linkguard.OpenAI.v1")
def make_openai_model(
    name: str,
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
) -> OpenAIChatModel:
    """linkguard.OpenAI.v1: an OpenAI-compatible chat-completions server (vLLM,
    llama.cpp, TGI). See `OpenAIChatModel` for the arguments.

    RAISES: LinkguardError E207 (bad setting); at generation E240 (no reply),
        E241 (error status), E242 (not a chat completion).
    """
    return OpenAIChatModel(
        name,
        base_url=base_url,
        api_key_env=api_key_env,
        temperature=temperature,
        top_p=top_p,
        max_new_tokens=max_new_tokens,
        seed=seed,
        concurrency=concurrency,
        timeout=timeout,
        max_retries=max_retries,
        system_prompt=system_prompt,
        stop_strings=stop_strings,
        extra_body=extra_body,
    )


@registry.llm_models("linkguard.LlamaCpp.v1")
def make_llamacpp_model(
    path: str = "models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
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
) -> LlamaCppChatModel:
    """linkguard.LlamaCpp.v1: a GGUF file on the CPU through llama.cpp, one
    thread by default (optional extra `spacy-linkguard[llamacpp]`). See
    `LlamaCppChatModel` for the arguments.

    RAISES: LinkguardError E207 (bad setting), E243 (llama-cpp-python not
        installed), E244 (GGUF file missing or unreadable); at generation
        E245 (prompt longer than n_ctx).
    """
    return LlamaCppChatModel(
        path,
        n_ctx=n_ctx,
        n_threads=n_threads,
        n_threads_batch=n_threads_batch,
        n_batch=n_batch,
        temperature=temperature,
        top_p=top_p,
        top_k=top_k,
        max_new_tokens=max_new_tokens,
        seed=seed,
        system_prompt=system_prompt,
        stop_strings=stop_strings,
        stop_at_json=stop_at_json,
        chat_format=chat_format,
    )
