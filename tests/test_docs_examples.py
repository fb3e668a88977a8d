"""Every fenced ```bash and ```python block of README.md and docs/*.md runs.

The blocks of a page run in order in one working folder of their own (a later
block may read what an earlier one wrote), with the bundled `assets/`,
`configs/`, `project.yml` and the package sources (the project's steps list
them as inputs) and, when `make models` fetched them, `models/` beside it, and the
index of the bundled ECHR collection at `indexes/echr` (built once per session;
a page that builds it again replaces its own copy). Bash blocks run under
`bash -euo pipefail`, Python blocks as scripts of this interpreter (each block
is a whole program: a user copies it as it is), `python` on the PATH is this
interpreter too.

A block is skipped only when the HTML comment right above it says so, with the
reason printed in pytest's summary (`-ra`):

    <!-- example: skip reason="needs a GPU" -->

    <!-- example: needs="verdict" -->   the verdict interface (Detector.detect(text,
                                        sources=...), --verdict): skipped, with a
                                        reason, only where this checkout lacks it

A broken example fails (see `test_runner_*` below, on a small fake page).
"""
import inspect
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[1]
# Pages with examples: the README and the guide. SPEC.md and ARCHITECTURE.md hold
# interface sketches (not programs) and are not run.
NOT_RUN = {"SPEC.md", "ARCHITECTURE.md"}
LANGUAGES = {"bash": "bash", "sh": "bash", "console": None, "python": "python", "py": "python"}
TIMEOUT_S = 600

FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>[^\n`]*)$")
MARKER = re.compile(r"^<!--\s*example:\s*(?P<body>.*?)\s*-->\s*$")
MARKER_ITEM = re.compile(r'(?P<key>[a-z_]+)(?:="(?P<value>[^"]*)")?')


@dataclass
class Example:
    page: Path
    line: int            # 1-based line of the opening fence
    language: str        # "bash" | "python"
    code: str
    skip: Optional[str] = None      # reason, from <!-- example: skip reason="..." -->
    needs: Optional[str] = None     # e.g. "verdict"

    @property
    def name(self) -> str:
        return f"{self.page.name}:{self.line}"


def doc_pages(repo: Path = REPO) -> List[Path]:
    pages = [repo / "README.md"] + sorted((repo / "docs").glob("*.md"))
    return [p for p in pages if p.name not in NOT_RUN]


def parse_marker(line: str) -> Optional[Dict[str, str]]:
    m = MARKER.match(line.strip())
    if not m:
        return None
    return {i.group("key"): i.group("value") or "" for i in MARKER_ITEM.finditer(m.group("body"))}


def extract_examples(page: Path) -> List[Example]:
    """The ```bash / ```python blocks of a Markdown page, in order, with their markers.

    A marker is the last non-blank line before the opening fence. Blocks in other
    languages (ini, json, text) are not examples. An unclosed fence is an error.
    """
    lines = page.read_text(encoding="utf-8").splitlines()
    examples: List[Example] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, info = m.group("fence"), m.group("info").strip()
        start = i
        body: List[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i])
            i += 1
        if i == len(lines):
            raise ValueError(f"{page.name}:{start + 1}: code block never closed")
        i += 1
        language = LANGUAGES.get(info.split()[0].lower() if info else "")
        if language is None:
            continue
        marker: Dict[str, str] = {}
        j = start - 1
        while j >= 0 and not lines[j].strip():
            j -= 1
        if j >= 0:
            marker = parse_marker(lines[j]) or {}
        if "skip" in marker and not marker.get("reason"):
            raise ValueError(f"{page.name}:{start + 1}: `example: skip` needs reason=\"...\"")
        examples.append(Example(page=page, line=start + 1, language=language, code="\n".join(body) + "\n",
                                skip=marker.get("reason") if "skip" in marker else None,
                                needs=marker.get("needs")))
    return examples


def verdict_interface() -> bool:
    """True where Detector.detect takes `sources` (the source/any verdicts of SPEC.md)."""
    from spacy_linkguard.detect import Detector

    return "sources" in inspect.signature(Detector.detect).parameters


def missing_need(example: Example) -> Optional[str]:
    if example.needs is None:
        return None
    if example.needs == "verdict":
        if verdict_interface():
            return None
        return ("uses the verdict interface (--verdict, sources), which this checkout's "
                "Detector.detect does not have yet")
    raise ValueError(f"{example.name}: unknown need {example.needs!r}")


def example_env() -> Dict[str, str]:
    env = dict(os.environ)
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    return env


def prepare_workdir(workdir: Path, repo: Path = REPO, index: Optional[Path] = None) -> Path:
    """A fresh folder that looks like a checkout to the examples: the bundled data and
    configs (read-only links), models if fetched, and a copy of the ECHR index."""
    workdir.mkdir(parents=True, exist_ok=True)
    for name in ("assets", "configs", "models", "project.yml", "scripts", "spacy_linkguard"):
        if (repo / name).exists() and not (workdir / name).exists():
            (workdir / name).symlink_to(repo / name)
    if index is not None:
        target = workdir / "indexes" / "echr"
        target.parent.mkdir(exist_ok=True)
        # hard links: a page that rebuilds the index replaces the folder, never these files
        shutil.copytree(index, target, copy_function=os.link)
    return workdir


def run_example(example: Example, workdir: Path, timeout: int = TIMEOUT_S) -> subprocess.CompletedProcess:
    if example.language == "bash":
        cmd = ["bash", "-euo", "pipefail", "-c", example.code]
    else:
        script = workdir / f".example_{example.page.stem}_{example.line}.py"
        script.write_text(example.code, encoding="utf-8")
        cmd = [sys.executable, script.name]
    return subprocess.run(cmd, cwd=workdir, env=example_env(), capture_output=True, text=True,
                          timeout=timeout)


def failure_message(example: Example, proc: subprocess.CompletedProcess) -> str:
    def tail(s: str, n: int = 4000) -> str:
        return s if len(s) <= n else "...\n" + s[-n:]

    return (f"example {example.name} ({example.language}) exited with {proc.returncode}\n"
            f"--- code ---\n{example.code}--- stdout ---\n{tail(proc.stdout)}\n--- stderr ---\n{tail(proc.stderr)}")


# ---------------------------------------------------------------------------
# The pages' examples

ALL_EXAMPLES = [ex for page in doc_pages() for ex in extract_examples(page)]
_workdirs: Dict[Path, Path] = {}
_failed: Dict[Path, str] = {}


@pytest.fixture(scope="session")
def echr_index(tmp_path_factory):
    """The index of assets/echr/collection.jsonl, built once for every page."""
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.index import NgramIndex

    path = tmp_path_factory.mktemp("docs-index") / "echr"
    NgramIndex.build(iter_records(REPO / "assets" / "echr" / "collection.jsonl"), path, progress=False)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("example", ALL_EXAMPLES, ids=[ex.name for ex in ALL_EXAMPLES])
def test_doc_example(example, tmp_path_factory, echr_index):
    if example.skip:
        pytest.skip(f"doc example {example.name}: {example.skip}")
    reason = missing_need(example)
    if reason:
        pytest.skip(f"doc example {example.name}: {reason}")
    if example.page in _failed:
        pytest.skip(f"doc example {example.name}: an earlier example of this page failed ({_failed[example.page]})")
    if example.page not in _workdirs:
        _workdirs[example.page] = prepare_workdir(tmp_path_factory.mktemp(f"doc-{example.page.stem}"),
                                                  index=echr_index)
    proc = run_example(example, _workdirs[example.page])
    if proc.returncode != 0:
        _failed[example.page] = example.name
        pytest.fail(failure_message(example, proc), pytrace=False)


MAX_SKIP_MARKERS = 10  # 10th: scaling.md, rewrite --scheduler on a GPU Dask cluster
NO_EXAMPLES_NEEDED = {"results.md"}  # figures and the commands that made them (benchmarks, minutes to hours)


def test_every_page_has_runnable_examples():
    """Each guide page shows what to do, and most of its examples run here."""
    for page in doc_pages():
        if page.name in NO_EXAMPLES_NEEDED:
            continue
        examples = extract_examples(page)
        assert examples, f"{page.name} has no ```bash or ```python example"
    skipped = [ex for ex in ALL_EXAMPLES if ex.skip]
    print(f"{len(ALL_EXAMPLES)} doc examples, {len(skipped)} marked skip, "
          f"{sum(ex.needs == 'verdict' for ex in ALL_EXAMPLES)} need the verdict interface")
    assert len(skipped) < len(ALL_EXAMPLES) / 2
    # A new skip marker is a decision: raise this count on purpose, with the reason in the page.
    assert len(skipped) <= MAX_SKIP_MARKERS, (
        f"{len(skipped)} examples are marked skip (at most {MAX_SKIP_MARKERS}): "
        + ", ".join(f"{ex.name} ({ex.skip})" for ex in skipped))


# ---------------------------------------------------------------------------
# The runner itself, on a small fake page (keeps "a broken example fails CI" checked)

FAKE_PAGE = """# A page

Some text.

```bash
echo hello > out.txt
```

<!-- example: skip reason="needs a GPU" -->
```bash
nvidia-smi
```

```ini
[not] = "an example"
```

```python
from pathlib import Path
assert Path("out.txt").read_text() == "hello\\n"
```

<!-- example: needs="verdict" -->
```bash
python -m spacy_linkguard detect q.jsonl --index DIR --verdict source
```

```bash
echo before
false
echo never
```
"""


def test_runner_extracts_blocks_and_markers(tmp_path):
    page = tmp_path / "fake.md"
    page.write_text(FAKE_PAGE)
    examples = extract_examples(page)
    assert [(ex.language, ex.line) for ex in examples] == [
        ("bash", 5), ("bash", 10), ("python", 18), ("bash", 24), ("bash", 28)]
    assert examples[1].skip == "needs a GPU"
    assert examples[3].needs == "verdict" and examples[3].skip is None
    assert [ex.skip for ex in examples if ex is not examples[1]] == [None] * 4


def test_runner_runs_in_order_and_a_broken_example_fails(tmp_path):
    page = tmp_path / "fake.md"
    page.write_text(FAKE_PAGE)
    workdir = prepare_workdir(tmp_path / "work")
    assert (workdir / "assets" / "echr" / "collection.jsonl").exists()
    ex = extract_examples(page)
    assert run_example(ex[0], workdir).returncode == 0
    assert run_example(ex[2], workdir).returncode == 0  # reads what the first block wrote
    broken = run_example(ex[4], workdir)
    assert broken.returncode != 0  # `set -e`: the block stops at `false`
    assert "before" in broken.stdout and "never" not in broken.stdout
    assert "exited with" in failure_message(ex[4], broken)


def test_runner_python_failure_and_pipefail(tmp_path):
    page = tmp_path / "fake.md"
    page.write_text("```python\nraise SystemExit('boom')\n```\n\n```bash\nfalse | cat\n```\n")
    workdir = prepare_workdir(tmp_path / "work")
    py, sh = extract_examples(page)
    proc = run_example(py, workdir)
    assert proc.returncode != 0 and "boom" in proc.stderr
    assert run_example(sh, workdir).returncode != 0


def test_runner_rejects_a_skip_without_reason_and_an_unclosed_fence(tmp_path):
    page = tmp_path / "fake.md"
    page.write_text("<!-- example: skip -->\n```bash\ntrue\n```\n")
    with pytest.raises(ValueError, match="reason"):
        extract_examples(page)
    page.write_text("```bash\ntrue\n")
    with pytest.raises(ValueError, match="never closed"):
        extract_examples(page)


def test_runner_needs_verdict_matches_the_interface():
    ex = Example(page=Path("x.md"), line=1, language="bash", code="true\n", needs="verdict")
    assert (missing_need(ex) is None) == verdict_interface()


# ---------------------------------------------------------------------------
# Links between the pages

LINK = re.compile(r"\]\((?!https?://|mailto:)([^)\s]+)\)")


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[`*]", "", heading.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", text))


def anchors(page: Path) -> set:
    lines = page.read_text(encoding="utf-8").splitlines()
    heads, fenced = set(), False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            heads.add(slug(line.lstrip("#")))
    return heads


@pytest.mark.parametrize("page", doc_pages() + [REPO / "benchmarks" / "README.md"], ids=lambda p: p.name)
def test_relative_links_resolve(page):
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        assert dest.exists(), f"{page.name}: link to {target}: no such file"
        if anchor and dest.suffix == ".md":
            assert anchor in anchors(dest), f"{page.name}: link to {target}: no such heading"
