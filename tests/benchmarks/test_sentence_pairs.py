"""benchmarks/sentence_pairs.py: rewritten sentences are paired with their input
sentences by position, only within changed paragraphs whose sentence counts
agree, and unchanged sentences are left out (oracle: the pairs listed by hand)."""
import json

from .scripts import load_script

sentence_pairs = load_script("sentence_pairs")

INPUT = ("The applicant was born in [REDACTED] and lives in a small village. He works as a baker in the town.\n\n"
         "The court dismissed the appeal on [REDACTED] after a hearing held in public. It gave no reasons at all.\n\n"
         "The judgment became final three months later, as no party had appealed against it.")
OUTPUT = ("The applicant was born in [REDACTED] and resides in a small village. He works as a baker in the town.\n\n"
          "The appeal was dismissed on [REDACTED]. The hearing was public. No reasons were given.\n\n"
          "No party appealed, so the judgment became final three months later, as the law provides.")


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_pairs_are_the_changed_sentences_of_paragraphs_with_as_many_sentences(tmp_path):
    write(tmp_path / "q.jsonl", [{"id": "a", "text": INPUT}])
    write(tmp_path / "o.jsonl", [{"id": "a", "text": OUTPUT}])
    pairs, paragraphs, paired = sentence_pairs.sentence_pairs(tmp_path / "q.jsonl", tmp_path / "o.jsonl")
    assert paragraphs == 3  # every paragraph changed
    assert paired == 2  # the second split into three sentences: not paired
    assert pairs == [
        ("a", "The applicant was born in [REDACTED] and lives in a small village.",
         "The applicant was born in [REDACTED] and resides in a small village."),
        ("a", "The judgment became final three months later, as no party had appealed against it.",
         "No party appealed, so the judgment became final three months later, as the law provides."),
    ]  # the baker sentence, unchanged, left out
