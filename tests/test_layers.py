"""Imports run down the layers: detection never imports the rewriting wing.

Detection (ngrams/, index/, detect/, the `linkguard` component) must work,
and start fast, without the LLM, rewriting, baseline or evaluation code, so
no module of it may import theirs -- not at the top, not inside a function.
Checked on the source with `ast`, so a lazy import counts too.
"""
import ast
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

import spacy_linkguard

PACKAGE = Path(spacy_linkguard.__file__).parent
DETECTION = ["ngrams", "index", "detect", "pipeline/linkguard.py", "pipeline/index_arg.py"]
UPPER = ("baselines", "llm", "rewrite", "eval", "cli")


def modules(parts: List[str]) -> Iterator[Path]:
    for part in parts:
        path = PACKAGE / part
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def imported(path: Path) -> Iterator[Tuple[int, str]]:
    """Every module `path` imports, as an absolute dotted name, with its line."""
    package = path.relative_to(PACKAGE.parent).parts[:-1]  # what `from .` names, for __init__.py too
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            base = list(package[: len(package) - node.level + 1]) if node.level else []
            target = ".".join(base + ([node.module] if node.module else []))
            if node.module:
                yield node.lineno, target
            for alias in node.names:  # `from .. import rewrite` imports a module too
                yield node.lineno, f"{target}.{alias.name}"


def test_the_check_sees_relative_and_lazy_imports():
    names = [n for _, n in imported(PACKAGE / "pipeline" / "rewrite.py")]
    assert "spacy_linkguard.errors" in names  # `from ..errors import ...`
    assert any(n.startswith("spacy_linkguard.rewrite") for n in names)  # a lazy `from ..rewrite import`


@pytest.mark.parametrize("path", list(modules(DETECTION)), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_detection_imports_nothing_above_it(path):
    upward = [f"line {line}: {name}" for line, name in imported(path)
              if any(name == f"spacy_linkguard.{u}" or name.startswith(f"spacy_linkguard.{u}.") for u in UPPER)]
    assert not upward, f"{path.relative_to(PACKAGE)} imports up the layers: {upward}"
