"""Issue 15, item 5: a damaged or edited index is a coded error, never a crash or a wrong answer."""
import subprocess
import sys

import numpy as np
import pytest
import spacy
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.detect import Detector
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex, integrity
from spacy_linkguard.index import format as fmt
from spacy_linkguard.ngrams import NgramSettings

from .conftest import TEXTS, edit_meta, flip_bytes


def detect_cli(*args):
    return CliRunner().invoke(app, ["detect", *map(str, args), "--no-progress"])


def assert_coded_exit(result, code):
    assert result.exit_code == 1, result.output
    assert code in result.output
    assert "Traceback" not in result.output and not isinstance(result.exception, LinkguardError)


def test_flipped_trie_bytes_are_an_error_not_a_segfault(hostile_index, damaged):
    bad = damaged(lambda d: flip_bytes(d / fmt.VOCAB))
    with pytest.raises(LinkguardError, match=r"E070.*vocab.marisa"):
        NgramIndex.load(bad)
    # In a fresh process, as a user runs it: exit code 1 and the coded message (a segfault is -11).
    proc = subprocess.run([sys.executable, "-m", "spacy_linkguard", "detect", str(hostile_index[1]),
                           "--index", str(bad), "--no-progress"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1 and "E070" in proc.stderr and "Traceback" not in proc.stderr


def _zero_df(folder):
    arr = np.load(folder / fmt.DF, mmap_mode="r+")
    arr[:] = 0
    arr.flush()


def test_zeroed_df_of_the_same_size_never_says_safe(hostile_index, damaged, monkeypatch):
    bad = damaged(_zero_df)
    assert (bad / fmt.DF).stat().st_size == (hostile_index[0] / fmt.DF).stat().st_size
    with pytest.raises(LinkguardError, match=r"E070.*df.npy"):
        NgramIndex.load(bad)
    assert_coded_exit(detect_cli(hostile_index[1], "--index", bad), "E070")
    # Beyond the CRC budget (a large index), the sampled value check still refuses it.
    monkeypatch.setattr(integrity, "QUICK_BYTES", 0)
    with pytest.raises(LinkguardError, match=r"E063.*df.npy.*document frequencies"):
        NgramIndex.load(bad)


def _garble_postings(folder):
    path = folder / fmt.POSTINGS
    path.write_bytes(b"\xff" * path.stat().st_size)


def test_corrupt_postings_give_a_coded_error_and_no_output(hostile_index, damaged, tmp_path, monkeypatch):
    bad = damaged(_garble_postings)
    with pytest.raises(LinkguardError, match=r"E070.*postings.npy"):
        NgramIndex.load(bad)
    # Not CRC-checked on load (beyond the budget): the lookup that meets it fails, coded,
    # and the output file is not written half.
    monkeypatch.setattr(integrity, "QUICK_BYTES", 0)
    out = tmp_path / "spans.jsonl"
    out.write_text("previous results\n")
    result = detect_cli(hostile_index[1], "--index", bad, "--out", out)
    assert_coded_exit(result, "E063")
    assert "postings.npy" in result.output
    assert out.read_text() == "previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".spans")) == []


def test_verify_on_detect_show_rewrite_and_the_component(hostile_index, damaged, tmp_path, monkeypatch):
    bad = damaged(lambda d: flip_bytes(d / fmt.POSTINGS, [(d / fmt.POSTINGS).stat().st_size - 1]))
    monkeypatch.setattr(integrity, "QUICK_BYTES", 0)  # so that only --verify can see it
    NgramIndex.load(bad)
    queries = hostile_index[1]
    assert_coded_exit(detect_cli(queries, "--index", bad, "--verify"), "E064")
    res = CliRunner().invoke(app, ["show", str(queries), "--index", str(bad), "--out", str(tmp_path / "p.html"),
                                   "--verify", "--no-progress"])
    assert_coded_exit(res, "E064")
    assert not (tmp_path / "p.html").exists()
    # rewrite checks the index before it rewrites anything (here with the canned test model)
    import re
    from pathlib import Path

    from tests.rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)

    cfg = (Path(__file__).resolve().parents[2] / "configs" / "rewrite_cpu.cfg").read_text()
    cfg = re.sub(r"\[components\.linkguard_rewrite\.model\]\n(?:[^\[\n].*\n?)*",
                 '[components.linkguard_rewrite.model]\n@llm_models = "linkguard_test.Canned.v1"\n\n', cfg)
    (tmp_path / "canned.cfg").write_text(cfg)
    res = CliRunner().invoke(app, ["rewrite", str(queries), "--index", str(bad), "--verify", "--no-progress",
                                   "--config", str(tmp_path / "canned.cfg"), "--output", str(tmp_path / "r.jsonl")])
    assert_coded_exit(res, "E064")
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(bad), "verify": True})
    with pytest.raises(LinkguardError, match="E064"):
        nlp("text")
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(bad)})
    nlp("text")  # without verify the cheap checks (here without CRC) pass


