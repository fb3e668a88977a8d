"""The README's result table says what the committed report says.

Every figure of the table under "How good is the result" is the figure of
`reports/echr/report.md` for the same row and column, as rounded there (the
paper's value and the confidence interval left off). The figures a person
read by hand are not in the report; they must be those docs/results.md gives.
When the report is written again, update the README's figures by hand: this
test names each stale one. A new README row or column needs a line in ROWS or
COLUMNS below.
"""
import re
from pathlib import Path
from typing import Dict, List, Tuple

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
REPORT = REPO / "reports" / "echr" / "report.md"
RESULTS = REPO / "docs" / "results.md"
SECTION = "## How good is the result"

# README row -> the report's row label
ROWS = {
    "de-identified input": "No rewrite (de-identified input d')",
    "free rewrite, no span list": "LLM rewrite, no span list (re-scored)",
    "shipped, arity 1": "LLM rewrite, spans of arity 1 (re-scored)",
    "shipped, arity <= 3": "LLM rewrite, spans of arity <= 3 (re-scored)",
}
# README column -> the report's column (Table 1 or Table 2)
COLUMNS = {
    "still linked, 1 phrase": "doc. linkage rate, source (k=2, arity 1)",
    "still linked, up to 3": "doc. linkage rate, source (k=2, arity <= 3)",
    "ranked first": "source top-1, BM25",
    "placeholders": "placeholders added / doc",
    "perplexity": "perplexity vs input",
}
# README columns read by hand: "N of M" as docs/results.md gives it, or "–" (not read)
HAND_READ = {"a reader accepts"}
NOT_READ = "–"

Table = Dict[Tuple[str, str], str]


def markdown_tables(text: str) -> List[List[List[str]]]:
    """Every Markdown table of `text`: its rows (header first) as lists of cells."""
    tables: List[List[List[str]]] = []
    current: List[List[str]] = []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if not all(set(c) <= set("-: ") for c in cells):  # the |---| line
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def cells(table: List[List[str]]) -> Table:
    header, *rows = table
    return {(row[0], col): value for row in rows for col, value in zip(header[1:], row[1:])}


def figure(cell: str) -> str:
    """A report cell's own figure: '0.000 (paper 0.001)' -> '0.000', '0.992 [0.957, 0.999]' -> '0.992'."""
    return re.sub(r"\s*[(\[].*$", "", cell)


def readme_section(readme: str) -> str:
    start = readme.index(SECTION)
    end = readme.find("\n## ", start + len(SECTION))
    return readme[start:] if end < 0 else readme[start:end]


def report_figures(report: str) -> Table:
    merged: Table = {}
    for table in markdown_tables(report):
        if table[0][0] == "approach":
            merged.update({key: figure(v) for key, v in cells(table).items()})
    return merged


def row_models(report: str) -> Dict[str, str]:
    """The model each row of "Where each row comes from" names, e.g. 'Qwen2.5-Coder-1.5B-Instruct'."""
    found = re.findall(r"^- \*\*(.+?)\*\*:.*?\bmodel: ([^,;(]+)", report, flags=re.M)
    return {label: model.strip() for label, model in found}


