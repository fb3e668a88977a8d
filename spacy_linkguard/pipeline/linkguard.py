"""The `linkguard` component: flags the spans of a Doc that link it to its original.

It runs `spacy_linkguard.detect.Detector` on `doc.text` (which tokenizes the
text its own way, SPEC.md) and maps the flagged character spans onto the
Doc's tokens. Registration: `factories.py`. Output:

- `doc.spans[spans_key]`: label NGRAM (minimal rare N-grams) and COMBO
  (candidates chosen to break linkable combinations);
- span extensions `linkguard_df`, `linkguard_linked_ids`, `linkguard_n_broken`,
  `linkguard_examples` (evidence);
- doc extensions `linkguard_safe` (bool) and `linkguard_report` (dict).
"""
import dataclasses
import json
import os
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, Optional, Tuple, Union

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from ..ngrams import DEFAULT_MAX_N, DEFAULT_PLACEHOLDER, NgramSettings

CFG_FILE = "cfg.json"
DOC_EXTENSIONS = ("linkguard_safe", "linkguard_report")
SPAN_EXTENSIONS = ("linkguard_df", "linkguard_linked_ids", "linkguard_n_broken", "linkguard_examples")
_SETTINGS = ("k", "max_arity", "max_n", "placeholder", "spans_key")


def install_extensions() -> None:
    """Register the Doc and Span extensions once (safe to call repeatedly)."""
    for name in DOC_EXTENSIONS:
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=None)
    for name in SPAN_EXTENSIONS:
        if not Span.has_extension(name):
            Span.set_extension(name, default=None)


_OPEN_INDEXES: Dict[Tuple[str, int], Any] = {}


def open_index(path: Union[str, Path], *, verify: bool = False) -> Any:
    """Open the N-gram index at `path` once per process (memory-mapped, shared).

    The cache key includes meta.json's modification time, so an index rebuilt
    in place is opened again rather than served stale.
    verify: check every file's SHA-256 (once per process and index).
    RAISES: LinkguardError E111 when the folder is missing or not an index,
        and the coded errors of `NgramIndex.load` for a damaged one.
    """
    from ..index import NgramIndex

    path = Path(path).resolve()
    meta = path / "meta.json"
    try:
        stamp = meta.stat().st_mtime_ns
    except OSError:
        raise LinkguardError(Errors.E111.format(path=path, detail="no meta.json there")) from None
    cached = _OPEN_INDEXES.get((str(path), stamp))
    if cached is None or (verify and not getattr(cached, "verified", False)):
        try:
            cached = NgramIndex.load(path, verify=verify)
        except LinkguardError:
            raise
        except (OSError, ValueError, KeyError) as e:
            raise LinkguardError(Errors.E111.format(path=path, detail=f"{type(e).__name__}: {e}")) from None
        cached.verified = verify
        _OPEN_INDEXES[(str(path), stamp)] = cached
    return cached


