"""benchmarks/read_sample.py: the changed paragraphs it draws are exactly the aligned
pairs of the paragraph metric whose texts differ, and the draw is the seeded sample."""
import json
import random
import subprocess
import sys

from .scripts import BENCHMARKS, load_script

read_sample = load_script("read_sample")

INPUT = ("The applicant was born in [REDACTED] and lives in a small village near the coast.\n\n"
         "Short heading\n\n"
         "The court dismissed the appeal on [REDACTED] after a hearing held in public.\n\n"
         "The judgment became final three months later, as no party had appealed.")
OUTPUT = ("The applicant was born in [REDACTED] and resides in a small village close to the sea.\n\n"
          "Short heading changed\n\n"
          "The court dismissed the appeal on [REDACTED] after a hearing held in public.\n\n"
          "No party appealed, so the judgment became final three months later.")


def write(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def test_changed_pairs_are_the_differing_pairs_of_eight_words_or_more(tmp_path):
    write(tmp_path / "q.jsonl", [{"id": "a", "text": INPUT}, {"id": "b", "text": INPUT}])
    write(tmp_path / "o.jsonl", [{"id": "b", "text": INPUT}, {"id": "a", "text": OUTPUT}])
    pairs = read_sample.changed_pairs(tmp_path / "q.jsonl", tmp_path / "o.jsonl")
    # brute force: paragraphs by blank lines, paired by position (same count), 8+ words, differing
    a_in, a_out = INPUT.split("\n\n"), OUTPUT.split("\n\n")
    want = [("a", x, y) for x, y in zip(a_in, a_out) if len(x.split()) >= 8 and x != y]
    assert pairs == want
    assert [p[2] for p in pairs] == [a_out[0], a_out[3]]  # the unchanged third and the short heading left out


def test_the_script_prints_the_seeded_draw(tmp_path):
    records = [{"id": str(i), "text": INPUT} for i in range(5)]
    write(tmp_path / "q.jsonl", records)
    write(tmp_path / "o.jsonl", [{"id": r["id"], "text": OUTPUT} for r in records])
    run = subprocess.run([sys.executable, str(BENCHMARKS / "read_sample.py"), str(tmp_path / "q.jsonl"),
                          str(tmp_path / "o.jsonl"), "--n", "3", "--seed", "7"],
                         capture_output=True, text=True, check=True)
    pairs = read_sample.changed_pairs(tmp_path / "q.jsonl", tmp_path / "o.jsonl")
    drawn = random.Random(7).sample(pairs, 3)
    assert run.stdout.splitlines()[0] == "changed paragraphs 10; drawn 3 with random.Random(7).sample"
    assert [line[len("OUT: "):] for line in run.stdout.splitlines() if line.startswith("OUT: ")] == [d[2] for d in drawn]
    assert [line.split()[2] for line in run.stdout.splitlines() if line.startswith("### ")] == [d[0] for d in drawn]


def test_the_paired_draw_shows_every_rows_output_under_a_shuffled_label_and_the_key(tmp_path, capsys):
    records = [{"id": str(i), "text": INPUT} for i in range(4)]
    write(tmp_path / "q.jsonl", records)
    other = OUTPUT.replace("close to the sea", "by the sea")
    write(tmp_path / "one.jsonl", [{"id": r["id"], "text": OUTPUT} for r in records])
    write(tmp_path / "two.jsonl", [{"id": r["id"], "text": other} for r in records[:3]])  # one document fewer
    read_sample.paired(tmp_path / "q.jsonl", [tmp_path / "one.jsonl", tmp_path / "two.jsonl"], 5, 3)
    out = capsys.readouterr().out.splitlines()
    # paragraphs changed in both rows: two of each of the three documents both hold
    assert out[0].startswith("paragraphs changed in all 2 rows 6; drawn 5")
    items = [i for i, line in enumerate(out) if line.startswith("### ") and line != "### key"]
    keys = out[out.index("### key") + 1:]
    assert len(items) == len(keys) == 5
    for i, key in zip(items, keys):
        labels = dict(part.split("=") for part in key.split(": ", 1)[1].split())
        assert sorted(labels.values()) == ["one.jsonl", "two.jsonl"]
        shown = {out[i + 2][0]: out[i + 2][3:], out[i + 3][0]: out[i + 3][3:]}
        inp = out[i + 1][len("IN : "):]
        for label, name in labels.items():
            row = OUTPUT if name == "one.jsonl" else other
            want = dict(zip(INPUT.split("\n\n"), row.split("\n\n")))
            assert shown[label] == want[inp]
