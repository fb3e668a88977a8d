"""The rows of the evaluation table and how their output files are read.

Every approach writes one JSONL line per document: at least `id` and `text`
(the released text), and what made it: `system` ("llm", "llm_nospans",
"wordnet", "lexical"), `model` (in words), `k` and `max_arity` (None where
nothing was detected). Rewrite-loop outputs also carry `passes` (per-pass
records with LLM calls, tokens and seconds), `forced_redactions`, `safe`,
`text_before_guarantee`, and `verdict` ("source" or "any") with `sources` (the
collection ids detected with; lines written before the verdicts lack both and
were detected under "any"); other fields are ignored. The table's rows depend on the evaluation's
`max_arity` m: span-list rows are keyed `llm_a1`, `llm_a<m>`, `lexical_a<m>`.
"""
import re
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..corpus import Record, iter_json_lines, record_from_obj
from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings


@dataclass(frozen=True)
class System:
    """One row of the paper's table."""

    key: str
    label: str
    paper_key: Optional[str]  # row of the reference table, if the paper has one
    optional: bool = False  # shown only when run (a comparison, not a row of the paper)
    smoke: bool = False  # a live smoke test scored over the documents it covers only (`partial_rows`)


PAPER_ARITY = 3  # the paper's span-list rows are "arity 1" and "arity <= 3"
SPAN_SYSTEMS = ("llm", "lexical")  # line systems whose row depends on the line's max_arity
LLM_ROWS = ("llm_nospans", "llm_a1")  # with llm_a<m>: the rows a GPU run produces
PROVENANCE_FILE = "PROVENANCE.json"  # beside committed outputs: who made each file
TAGS = ("system", "model", "k", "max_arity")  # what every output line records


def _arity(m: int) -> str:
    return "arity 1" if m == 1 else f"arity <= {m}"


def systems_for(max_arity: int = PAPER_ARITY) -> List[System]:
    """The table's rows, in the order of the paper's Table 1 (plus our lexical
    backend and the unchanged input), for span lists of arity 1 and <= max_arity.
    Rows whose arity the paper did not report carry no paper key."""
    m = max_arity
    rows = [
        System("input", "No rewrite (de-identified input d')", None),
        System("llm_nospans", "LLM rewrite, no span list", "LLM rewrite, no span list"),
        System("wordnet", "Handcrafted WordNet paraphrasing", None),
        System("llm_a1", "LLM rewrite, spans of arity 1", "LLM rewrite, spans of arity 1"),
    ]
    if m != 1:
        paper = f"LLM rewrite, spans of {_arity(m)}" if m == PAPER_ARITY else None
        rows.append(System(f"llm_a{m}", f"LLM rewrite, spans of {_arity(m)}", paper))
        # The same loop detecting under the strict verdict, for comparison
        # (`rewrite --verdict any`; evaluate --system llm_a<m>_any=PATH).
        rows.append(System(f"llm_a{m}_any", f"LLM rewrite, spans of {_arity(m)}, any verdict", None, optional=True))
    rows.append(System(f"lexical_a{m}", f"Lexical rewrite, spans of {_arity(m)}", None))
    # A live LLM run over a few documents, beside the row re-scored from
    # committed outputs (`partial_rows`): a smoke test, not a result.
    for row in [r for r in rows if r.key in LLM_ROWS or r.key == f"llm_a{m}"]:
        rows.append(System(f"{row.key}_smoke", f"{row.label}: live smoke test", None, optional=True, smoke=True))
    return rows


SYSTEMS: List[System] = systems_for(PAPER_ARITY)
SYSTEMS_BY_KEY: Dict[str, System] = {s.key: s for s in SYSTEMS}
REQUIRED_ROWS = [s.label for s in SYSTEMS if s.key != "input" and not s.optional]


def get_system(key: str, path: Any = "--system", max_arity: int = PAPER_ARITY) -> System:
    """Look up a row by key. RAISES: LinkguardError E255 for an unknown key."""
    by_key = {s.key: s for s in systems_for(max_arity)}
    if key not in by_key:
        raise LinkguardError(Errors.E255.format(name=key, path=path, known=", ".join(by_key)))
    return by_key[key]


def row_key(tags: Dict[str, Any]) -> Optional[str]:
    """The row of an output file from its lines' tags ("llm" at max_arity 2 ->
    "llm_a2"), or None when the lines carry no `system`."""
    system = tags.get("system")
    if not system:
        return None
    return f"{system}_a{tags.get('max_arity')}" if system in SPAN_SYSTEMS else str(system)


