"""benchmarks/gpu/kit.py: pieces under the limit that join back, wheel tags for
the GPU machine, the project's entry points without installing it, and `check`
naming a dependency that neither the kit nor the machine has."""
import configparser
import hashlib
import importlib.metadata as md
import importlib.util
import json
import random
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def load_kit():
    spec = importlib.util.spec_from_file_location("kit_under_test", ROOT / "benchmarks" / "gpu" / "kit.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


kit = load_kit()


def test_bundles_stay_under_the_limit_and_hold_every_file_once(tmp_path):
    rng = random.Random(3)
    files = []
    for i in range(23):
        f = tmp_path / f"w{i}-1.0-py3-none-any.whl"
        f.write_bytes(rng.randbytes(rng.randint(1, 40_000)))
        files.append(f)
    limit = 100_000
    groups = kit.bundle(files, limit)
    assert sorted(f for g in groups for f in g) == sorted(files)
    for i, group in enumerate(groups):
        tar = tmp_path / f"b{i}.tar"
        kit.write_tar(tar, group)
        assert tar.stat().st_size <= limit
        with tarfile.open(tar) as t:
            assert sorted(t.getnames()) == sorted(f.name for f in group)
            for f in group:
                assert t.extractfile(f.name).read() == f.read_bytes()
    assert len(groups) < len(files)  # files were packed together


@pytest.mark.parametrize("size", [0, 1, 999, 1000, 1001, 4567])
def test_split_parts_join_back(tmp_path, size):
    src = tmp_path / "blob"
    src.write_bytes(random.Random(size).randbytes(size))
    out = tmp_path / "parts"
    out.mkdir()
    parts = kit.split_file(src, out, "x", limit=1000)
    assert len(parts) == -(-size // 1000)
    assert all(p.stat().st_size <= 1000 for p in parts)
    assert b"".join(p.read_bytes() for p in parts) == src.read_bytes()


@pytest.mark.parametrize("name, ok", [
    ("spacy-3.8.18-cp312-cp312-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl", True),
    ("cymem-2.0.16-cp312-cp312-manylinux2014_x86_64.manylinux_2_17_x86_64.whl", True),
    ("pydantic-2.14.4-py3-none-any.whl", True),
    ("spacy_legacy-3.0.12-py2.py3-none-any.whl", True),
    ("x-1.0-cp38-abi3-manylinux_2_17_x86_64.whl", True),
    ("x-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", False),  # another Python
    ("x-1.0-cp312-cp312-manylinux_2_34_x86_64.whl", False),  # a newer glibc than promised
    ("x-1.0-cp312-cp312-manylinux_2_28_aarch64.whl", False),
    ("x-1.0-cp312-cp312-win_amd64.whl", False),
])
def test_wheel_tags(name, ok):
    assert kit.wheel_tags_ok(Path(name)) is ok


def test_dist_info_makes_the_entry_points_visible(tmp_path):
    kit.write_dist_info(tmp_path)
    dists = [d for d in md.distributions(path=[str(tmp_path)]) if d.metadata["Name"] == "spacy-linkguard"]
    assert len(dists) == 1
    cfg = configparser.RawConfigParser()
    cfg.optionxform = str
    cfg.read(ROOT / "setup.cfg", encoding="utf-8")
    expected = {(group, line.split("=", 1)[0].strip(), line.split("=", 1)[1].strip())
                for group, body in cfg.items("options.entry_points")
                for line in body.splitlines() if line.strip()}
    got = {(ep.group, ep.name, ep.value) for ep in dists[0].entry_points}
    assert got == expected
    assert ("spacy_factories", "linkguard_rewrite",
            "spacy_linkguard.pipeline.factories:make_linkguard_rewrite") in got


def fake_wheel(folder: Path, name: str, version: str, requires=()) -> Path:
    path = folder / f"{name}-{version}-py3-none-any.whl"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(
        f"Requires-Dist: {r}\n" for r in requires)
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{name}-{version}.dist-info/METADATA", meta)
    return path


def fake_kit(out: Path, wheels):
    (out / "wheels").mkdir(parents=True)
    (out / "gguf").mkdir()
    tar = out / "wheels" / "wheels-1.tar"
    kit.write_tar(tar, wheels)
    part = out / "gguf" / "qwen.part000"
    part.write_bytes(b"gguf bytes")
    pieces = [{"path": p.relative_to(out).as_posix(), "group": g, "size": p.stat().st_size,
               "sha256": kit.sha256_file(p)} for p, g in ((tar, "wheels"), (part, "gguf"))]
    manifest = {"format": 1, "piece_limit": 10**6, "pieces": pieces,
                "wheels": [{"file": w.name, "sha256": kit.sha256_file(w), "bundle": tar.name} for w in wheels],
                "gguf": {"size": 10, "sha256": hashlib.sha256(b"gguf bytes").hexdigest()}}
    (out / "MANIFEST.json").write_text(json.dumps(manifest))


def test_check_names_a_dependency_nobody_has(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    a = fake_wheel(src, "alpha", "1.0", ["zeta-missing>=2", "numpy>=1.0", "beta[extra]<2",
                                         "winonly; sys_platform == 'win32'", "opt; extra == 'x'"])
    b = fake_wheel(src, "beta", "1.5")
    fake_kit(tmp_path / "kit1", [a, b])
    problems = kit.check(tmp_path / "kit1")
    mine = [p for p in problems if p.startswith("alpha")]
    assert mine == ["alpha 1.0 requires zeta-missing>=2: neither a wheel of the kit nor on the machine"]
    z = fake_wheel(src, "zeta_missing", "1.0")  # a version the bound refuses
    fake_kit(tmp_path / "kit2", [a, b, z])
    mine = [p for p in kit.check(tmp_path / "kit2") if p.startswith("alpha")]
    assert mine == ["alpha 1.0 requires zeta-missing>=2, the kit has zeta-missing 1.0"]


def test_check_refuses_a_corrupted_piece(tmp_path):
    a = fake_wheel(tmp_path, "alpha", "1.0")
    fake_kit(tmp_path / "kit", [a])
    part = tmp_path / "kit" / "gguf" / "qwen.part000"
    part.write_bytes(b"gguf bytez")
    assert kit.check(tmp_path / "kit") == ["piece gguf/qwen.part000: sha256 differs from the manifest"]
