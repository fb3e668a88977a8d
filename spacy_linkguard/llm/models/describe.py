"""The model of a rewrite config, found and described once (recorded with the outputs)."""
from pathlib import Path
from typing import Any, Dict, Optional

REWRITE_COMPONENT = "linkguard_rewrite"


def model_block(cfg: Dict[str, Any], component: str = REWRITE_COMPONENT) -> Optional[Dict[str, Any]]:
    """The `[components.<component>.model]` block of a config (as a dict), or
    None when the component has no registered LLM model (`@llm_models`)."""
    block = ((cfg.get("components") or {}).get(component) or {}).get("model")
    return dict(block) if isinstance(block, dict) and "@llm_models" in block else None


def describe_model(block: Dict[str, Any]) -> str:
    """A short model description for outputs and the report, e.g.
    "SmolLM2-135M-Instruct.Q4_1.gguf (linkguard.HF.v1, cpu)"."""
    name = block.get("gguf_file") or block.get("name") or "?"
    return f"{Path(str(name)).name} ({block.get('@llm_models')}, {block.get('device', 'auto')})"
