"""The rows of the evaluation table and how their output files are read.

Every approach writes one JSONL line per document: at least `id` and `text`
(the released text). Rewrite-loop outputs also carry `passes` (per-pass
records with LLM calls, tokens and seconds), `forced_redactions` and `safe`;
other fields are ignored.
"""
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ..corpus import Record, iter_json_lines, record_from_obj
from ..errors import Errors, LinkguardError


@dataclass(frozen=True)
class System:
    """One row of the paper's table."""

    key: str
    label: str
    paper_key: Optional[str]  # row of the reference table, if the paper has one


# Row order of the paper's Table 1 (plus our lexical backend and the unchanged input).
SYSTEMS: List[System] = [
    System("input", "No rewrite (de-identified input d')", None),
    System("llm_nospans", "LLM rewrite, no span list", "LLM rewrite, no span list"),
    System("wordnet", "Handcrafted WordNet paraphrasing", None),
    System("llm_a1", "LLM rewrite, spans of arity 1", "LLM rewrite, spans of arity 1"),
    System("llm_a3", "LLM rewrite, spans of arity <= 3", "LLM rewrite, spans of arity <= 3"),
    System("lexical_a3", "Lexical rewrite, spans of arity <= 3", None),
]
SYSTEMS_BY_KEY: Dict[str, System] = {s.key: s for s in SYSTEMS}
REQUIRED_ROWS = [s.label for s in SYSTEMS if s.key != "input"]


def get_system(key: str, path: Any = "--system") -> System:
    """Look up a row by key. RAISES: LinkguardError E255 for an unknown key."""
    if key not in SYSTEMS_BY_KEY:
        raise LinkguardError(Errors.E255.format(name=key, path=path, known=", ".join(SYSTEMS_BY_KEY)))
    return SYSTEMS_BY_KEY[key]


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
