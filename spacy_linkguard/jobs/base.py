"""The base of every job: it pickles its options, never its state."""
from typing import Any, Dict


class Stateful:
    """Pickles its options only: each process builds its own state (`setup()`)."""

    _state: Any = None

    def __getstate__(self) -> Dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("_state", None)
        return d
