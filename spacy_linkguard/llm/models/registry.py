"""Registration of `linkguard.HF.v1` (entry point group `thinc_llm_models`)."""
from typing import Any, Dict, List, Optional

from spacy_llm.registry import registry

from .hf import HFChatModel


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
) -> HFChatModel:
    """linkguard.HF.v1: any Hugging Face causal LM through its chat template,
    batched. See `HFChatModel` for the arguments.

    RAISES: LinkguardError E200 (weights not found locally), E201 (dtype),
        E202 (device), E207 (bad size).
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
    )
