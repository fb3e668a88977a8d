"""Paths written into results and saved files: never a machine's absolute path.

A committed results.json or a saved pipeline must not carry `/home/alice/...`
or a virtual environment's location: it leaks the machine's layout and breaks
on any other machine. `portable_path` writes a path relative to the working
directory when it is below it, else relative to a known root, named in angle
brackets (`<site-packages>/pkg/model`, `<hf-cache>/...`, `~/...`), else only
its last two parts.
"""
import os
import site
import sys
from pathlib import Path
from typing import List, Tuple, Union


def _roots() -> List[Tuple[str, Path]]:
    roots: List[Tuple[str, Path]] = []
    for entry in list(sys.path) + _site_dirs():
        if entry and Path(entry).name in ("site-packages", "dist-packages"):
            roots.append(("<site-packages>", Path(entry)))
    hf = os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache", "huggingface")
    roots.append(("<hf-cache>", Path(hf)))
    roots.append(("~", Path(os.path.expanduser("~"))))
    return roots


def _site_dirs() -> List[str]:
    try:
        return list(site.getsitepackages())
    except AttributeError:  # pragma: no cover -- some virtualenvs
        return []


def portable_path(path: Union[str, Path]) -> str:
    """`path` without the machine's absolute prefix (POSIX separators)."""
    p = Path(path)
    if not p.is_absolute():
        return p.as_posix()
    resolved = Path(os.path.abspath(p))
    for base in (Path.cwd(),):
        try:
            return resolved.relative_to(base).as_posix()
        except ValueError:
            pass
    for name, root in _roots():
        try:
            return f"{name}/{resolved.relative_to(Path(os.path.abspath(root))).as_posix()}"
        except ValueError:
            continue
    return "/".join(["<elsewhere>", *resolved.parts[-2:]])
