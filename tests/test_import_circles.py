"""No two modules import each other, even through a third, where the command
line meets the parallel runners (`cli/` and `parallel/`), inside `parallel/`,
and inside `index/`. Read from the source with `ast` (as `test_layers.py`
does), so a lazy import inside a function counts too."""
from pathlib import Path
from typing import Dict, Iterable, List, Set

import pytest

from .test_layers import PACKAGE, imported


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def graph(parts: Iterable[str]) -> Dict[str, Set[str]]:
    """Module -> the modules among `parts` it imports (a name imported from a
    module, `from .build import build_index`, counts as importing that module)."""
    paths = [p for part in parts for p in sorted((PACKAGE / part).rglob("*.py"))]
    names = {module_name(p) for p in paths}
    edges: Dict[str, Set[str]] = {}
    for path in paths:
        me = module_name(path)
        out = edges.setdefault(me, set())
        for _, name in imported(path):
            while name and name not in names:
                name = name.rpartition(".")[0]
            if name and name != me:
                out.add(name)
    return edges


def circles(edges: Dict[str, Set[str]]) -> List[List[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    found: List[List[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_the_check_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_lazy_imports():
    edges = graph(["index"])
    # NgramIndex.build imports the builder inside the method
    assert "spacy_linkguard.index.build" in edges["spacy_linkguard.index.ngram_index"]


@pytest.mark.parametrize("parts", [["cli", "parallel", "jobs"], ["parallel"], ["index"]], ids="+".join)
def test_no_import_circle(parts):
    assert circles(graph(parts)) == [], f"modules of {parts} that import each other (even through a third)"
