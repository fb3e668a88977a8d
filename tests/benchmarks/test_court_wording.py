"""benchmarks/court_wording.py: a word counts only where the output has it as a whole word and its input has not."""
import gzip
import json
import subprocess
import sys

from .scripts import BENCHMARKS, load_script

court_wording = load_script("court_wording")

INPUTS = {
    "bio": "She played table tennis for her club and won a national title in 1998.",
    "case": "The applicant complained to the court about the length of the proceedings.",
}


def test_only_words_absent_from_the_input_count():
    outputs = {
        "bio": "The applicant played table tennis; the Court of her club gave her a title. The applicant won.",
        "case": "The applicant complained to the court about how long the proceedings took.",
    }
    result = court_wording.count(INPUTS, outputs)
    assert result["docs"] == 2 and result["docs_with"] == 1
    assert result["by_word"] == {"applicant": 2, "court": 1} and result["occurrences"] == 3


def test_whole_words_only_and_case_folded():
    outputs = {"bio": "She played in the courtyard of the Applicants' club.", "case": INPUTS["case"]}
    # "courtyard" is not "court"; "Applicants" is the plural entry, not "applicant"
    assert court_wording.count(INPUTS, outputs)["by_word"] == {"applicants": 1}


def test_ids_restrict_the_documents_counted():
    outputs = {"bio": "The defendant played table tennis.", "case": "The defendant complained."}
    assert court_wording.count(INPUTS, outputs, ids={"case"}) == {
        "docs": 1, "docs_with": 1, "occurrences": 1, "by_word": {"defendant": 1}}


def test_the_command_reads_gzip_and_prints_one_json_object(tmp_path):
    queries = tmp_path / "q.jsonl"
    queries.write_text("".join(json.dumps({"id": k, "text": v}) + "\n" for k, v in INPUTS.items()), encoding="utf-8")
    out = tmp_path / "o.jsonl.gz"
    with gzip.open(out, "wt", encoding="utf-8") as f:
        f.write(json.dumps({"id": "bio", "text": "The tribunal saw her play."}) + "\n")
    run = subprocess.run([sys.executable, str(BENCHMARKS / "court_wording.py"), str(queries), str(out)],
                         capture_output=True, text=True, check=True)
    result = json.loads(run.stdout)
    assert result["outputs"]["o.jsonl.gz"] == {"docs": 1, "docs_with": 1, "occurrences": 1,
                                               "by_word": {"tribunal": 1}}
