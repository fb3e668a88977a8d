"""How the components receive the N-gram index: one rule for all of them.

A component gets its index in `initialize(index=...)`, as spaCy's
`span_ruler` gets its patterns, so a config names the folder once:

    [initialize.components.linkguard]
    index = ${paths.index}

`index` is a folder (opened with `spacy_linkguard.index.open_index`, cached
per process) or an index already opened. A component keeps the folder for
`to_disk`, which saves it relative to the component's own folder.
"""
import os
from pathlib import Path
from typing import Any, Tuple, Union

from ..errors import Errors, LinkguardError


def is_open_index(value: Any) -> bool:
    """Whether `value` is an opened index (`NgramIndex`, `ShardedIndex`, or one with their API)."""
    return all(hasattr(value, a) for a in ("path", "settings", "checksum", "doc_freqs"))


def receive_index(index: Any, name: str, *, verify: bool = False) -> Tuple[str, Any]:
    """Open the `index` given to component `name`.

    index (Union[str, Path, NgramIndex, ShardedIndex]): A folder or an open index.
    verify (bool): For a folder: check every byte (see `open_index`).
    RETURNS (Tuple[str, Any]): The folder and the open index.
    RAISES: LinkguardError E114 (neither a folder nor an index), and the
        coded errors of `open_index`.
    """
    from ..index import open_index

    if is_open_index(index):
        return str(index.path), index
    if isinstance(index, (str, Path)) and str(index):
        return str(index), open_index(index, verify=verify)
    raise LinkguardError(Errors.E114.format(name=name, kind=f"{type(index).__name__} {index!r}"[:200]))


def holds_index(folder: Union[str, Path]) -> bool:
    """Whether `folder` holds an index (plain or sharded), without opening it."""
    from ..index import format as fmt

    return any((Path(folder) / name).is_file() for name in (fmt.META, fmt.MANIFEST))


def relative_path(target: Union[str, Path], folder: Union[str, Path]) -> str:
    """`target` relative to `folder` (POSIX separators), for paths saved inside `folder`."""
    return Path(os.path.relpath(Path(target).resolve(), Path(folder).resolve())).as_posix()


def saved_path(saved: str, folder: Union[str, Path]) -> str:
    """The folder a path saved by `to_disk` in `folder` names (the inverse of `relative_path`)."""
    if Path(saved).is_absolute():
        return saved
    return os.path.normpath(os.path.join(os.path.abspath(folder), saved))


def check_index_variable(nlp: Any, name: str) -> None:
    """For a component that received no index: a config that sets [paths] index
    meant to give it one, and nothing passed it on (the override would be
    ignored without a word).

    RAISES: LinkguardError E020 when `nlp`'s config sets [paths] index and the
        component got none.
    """
    config = getattr(nlp, "config", None) or {}
    paths = config.get("paths") if hasattr(config, "get") else None
    value = paths.get("index") if isinstance(paths, dict) else None
    if value not in (None, "", "null"):
        raise LinkguardError(Errors.E020.format(value=str(value), name=name))
