"""The shipped pipeline configs (`rewrite_cpu.cfg`, `rewrite_qwen25_1p5b.cfg`, ...).

They are package data, so `rewrite --config rewrite_cpu` works wherever the
package is installed, not only in a checkout; the checkout's top-level
`configs/` is a link to this folder (one copy of each file).
"""
from pathlib import Path
from typing import List, Union

CONFIG_DIR = Path(__file__).parent


def shipped_configs() -> List[str]:
    """The names of the shipped configs (file names without `.cfg`), sorted."""
    return sorted(p.stem for p in CONFIG_DIR.glob("*.cfg"))


def resolve_config(config: Union[str, Path]) -> Path:
    """The config file that `config` names: an existing file (any path), else a
    shipped config by name, with or without `.cfg` (`rewrite_cpu`).

    RAISES: LinkguardError E010 for a path with a folder that does not exist,
        E219 for a bare name that is no shipped config (both list the shipped names).
    """
    from ..errors import Errors, LinkguardError

    path = Path(config)
    if path.is_file():
        return path
    names = ", ".join(shipped_configs())
    if path.parent != Path("."):
        raise LinkguardError(Errors.E010.format(path=path, hint=f", or name a shipped config: {names}"))
    name = path.name[: -len(".cfg")] if path.name.endswith(".cfg") else path.name
    if (CONFIG_DIR / f"{name}.cfg").is_file():
        return CONFIG_DIR / f"{name}.cfg"
    raise LinkguardError(Errors.E219.format(config=str(config), names=names))
