"""Reading approaches' output files and their cost fields."""
import json

import pytest

from spacy_linkguard.corpus import Record
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.eval.systems import REQUIRED_ROWS, cost_of, get_system, read_outputs


def test_cost_sums_passes_unless_given_at_top_level():
    obj = {"id": "a", "text": "x", "forced_redactions": 2,
           "passes": [{"llm_calls": 2, "prompt_tokens": 10, "completion_tokens": 4, "seconds": 1.5},
                      {"llm_calls": 1, "prompt_tokens": 5, "completion_tokens": 1, "seconds": 0.5}]}
    c = cost_of(obj)
    assert c == {"llm_calls": 3.0, "prompt_tokens": 15.0, "completion_tokens": 5.0, "seconds": 2.0,
                 "passes": 2.0, "forced_redactions": 2.0}
    obj["seconds"] = 9.0
    assert cost_of(obj)["seconds"] == 9.0
    assert cost_of({"id": "b", "text": "y"})["llm_calls"] is None
    assert cost_of({"id": "b", "text": "y", "llm_calls": 0})["llm_calls"] == 0.0


def test_read_outputs_aligns_and_reports_missing(tmp_path):
    path = tmp_path / "out.jsonl"
    path.write_text("\n".join(json.dumps({"id": i, "text": i.upper(), "extra": 1}) for i in ["b", "a"]) + "\n")
    queries = [Record("a", "a"), Record("b", "b")]
    objs = read_outputs(path, queries)
    assert [o["id"] for o in objs] == ["a", "b"] and objs[0]["extra"] == 1
    with pytest.raises(LinkguardError, match="E253"):
        read_outputs(path, queries + [Record("c", "c")])


def test_rows_and_unknown_system():
    assert REQUIRED_ROWS == [
        "LLM rewrite, no span list",
        "Handcrafted WordNet paraphrasing",
        "LLM rewrite, spans of arity 1",
        "LLM rewrite, spans of arity <= 3",
        "Lexical rewrite, spans of arity <= 3",
    ]
    with pytest.raises(LinkguardError, match="E255"):
        get_system("gpt")