def test_edited_settings_in_meta_are_refused(hostile_index, damaged):
    bad = damaged(lambda d: edit_meta(d, lambda m: m["settings"].update(max_n=4)))
    with pytest.raises(LinkguardError, match="E069"):
        NgramIndex.load(bad)
    with pytest.raises(LinkguardError, match="E069"):
        NgramIndex.load(bad, verify=True)
    assert_coded_exit(detect_cli(hostile_index[1], "--index", bad, "--verify"), "E069")


def test_edited_settings_of_an_older_meta_are_refused_by_the_content_checksum(damaged):
    def old_and_edited(meta):
        meta.pop("meta_sha256")
        for info in meta["files"].values():
            info.pop("crc32")
        meta["settings"]["max_n"] = 4

    with pytest.raises(LinkguardError, match=r"E069.*checksum"):
        NgramIndex.load(damaged(lambda d: edit_meta(d, old_and_edited)))


def test_an_older_meta_without_crc_still_loads(damaged):
    def older(meta):
        meta.pop("meta_sha256")
        for info in meta["files"].values():
            info.pop("crc32")

    idx = NgramIndex.load(damaged(lambda d: edit_meta(d, older)))
    assert idx.doc_freq("the applicant") == 4


@pytest.mark.parametrize("verify", [False, True])
@pytest.mark.parametrize("change", [
    lambda m: m.update(files={}),
    lambda m: m["files"].pop(fmt.DF),
    lambda m: m["files"][fmt.DF].update(sha256=None),
    lambda m: m["counts"].update(n_docs="6"),
    lambda m: m.update(format="something else"),
    lambda m: m.update(format_version="1"),
], ids=["files-empty", "file-missing", "sha-null", "count-string", "format", "version-string"])
def test_malformed_meta_is_e060(damaged, change, verify):
    with pytest.raises(LinkguardError, match="E060"):
        NgramIndex.load(damaged(lambda d: edit_meta(d, change)), verify=verify)


def test_detector_cli_and_component_treat_a_settings_mismatch_alike(hostile_index, tmp_path):
    index, queries = hostile_index
    idx = NgramIndex.load(index)
    # Nothing asked for: all three use the index's settings.
    assert Detector(idx).settings == idx.settings
    assert detect_cli(queries, "--index", index).exit_code == 0
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(index)})
    assert nlp.get_pipe("linkguard").detector.settings == idx.settings
    # Something else asked for: E003 from all three.
    with pytest.raises(LinkguardError, match="E003"):
        Detector(idx, settings=NgramSettings(max_n=4))
    assert_coded_exit(detect_cli(queries, "--index", index, "--max-n", "4"), "E003")
    assert_coded_exit(detect_cli(queries, "--index", index, "--placeholder", "[X]"), "E003")
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(index), "max_n": 4})
    with pytest.raises(LinkguardError, match="E003"):
        nlp("text")
    # The same settings, asked for explicitly, are fine everywhere.
    assert detect_cli(queries, "--index", index, "--max-n", "8").exit_code == 0
    nlp = spacy.blank("en")
    nlp.add_pipe("linkguard", config={"index": str(index), "max_n": 8, "placeholder": "[REDACTED]"})
    assert nlp(TEXTS[0])._.linkguard_safe is False


def test_load_stays_fast(hostile_index):
    import time

    NgramIndex.load(hostile_index[0])
    t = time.perf_counter()
    for _ in range(10):
        NgramIndex.load(hostile_index[0])
    assert (time.perf_counter() - t) / 10 < 0.05
