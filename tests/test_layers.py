"""Imports run down the layers: detection never imports the rewriting wing,
and nothing in the product imports the paper's evaluation harness.

Detection (ngrams/, index/, detect/, the `linkguard` component) must work,
and start fast, without the LLM, rewriting, baseline or evaluation code, so
no module of it may import theirs -- not at the top, not inside a function.
`experiments/` (the evaluation harness) is the top layer: only its own
commands (`cli/experiments/`) import it, and it never imports the CLI.
Checked on the source with `ast`, so a lazy import counts too.
"""
import ast
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

import spacy_linkguard

PACKAGE = Path(spacy_linkguard.__file__).parent
DETECTION = ["ngrams", "index", "detect", "pipeline/linkguard.py", "pipeline/index_arg.py", "attack/bm25.py",
             "attack/ranks.py"]
UPPER = ("baselines", "llm", "rewrite", "experiments", "cli")
# Looks its model up among the LLM side's local models: detection is handed it, never imports it.
MODEL_SIDE = ("attack/embedding",)
HARNESS = ["experiments", "cli/experiments"]


def modules(parts: List[str]) -> Iterator[Path]:
    for part in parts:
        path = PACKAGE / part
        yield from sorted(path.rglob("*.py")) if path.is_dir() else [path]


def product_modules() -> Iterator[Path]:
    """Every module of the package outside the evaluation harness and its commands."""
    harness = [PACKAGE / part for part in HARNESS]
    for path in sorted(PACKAGE.rglob("*.py")):
        if not any(path.is_relative_to(h) for h in harness):
            yield path


def imports_of(path: Path, *layers: str) -> List[str]:
    """The imports of `path` that name a module in one of `layers` (dotted, under the package)."""
    names = [f"spacy_linkguard.{layer.replace('/', '.')}" for layer in layers]
    return [f"line {line}: {name}" for line, name in imported(path)
            if any(name == n or name.startswith(f"{n}.") for n in names)]


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
    upward = imports_of(path, *UPPER, *MODEL_SIDE)
    assert not upward, f"{path.relative_to(PACKAGE)} imports up the layers: {upward}"


def test_the_harness_is_split_from_the_product():
    product = {p.relative_to(PACKAGE).as_posix() for p in product_modules()}
    assert "cli/rewrite_cmds.py" in product and "pipeline/factories.py" in product
    assert not any(p.startswith(("experiments/", "cli/experiments/")) for p in product)
    assert (PACKAGE / "cli" / "experiments" / "evaluate_cmd.py").is_file()


@pytest.mark.parametrize("path", list(product_modules()), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_product_never_imports_the_evaluation_harness(path):
    upward = imports_of(path, *HARNESS)
    assert not upward, f"{path.relative_to(PACKAGE)} imports the evaluation harness: {upward}"


@pytest.mark.parametrize("path", list(modules(["experiments"])), ids=lambda p: str(p.relative_to(PACKAGE)))
def test_the_harness_never_imports_the_cli(path):
    upward = imports_of(path, "cli")
    assert not upward, f"{path.relative_to(PACKAGE)} imports the CLI: {upward}"
