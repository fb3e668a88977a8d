"""Reading approaches' output files and their cost fields."""
import json

import pytest

from spacy_linkguard.corpus import Record
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.experiments.systems import REQUIRED_ROWS, cost_of, get_system, read_outputs


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


def _write(path, lines):
    path.write_text("\n".join(json.dumps(obj) for obj in lines) + "\n")
    return path


def test_rows_follow_max_arity():
    from spacy_linkguard.experiments.systems import systems_for

    two = systems_for(2)
    assert [s.key for s in two] == ["input", "llm_nospans", "wordnet", "llm_a1", "llm_a2", "llm_a2_any",
                                    "lexical_a2", "llm_nospans_smoke", "llm_a1_smoke", "llm_a2_smoke"]
    assert [s.key for s in two if s.optional] == ["llm_a2_any", "llm_nospans_smoke", "llm_a1_smoke", "llm_a2_smoke"]
    assert [s.key for s in two if s.smoke] == ["llm_nospans_smoke", "llm_a1_smoke", "llm_a2_smoke"]
    assert get_system("llm_a1_smoke", max_arity=2).label == "LLM rewrite, spans of arity 1: live smoke test"
    assert get_system("llm_a2_any", max_arity=2).label == "LLM rewrite, spans of arity <= 2, any verdict"
    assert next(s for s in two if s.key == "llm_a2").label == "LLM rewrite, spans of arity <= 2"
    assert next(s for s in two if s.key == "llm_a2").paper_key is None  # the paper reports arity <= 3 only
    assert [s.key for s in systems_for(1)] == ["input", "llm_nospans", "wordnet", "llm_a1", "lexical_a1",
                                               "llm_nospans_smoke", "llm_a1_smoke"]
    assert get_system("llm_a2", max_arity=2).key == "llm_a2"
    with pytest.raises(LinkguardError, match="E255"):
        get_system("llm_a3", max_arity=2)


def test_system_files_take_their_rows_from_the_lines(tmp_path):
    from spacy_linkguard.experiments.systems import lines_setting, row_key, system_files

    tags = {"system": "llm", "model": "m (linkguard.HF.v1, cpu)", "k": 2, "max_arity": 2}
    llm = _write(tmp_path / "llm.jsonl", [{"id": "a", "text": "x", **tags}, {"id": "b", "text": "y", **tags}])
    lex = _write(tmp_path / "lex.jsonl", [{"id": "a", "text": "x", **tags, "system": "lexical"}])
    nosp = _write(tmp_path / "nosp.jsonl", [{"id": "a", "text": "x", **tags, "system": "llm_nospans",
                                             "k": None, "max_arity": None}])
    old = _write(tmp_path / "old.jsonl", [{"id": "a", "text": "x"}])
    files = system_files([str(llm), str(lex), str(nosp), f"wordnet={old}"])
    assert [(k, p.name) for k, p, _ in files] == [("llm_a2", "llm.jsonl"), ("lexical_a2", "lex.jsonl"),
                                                  ("llm_nospans", "nosp.jsonl"), ("wordnet", "old.jsonl")]
    assert files[0][2] == tags
    assert lines_setting([t for _, _, t in files], "max_arity") == 2
    assert row_key({"system": "llm", "max_arity": 1}) == "llm_a1" and row_key({}) is None
    # Old lines name no system: a coded error says to name the row.
    with pytest.raises(LinkguardError, match="E261"):
        system_files([str(old)])
    # Two runs in one file.
    mixed = _write(tmp_path / "mixed.jsonl", [{"id": "a", "text": "x", **tags},
                                              {"id": "b", "text": "y", **tags, "max_arity": 3}])
    with pytest.raises(LinkguardError, match="E260"):
        system_files([str(mixed)])
    # A second file for the same row (max_arity 1: both span-list runs are llm_a1) is left out.
    with pytest.warns(Warning, match="W252"):
        assert len(system_files([str(llm), str(llm)])) == 1


def test_row_verdict_from_the_lines():
    from spacy_linkguard.experiments.systems import line_verdict, row_verdict

    src = {"id": "a", "text": "x", "verdict": "source", "sources": ["a"], "safe": True, "forced_redactions": 0}
    anyv = {"id": "b", "text": "y", "verdict": "any", "sources": None, "safe": True, "forced_redactions": 2}
    old = {"id": "c", "text": "z", "safe": True, "text_before_guarantee": "z", "forced_redactions": 0}
    nospans = {"id": "d", "text": "w", "passes": [], "system": "llm_nospans", "k": None, "max_arity": None}
    wordnet = {"id": "e", "text": "v", "mode": "document", "system": "wordnet", "max_arity": None}
    assert [line_verdict(o) for o in (src, anyv, old, nospans, wordnet)] == ["source", "any", "any", None, None]
    assert row_verdict([src, src]) == ("source", {"source": 2})
    assert row_verdict([anyv]) == ("any", {"any": 1})
    # written before lines stated a verdict: the loop then always detected under any
    assert row_verdict([old, old]) == ("any", {"any": 2})
    # --verdict auto over lines with and without known sources
    assert row_verdict([src, anyv, src]) == ("mixed", {"any": 1, "source": 2})
    # nothing detected
    assert row_verdict([nospans, wordnet]) == (None, {})
    assert row_verdict([]) == (None, {})


def test_unknown_row_is_refused_before_any_row_is_scored(tmp_path):
    """An unknown key among the rows is E255 before the input is detected and
    any row scored (it used to come after the rows before it, an hour in)."""
    from spacy_linkguard.experiments.evaluate import evaluate_systems

    class Untouchable:
        """A detector that fails the test if the evaluation uses it."""

        def __getattr__(self, name):
            raise AssertionError(f"detector.{name} used before the rows were checked")

    good = _write(tmp_path / "good.jsonl", [{"id": "a", "text": "x"}])
    with pytest.raises(LinkguardError, match="E255.*'spans_a3'"):
        evaluate_systems([Record("a", "x")], [("llm_a1", good), ("spans_a3", good)],
                         detectors={3: Untouchable()}, progress=False)
