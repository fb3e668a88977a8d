"""The model of a rewrite config, found and described once (recorded with the outputs)."""
from pathlib import Path
from typing import Any, Dict, Optional

REWRITE_COMPONENT = "linkguard_rewrite"


def model_block(cfg: Dict[str, Any], component: str = REWRITE_COMPONENT) -> Optional[Dict[str, Any]]:
    """The `[components.<component>.model]` block of a config (as a dict) --
    or, when the component's backend is a `rewriter` block holding its own
    model (`linkguard.SentenceRewriter.v1`), that block's `model` -- or None
    when there is no registered LLM model (`@llm_models`)."""
    comp = (cfg.get("components") or {}).get(component) or {}
    for block in (comp.get("model"), (comp.get("rewriter") or {}).get("model")):
        if isinstance(block, dict) and "@llm_models" in block:
            return dict(block)
    return None


def describe_model(block: Dict[str, Any]) -> str:
    """A short model description for outputs and the report, e.g.
    "SmolLM2-135M-Instruct.Q4_1.gguf (linkguard.HF.v1, cpu)"."""
    name = block.get("gguf_file") or block.get("name") or "?"
    return f"{Path(str(name)).name} ({block.get('@llm_models')}, {block.get('device', 'auto')})"
