"""The fields every output line carries about what made it."""
from typing import Any, Dict, Optional


def output_tags(*, system: str, model: str, k: Optional[int] = None, max_arity: Optional[int] = None) -> Dict[str, Any]:
    """The fields every output line carries, so `evaluate` and `report` need no config."""
    return {"system": system, "model": model, "k": k, "max_arity": max_arity}