def read_tags(path: Path) -> Dict[str, Any]:
    """{system, model, k, max_arity} of an output file (None where its lines carry none).

    RAISES: LinkguardError E260 when its lines disagree (outputs of two runs in one file).
    """
    seen: Dict[tuple, str] = {}
    for doc_id, obj in read_output_objects(path).items():
        seen.setdefault(tuple(obj.get(t) for t in TAGS), doc_id)
    if len(seen) > 1:
        (first, _), (other, doc_id) = list(seen.items())[:2]
        raise LinkguardError(Errors.E260.format(path=path, doc_id=doc_id, first=dict(zip(TAGS, first)),
                                                other=dict(zip(TAGS, other))))
    values = next(iter(seen), (None,) * len(TAGS))
    return dict(zip(TAGS, values))


def read_output_objects(path: Path) -> Dict[str, Dict[str, Any]]:
    """All lines of an output file as raw JSON objects by id (fields kept).

    Each line is validated like a corpus record (E006-E010).
    """
    objs: Dict[str, Dict[str, Any]] = {}
    for lineno, obj in iter_json_lines(path, hint=" (run the step that writes it)"):
        rec = record_from_obj(obj, path=path, line=lineno)
        obj["id"] = rec.id
        objs[rec.id] = obj
    return objs


def read_outputs(path: Path, queries: Sequence[Record], queries_path: Any = "queries") -> List[Dict[str, Any]]:
    """Read a system's output file, aligned with the query order.

    RETURNS (List[dict]): One raw JSON object per query, in query order.
    RAISES: LinkguardError E253 when a query has no output line.
    """
    by_id = read_output_objects(path)
    out = []
    for q in queries:
        if q.id not in by_id:
            raise LinkguardError(Errors.E253.format(path=path, doc_id=q.id, queries=queries_path))
        out.append(by_id[q.id])
    return out


def _num(value: Any) -> Optional[float]:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    return None


def _first(d: Dict[str, Any], names: Sequence[str]) -> Optional[float]:
    for name in names:
        if name in d:
            v = _num(d[name])
            if v is not None:
                return v
    return None


CALL_KEYS = ("llm_calls", "calls", "n_calls")
PROMPT_KEYS = ("prompt_tokens", "n_prompt_tokens", "tokens_in")
COMPLETION_KEYS = ("completion_tokens", "n_completion_tokens", "tokens_out")
SECONDS_KEYS = ("seconds", "secs", "time_s", "elapsed")


def cost_of(obj: Dict[str, Any]) -> Dict[str, Optional[float]]:
    """LLM calls, tokens, passes, forced redactions and seconds of one output line.

    Top-level fields win; otherwise per-pass records in `passes` are summed.
    A value no record carries is None (e.g. a baseline that calls no LLM
    has 0 calls only if it says so).
    """
    meta = obj.get("meta") or {}
    src = {**meta, **obj}
    passes = src.get("passes") if isinstance(src.get("passes"), list) else []
    out: Dict[str, Optional[float]] = {}
    for field, keys in (("llm_calls", CALL_KEYS), ("prompt_tokens", PROMPT_KEYS),
                        ("completion_tokens", COMPLETION_KEYS), ("seconds", SECONDS_KEYS)):
        val = _first(src, keys)
        if val is None and passes:
            vals = [_first(p, keys) for p in passes if isinstance(p, dict)]
            vals = [v for v in vals if v is not None]
            val = sum(vals) if vals else None
        out[field] = val
    out["passes"] = float(len(passes)) if passes else _first(src, ("n_passes",))
    out["forced_redactions"] = _first(src, ("forced_redactions", "n_forced"))
    return out


DETECTION_FIELDS = ("verdict", "safe", "forced_redactions", "text_before_guarantee")


def line_verdict(obj: Dict[str, Any]) -> Optional[str]:
    """The verdict one output line was detected with: its `verdict` field;
    "any" for a line of the rewrite loop written before lines stated it (then
    every detection was "any"); None for a line that nothing detected (no
    span list: the LLM without spans, WordNet paraphrasing without --index)."""
    verdict = obj.get("verdict")
    if verdict is not None:
        return str(verdict)
    # A null field is no detection: `paraphrase` without --index writes "safe": null.
    if any(obj.get(name) is not None for name in DETECTION_FIELDS) or isinstance(obj.get("max_arity"), int):
        return "any"
    return None


def row_verdict(objs: Sequence[Dict[str, Any]]) -> Tuple[Optional[str], Dict[str, int]]:
    """A table row's verdict from its output lines (`line_verdict`).

    RETURNS (tuple): (verdict, counts): the verdict all detected lines share
        ("source" or "any"), "mixed" when they differ (`--verdict auto` over
        lines with and without known sources), None when no line was detected;
        counts: verdict -> number of lines.
    """
    counts: Dict[str, int] = {}
    for obj in objs:
        v = line_verdict(obj)
        if v is not None:
            counts[v] = counts.get(v, 0) + 1
    if not counts:
        return None, counts
    return (next(iter(counts)) if len(counts) == 1 else "mixed"), dict(sorted(counts.items()))