class Linkguard:
    """Flag the spans that single a Doc out in an N-gram index of a collection.

    nlp (Language): The pipeline.
    name (str): The component name.
    index (str): Folder of an `NgramIndex` (built over the original collection).
    k (int): Phrase sets matching 1..k-1 documents single out (default 2).
    max_arity (int): 1 = single N-grams only; up to 3 = combinations too.
    max_n (Optional[int]), placeholder (Optional[str]): None (the default):
        the index's; a value must equal the index's (E003) -- the same rule as
        `Detector(index, settings=...)` and the CLI's --max-n/--placeholder.
    spans_key (str): Key in `doc.spans` for the flagged spans.
    verify (bool): check every byte of the index (SHA-256) when it is opened;
        the cheap checks run on every open anyway.
    """

    def __init__(
        self,
        nlp: Language,
        name: str = "linkguard",
        *,
        index: Optional[str] = None,
        k: int = 2,
        max_arity: int = 3,
        max_n: Optional[int] = None,
        placeholder: Optional[str] = None,
        spans_key: str = "linkguard",
        verify: bool = False,
    ) -> None:
        from ..detect.detector import check_k_and_arity

        check_k_and_arity(k, max_arity)  # before the index is opened
        if not isinstance(verify, bool):
            raise LinkguardError(Errors.E207.format(name="verify", expected="true or false", value=verify))
        self.settings: Optional[NgramSettings] = None
        if max_n is not None or placeholder is not None:  # validated now (E001/E002)
            self.settings = NgramSettings(max_n=DEFAULT_MAX_N if max_n is None else max_n,
                                          placeholder=DEFAULT_PLACEHOLDER if placeholder is None else placeholder)
        self.name = name
        self.cfg: Dict[str, Any] = {
            "index": str(index) if index else None,
            "k": k,
            "max_arity": max_arity,
            "max_n": max_n,
            "placeholder": placeholder,
            "spans_key": spans_key,
            "verify": verify,
        }
        self._detector: Any = None
        self._expected_checksum: Optional[str] = None
        install_extensions()

    @property
    def spans_key(self) -> str:
        return self.cfg["spans_key"]

    @property
    def detector(self) -> Any:
        """The `Detector`, created on first use (the index is opened then)."""
        if self._detector is None:
            from ..detect import Detector

            if not self.cfg["index"]:
                raise LinkguardError(Errors.E110.format(value=repr(self.cfg["index"])))
            index = open_index(self.cfg["index"], verify=self.cfg["verify"])
            self._check_checksum(index)
            self._detector = Detector(index, k=self.cfg["k"], max_arity=self.cfg["max_arity"],
                                      settings=self._wanted_settings(index.settings))
        return self._detector

    def _wanted_settings(self, index_settings: NgramSettings) -> Optional[NgramSettings]:
        return requested_settings(index_settings, max_n=self.cfg["max_n"], placeholder=self.cfg["placeholder"])

    def _check_checksum(self, index: Any) -> None:
        if self._expected_checksum is not None and index.checksum != self._expected_checksum:
            raise LinkguardError(
                Errors.E112.format(path=self.cfg["index"], found=index.checksum, expected=self._expected_checksum)
            )

    def __call__(self, doc: Doc) -> Doc:
        """Detect on `doc.text` and write spans and extensions to `doc`."""
        set_annotations(doc, self.detector.detect(doc.text), self.spans_key)
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Process a stream of Docs (each Doc is independent; batch_size is accepted for spaCy)."""
        detector = self.detector
        for doc in stream:
            set_annotations(doc, detector.detect(doc.text), self.spans_key)
            yield doc

    # --- serialization: the settings and a reference to the index, with its checksum.
    # On disk the index path is relative to the component's folder, so a saved
    # pipeline holds no absolute path and can be moved together with its index.
    def _cfg_for_disk(self, folder: Optional[Path] = None) -> Dict[str, Any]:
        cfg = dict(self.cfg)
        if cfg["index"]:
            cfg["index_checksum"] = open_index(cfg["index"]).checksum
            if folder is not None:
                cfg["index"] = relative_path(cfg["index"], folder)
        else:
            cfg["index_checksum"] = None
        return cfg

    def _load_cfg(self, cfg: Dict[str, Any], where: str, folder: Optional[Path] = None) -> "Linkguard":
        for field in ("index", "index_checksum") + _SETTINGS:
            if field not in cfg:
                raise LinkguardError(Errors.E113.format(path=where, field=field))
        # The index named in the pipeline's config wins when it exists (so a
        # moved index can be given as a config override); else the saved path.
        # Either way its checksum must be the saved one.
        index = cfg["index"]
        if index and folder is not None and not Path(index).is_absolute():
            index = os.path.normpath(os.path.join(os.path.abspath(folder), index))
        configured = self.cfg.get("index")
        if configured and (Path(configured) / "meta.json").is_file():
            index = configured
        settings = {f: cfg[f] for f in _SETTINGS}
        fresh = Linkguard(None, self.name, index=index, verify=bool(cfg.get("verify", self.cfg.get("verify", False))),
                          **settings)  # validates
        self.cfg, self.settings = fresh.cfg, fresh.settings
        self._expected_checksum = cfg["index_checksum"]
        self._detector = None
        if self.cfg["index"]:
            self.detector  # noqa: B018 -- open now: a changed index is an error at load time
        return self

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return json.dumps(self._cfg_for_disk(), sort_keys=True).encode("utf-8")

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "Linkguard":
        return self._load_cfg(json.loads(bytes_data.decode("utf-8")), "<bytes>")

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if CFG_FILE not in exclude:
            (path / CFG_FILE).write_text(json.dumps(self._cfg_for_disk(path), sort_keys=True, indent=1) + "\n")

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "Linkguard":
        cfg_path = Path(path) / CFG_FILE
        if CFG_FILE in exclude or not cfg_path.is_file():
            return self
        return self._load_cfg(json.loads(cfg_path.read_text(encoding="utf-8")), str(cfg_path), Path(path))

    def __getstate__(self) -> Dict[str, Any]:
        # The memory-mapped index does not pickle; a worker process reopens it.
        state = dict(self.__dict__)
        state["_detector"] = None
        return state


def requested_settings(index_settings: NgramSettings, *, max_n: Optional[int] = None,
                       placeholder: Optional[str] = None) -> Optional[NgramSettings]:
    """The settings asked for, to pass as `Detector(index, settings=...)` (which raises E003
    when they differ from the index's); None when nothing was asked for (the index's are used).

    One rule for the Detector, the CLI (--max-n/--placeholder) and the component.
    """
    given = {k: v for k, v in (("max_n", max_n), ("placeholder", placeholder)) if v is not None}
    if not given:
        return None
    NgramSettings(**{"max_n": DEFAULT_MAX_N, "placeholder": DEFAULT_PLACEHOLDER, **given})  # E001/E002
    return dataclasses.replace(index_settings, **given)


def relative_path(target: Union[str, Path], folder: Union[str, Path]) -> str:
    """`target` relative to `folder` (POSIX separators), for paths saved inside `folder`."""
    return Path(os.path.relpath(Path(target).resolve(), Path(folder).resolve())).as_posix()


def set_annotations(doc: Doc, detection: Any, spans_key: str) -> None:
    """Write a `Detection` onto `doc`: spans by character offsets, evidence, verdict.

    Offsets are expanded to the Doc's token boundaries (the Doc's tokenizer
    may split differently from the detector's). Spans that cannot be mapped
    are counted in a W100 warning.
    """
    group = []
    lost = []
    for fs in detection.spans:
        span = doc.char_span(fs.start_char, fs.end_char, label=fs.label, alignment_mode="expand")
        if span is None:
            lost.append(fs)
            continue
        span._.linkguard_df = fs.df
        span._.linkguard_linked_ids = list(fs.linked_ids)
        span._.linkguard_n_broken = fs.n_broken
        span._.linkguard_examples = [dict(e) for e in fs.examples]
        group.append(span)
    doc.spans[spans_key] = SpanGroup(doc, name=spans_key, spans=group)
    doc._.linkguard_safe = bool(detection.safe)
    doc._.linkguard_report = dict(detection.report)
    if lost:
        warnings.warn(
            Warnings.W100.format(n=len(lost), start=lost[0].start_char, end=lost[0].end_char), LinkguardWarning
        )