def mismatches(readme: str, report: str, results: str) -> List[str]:
    """What in the README's result section the report or docs/results.md does not say."""
    section = readme_section(readme)
    tables = markdown_tables(section)
    if len(tables) != 1:
        return [f"{SECTION!r} has {len(tables)} tables, not one"]
    header = tables[0][0]
    ours = cells(tables[0])
    theirs = report_figures(report)
    read = " ".join(results.split())
    problems = [f"README column {c!r}: not in COLUMNS or HAND_READ" for c in header[1:]
                if c not in COLUMNS and c not in HAND_READ]
    problems += [f"README row {r!r}: not in ROWS" for r in {r for r, _ in ours} if r not in ROWS]
    problems += [f"README row {r!r}: missing" for r in ROWS if (r, header[-1]) not in ours]
    for (row, col), value in sorted(ours.items()):
        if col in HAND_READ:
            if value != NOT_READ and not (re.fullmatch(r"\d+ of \d+", value)
                                          and re.search(rf"(?<![\d,]){re.escape(value)}\b", read)):
                problems.append(f"{row} / {col}: {value!r} is not a reading docs/results.md gives")
            continue
        if row not in ROWS or col not in COLUMNS:
            continue
        key = (ROWS[row], COLUMNS[col])
        if key not in theirs:
            problems.append(f"{row} / {col}: the report has no row {key[0]!r} with column {key[1]!r}")
        elif theirs[key] != value:
            problems.append(f"{row} / {col}: README {value!r}, report {theirs[key]!r}")
    n_docs = re.search(r"(\d+) released\s+documents", report)
    if not n_docs or f"{n_docs.group(1)} ECHR test documents" not in " ".join(section.split()):
        problems.append(f"the section does not give the report's number of documents ({n_docs and n_docs.group(1)})")
    models = row_models(report)
    for row, label in ROWS.items():
        if label in models and models[label] not in section:
            problems.append(f"{row}: the report's model {models[label]!r} is not named in the section")
    return problems


def _texts():
    return README.read_text(encoding="utf-8"), REPORT.read_text(encoding="utf-8"), RESULTS.read_text(encoding="utf-8")


def _set_cell(markdown: str, row: str, col: str, value: str) -> str:
    """`markdown` with one cell replaced: column `col` of the table row labelled `row`."""
    lines = markdown.splitlines(keepends=True)
    header = None
    for i, line in enumerate(lines):
        if not line.startswith("|"):
            header = None
            continue
        cells_ = [c.strip() for c in line.strip().strip("|").split("|")]
        if header is None:
            header = cells_
        elif cells_[0] == row and col in header:
            cells_[header.index(col)] = value
            lines[i] = "| " + " | ".join(cells_) + " |\n"
            return "".join(lines)
    raise AssertionError(f"no row {row!r} in a table with column {col!r}")


def test_readme_result_figures_are_the_reports():
    problems = mismatches(*_texts())
    assert not problems, "README.md 'How good is the result' disagrees:\n" + "\n".join(problems)


def test_the_readme_keeps_its_result_table_small():
    readme, _, _ = _texts()
    (table,) = markdown_tables(readme_section(readme))
    assert len(table) - 1 == len(ROWS) and len(table[0]) - 1 <= 7
    assert len(readme_section(readme).splitlines()) <= 30
    assert len(readme.splitlines()) <= 200
    assert "(docs/results.md" in readme_section(readme)


def test_a_changed_figure_fails_either_way():
    readme, report, results = _texts()
    # a README figure that the report does not give
    tampered = _set_cell(readme, "shipped, arity <= 3", "ranked first", "0.237")
    assert mismatches(tampered, report, results) == [
        "shipped, arity <= 3 / ranked first: README '0.237', report '0.236'"]
    # the report written again: the README is stale
    stale = _set_cell(report, "LLM rewrite, spans of arity 1 (re-scored)", "perplexity vs input", "1.07x")
    assert mismatches(readme, stale, results) == ["shipped, arity 1 / perplexity: README '1.04x', report '1.07x'"]
    # a reading docs/results.md does not give
    tampered = _set_cell(readme, "shipped, arity 1", "a reader accepts", "11 of 20")
    assert len(mismatches(tampered, report, results)) == 1
    # a row the report no longer has, a README row without a mapping, another model
    assert "the report has no row" in mismatches(readme, report.replace("(re-scored)", "(redone)"), results)[0]
    extra = readme.replace("| shipped, arity 1 |", "| arity 1 |")
    assert "README row 'arity 1': not in ROWS" in mismatches(extra, report, results)
    other = report.replace("model: Qwen2.5-Coder-1.5B-Instruct", "model: Qwen3-4B")
    assert any("Qwen3-4B" in p for p in mismatches(readme, other, results))


def test_figure_drops_the_papers_value_and_the_interval():
    assert figure("0.000 (paper 0.001)") == "0.000"
    assert figure("0.992 [0.957, 0.999]") == "0.992"
    assert figure("1.04x") == "1.04x" and figure("–") == "–"