_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def system_files(specs: Sequence[str], max_arity: int = PAPER_ARITY) -> List[Tuple[str, Path, Dict[str, Any]]]:
    """The (row key, path, tags) of each `--system` value: "PATH" takes its row
    from the tags its lines record (`row_key`), "KEY=PATH" names it (for files
    written before outputs carried tags). A second file for the same row is
    left out with W252 (at max_arity 1 both span-list runs are `llm_a1`).

    RAISES: LinkguardError E261 (a PATH whose lines name no system), E260, and
        the corpus reader's errors for a missing or malformed file.
    """
    out: List[Tuple[str, Path, Dict[str, Any]]] = []
    for spec in specs:
        key: Optional[str] = None
        if _KEY_RE.match(spec):
            key, _, spec = spec.partition("=")
        path = Path(spec.strip())
        tags = read_tags(path)
        key = key.strip() if key else row_key(tags)
        if key is None:
            known = ", ".join(s.key for s in systems_for(max_arity))
            raise LinkguardError(Errors.E261.format(path=path, known=known))
        first = next((p for k, p, _ in out if k == key), None)
        if first is not None:
            warnings.warn(Warnings.W252.format(path=path, key=key, first=first), LinkguardWarning)
            continue
        out.append((key, path, tags))
    return out


def lines_setting(tags: Sequence[Dict[str, Any]], name: str) -> Optional[int]:
    """The largest `k` or `max_arity` the output files record (None if none does)."""
    values = [t.get(name) for t in tags if isinstance(t.get(name), int)]
    return max(values) if values else None


def read_provenance(folder: Path) -> Dict[str, Dict[str, Any]]:
    """File name -> what produced it (model, machine, commit, date, command,
    note), from FOLDER/PROVENANCE.json; {} when the folder has none.

    RAISES: LinkguardError E263 when the file is not a JSON object of objects.
    """
    import json

    path = Path(folder) / PROVENANCE_FILE
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf8"))
    except (OSError, ValueError) as e:
        raise LinkguardError(Errors.E263.format(path=path, detail=f"{type(e).__name__}: {e}")) from None
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise LinkguardError(Errors.E263.format(path=path, detail="expected {\"FILE.jsonl\": {\"model\": ..., ...}, ...}"))
    return data


def committed_stand_in(path: Path, query_ids: Any, committed: Optional[Path], key: str = "") -> Optional[Path]:
    """The committed output that stands in for `path` when `path` covers only
    some of `query_ids` (a live smoke run): the file of the same name in
    `committed`. None when `path` covers them all, `committed` is None, or
    there is no such file (W253: the row is left out).
    """
    if committed is None or set(query_ids) <= set(read_output_objects(Path(path))):
        return None
    stored = Path(committed) / Path(path).name
    if not stored.is_file():
        warnings.warn(Warnings.W253.format(path=path, key=key or Path(path).stem, stored=stored), LinkguardWarning)
        return None
    return stored


def partial_rows(
    files: Sequence[Tuple[str, Path, Dict[str, Any]]],
    query_ids: Sequence[str],
    committed: Optional[Path],
    max_arity: int = PAPER_ARITY,
) -> Tuple[List[Tuple[str, Path, Dict[str, Any]]], Dict[str, Dict[str, Any]]]:
    """Rows for LLM outputs that cover only some of the queries (a live smoke
    run): the row is scored from the committed output of the same file name in
    `committed` (`committed_stand_in`; left out with W253 when there is none)
    and the live file becomes the row's smoke test (`<key>_smoke`, scored over
    its own documents) unless it is empty (the smoke test did not run that
    step live). Files that cover every query, and every file when
    `committed` is None, are kept as they are.

    RETURNS (tuple): (files, provenance): the (key, path, tags) rows, and row
        key -> {"file", **what PROVENANCE.json says of it} for rows scored from
        committed outputs.
    RAISES: LinkguardError E263 (malformed PROVENANCE.json).
    """
    llm_keys = set(LLM_ROWS) | {f"llm_a{max_arity}"}
    if committed is None:
        return list(files), {}
    wanted = set(query_ids)
    known = read_provenance(committed)
    out: List[Tuple[str, Path, Dict[str, Any]]] = []
    provenance: Dict[str, Dict[str, Any]] = {}
    for key, path, tags in files:
        live = read_output_objects(path)
        if key not in llm_keys or wanted <= set(live):
            out.append((key, path, tags))
            continue
        stored = committed_stand_in(path, wanted, committed, key)
        if stored is not None:
            out.append((key, stored, read_tags(stored)))
            provenance[key] = {"file": str(stored), **known.get(path.name, {})}
        if live:
            out.append((f"{key}_smoke", path, tags))
    return out, provenance
