"""The `linkguard` component: flags the spans of a Doc that link it to its original.

It runs `spacy_linkguard.detect.Detector` on `doc.text` (which tokenizes the
text its own way, SPEC.md) and maps the flagged character spans onto the
Doc's tokens. The index arrives in `initialize` (pipeline/index_arg.py), and
the N-gram settings (max_n, placeholder) are the index's. Registration:
`factories.py`. Output:

- `doc.spans[spans_key]`: label NGRAM (minimal rare N-grams) and COMBO
  (candidates chosen to break linkable combinations);
- span extensions `linkguard_df`, `linkguard_linked_ids`, `linkguard_n_broken`,
  `linkguard_examples` (evidence);
- doc extensions `linkguard_safe` (bool) and `linkguard_report` (dict, with
  the `verdict` and `sources` used);
- with the `rank` setting, doc extension `linkguard_rank`: where a search
  engine puts the Doc's sources among all collection documents,
  {"bm25": int|None, "embedding": int|None, "sources": [...]} (1: a source
  comes out first; `attack/`), None for a Doc without sources.

Input: `doc._.linkguard_sources`, the collection ids the Doc was made from
(set it before the component runs): with the `verdict` setting "auto" (the
default) the Doc is detected under the source verdict when they are given,
else under the any verdict (SPEC.md "Threat model").
"""
import dataclasses
import json
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup

from ..attack.ranks import DEFAULT_RANK_MODEL
from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings
from ..ngrams import DEFAULT_MAX_N, DEFAULT_PLACEHOLDER, NgramSettings
from .index_arg import holds_index, receive_index, relative_path, saved_path

CFG_FILE = "cfg.json"
DOC_EXTENSIONS = ("linkguard_safe", "linkguard_report", "linkguard_sources", "linkguard_rank")
SPAN_EXTENSIONS = ("linkguard_df", "linkguard_linked_ids", "linkguard_n_broken", "linkguard_examples")
_SETTINGS = ("k", "max_arity", "max_n", "placeholder", "spans_key")
# Settings added later: a saved component without them gets these.
_LATER_SETTINGS = {"verdict": "auto", "rank": False, "rank_model": DEFAULT_RANK_MODEL, "span_cost": "uniform"}


def install_extensions() -> None:
    """Register the Doc and Span extensions once (safe to call repeatedly)."""
    for name in DOC_EXTENSIONS:
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=None)
    for name in SPAN_EXTENSIONS:
        if not Span.has_extension(name):
            Span.set_extension(name, default=None)


class Linkguard:
    """Flag the spans that single a Doc out in an N-gram index of a collection.

    nlp (Language): The pipeline.
    name (str): The component name.
    index (Optional[str]): A shortcut for `initialize(index=...)`: the folder
        of the index, opened on first use. A config names the folder once, in
        [initialize.components.<name>] index.
    k (int): Phrase sets matching 1..k-1 documents single out (default 2).
    max_arity (int): 1 = single N-grams only; up to 3 = combinations too.
    max_n (Optional[int]), placeholder (Optional[str]): Not needed: the
        index's settings are used. A value given must equal the index's (E003),
        the rule of `Detector(index, settings=...)` and the CLI's --max-n/--placeholder.
    spans_key (str): Key in `doc.spans` for the flagged spans.
    verify (bool): check every byte of the index (SHA-256) when it is opened
        from a folder; the cheap checks run on every open anyway.
    verdict (str): "auto" (source when `doc._.linkguard_sources` is set,
        else any), "source" (E108 for a Doc without sources) or "any".
    rank (bool): also rank the Doc's sources (`doc._.linkguard_sources`) among
        all collection documents as a search engine would, into
        `doc._.linkguard_rank`; costs a BM25 build over the collection (and,
        with rank_model, an embedding of it), once per component.
    rank_model (Optional[str]): the sentence-transformers model of the
        embedding rank; None or "none": the BM25 rank only.
    span_cost (str): how the combinations' hitting set weighs the candidates:
        "uniform" (the default) or "weighted" (rarer phrases preferred; see
        `Detector`). E330 for another value.
    embedding_attacker (Optional[Callable[[index, str], attacker]]): builds the
        embedding attacker over the index (the factory passes
        `attack.embedding.index_embedding_attacker`: detection imports no model code).
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
        verdict: str = "auto",
        rank: bool = False,
        rank_model: Optional[str] = DEFAULT_RANK_MODEL,
        span_cost: str = "uniform",
        embedding_attacker: Optional[Callable[[Any, str], Any]] = None,
    ) -> None:
        from ..detect.detector import check_k_and_arity, check_span_cost
        from ..attack.ranks import rank_model_name
        from ..detect.verdict import check_verdict

        check_k_and_arity(k, max_arity)  # before the index is opened
        check_verdict(verdict)
        check_span_cost(span_cost)
        if not isinstance(verify, bool):
            raise LinkguardError(Errors.E207.format(name="verify", expected="true or false", value=verify))
        if not isinstance(rank, bool):
            raise LinkguardError(Errors.E207.format(name="rank", expected="true or false", value=rank))
        if rank_model is not None and not isinstance(rank_model, str):
            raise LinkguardError(Errors.E049.format(value=rank_model))
        if rank and rank_model_name(rank_model) is not None and embedding_attacker is None:
            raise LinkguardError(Errors.E048.format(model=rank_model))
        if max_n is not None or placeholder is not None:  # validated now (E001/E002)
            NgramSettings(max_n=DEFAULT_MAX_N if max_n is None else max_n,
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
            "verdict": verdict,
            "rank": rank,
            "rank_model": rank_model,
            "span_cost": span_cost,
        }
        self._index: Any = None  # the open index, once given or opened
        self._detector: Any = None
        self._rankers: Optional[Dict[str, Any]] = None
        self._embedding_attacker = embedding_attacker
        self._expected_checksum: Optional[str] = None
        install_extensions()

    def initialize(
        self,
        get_examples: Optional[Callable[[], Iterable[Any]]] = None,
        *,
        nlp: Optional[Language] = None,
        index: Optional[Any] = None,
    ) -> None:
        """Receive the N-gram index, as `span_ruler` receives its patterns.
        Called by `nlp.initialize()` with the settings of [initialize.components.<name>].

        get_examples, nlp: Not used (nothing is trained).
        index (Union[str, Path, NgramIndex, ShardedIndex]): The index folder
            (opened with `spacy_linkguard.index.open_index`), or an open index.
            None: the folder given as the `index` setting.
        RAISES: LinkguardError E110 (no index given anywhere), E114 (not an
            index), E003 (max_n/placeholder set and not the index's), and the
            coded errors of `open_index`.
        """
        if index is not None:
            self.cfg["index"], self._index = receive_index(index, self.name, verify=self.cfg["verify"])
            self._detector = self._rankers = None
            self._expected_checksum = None  # a new index, given on purpose
        self.detector  # noqa: B018 -- open now: a bad index or setting fails here, not on the first Doc
        if self.cfg["rank"]:
            self.rankers  # noqa: B018 -- built now, once (E045: an index without document tokens)

    @property
    def spans_key(self) -> str:
        return self.cfg["spans_key"]

    @property
    def index(self) -> Any:
        """The open index (`NgramIndex` or `ShardedIndex`), opened on first use.

        RAISES: LinkguardError E110 when none was given.
        """
        if self._index is None:
            if not self.cfg["index"]:
                raise LinkguardError(Errors.E110.format(value=repr(self.cfg["index"])))
            self._index = receive_index(self.cfg["index"], self.name, verify=self.cfg["verify"])[1]
        return self._index

    @property
    def settings(self) -> NgramSettings:
        """The N-gram settings in use: the index's (max_n, placeholder)."""
        return self.index.settings

    @property
    def detector(self) -> Any:
        """The `Detector`, created on first use (the index is opened then)."""
        if self._detector is None:
            from ..detect import Detector

            index = self.index
            self._check_checksum(index)
            self._detector = Detector(index, k=self.cfg["k"], max_arity=self.cfg["max_arity"],
                                      settings=self._wanted_settings(index.settings), span_cost=self.cfg["span_cost"])
        return self._detector

    @property
    def rankers(self) -> Dict[str, Any]:
        """The ranking attackers over the index ({"bm25", "embedding"}; `attack/ranks.py`),
        built on first use, once per component; "embedding" None without rank_model
        (or, with W010, when its model is not on this machine).

        RAISES: LinkguardError E045 (an index without document tokens), E046 (bm25s missing).
        """
        if self._rankers is None:
            from ..attack.ranks import index_rankers, rank_model_name

            index = self.index
            model = rank_model_name(self.cfg["rank_model"])
            embedding = None
            if model is not None:
                if self._embedding_attacker is None:
                    raise LinkguardError(Errors.E048.format(model=self.cfg["rank_model"]))
                embedding = self._embedding_attacker(index, model)
            self._rankers = index_rankers(index, embedding)
        return self._rankers

    def rank_of(self, doc: Doc) -> Optional[Dict[str, Any]]:
        """Where the attackers rank the sources of `doc` (`doc._.linkguard_sources`):
        {"bm25": int|None, "embedding": int|None, "sources": [...]}, None without sources.

        RAISES: LinkguardError E105 (sources not a list of ids), E106 (an id not in the index).
        """
        from ..attack.ranks import rank_fields

        rankers = self.rankers  # built before the first Doc, with sources or not: a bad index fails early
        sources = doc._.linkguard_sources
        if sources is None:
            return None
        return rank_fields(rankers, doc.text, list(sources), self.detector.source_numbers(sources))

    def _wanted_settings(self, index_settings: NgramSettings) -> Optional[NgramSettings]:
        return requested_settings(index_settings, max_n=self.cfg["max_n"], placeholder=self.cfg["placeholder"])

    def _check_checksum(self, index: Any) -> None:
        if self._expected_checksum is not None and index.checksum != self._expected_checksum:
            raise LinkguardError(
                Errors.E112.format(path=self.cfg["index"], found=index.checksum, expected=self._expected_checksum)
            )

    def sources_of(self, doc: Doc) -> Optional[list]:
        """The sources `doc` is detected with under the `verdict` setting (None: any).

        RAISES: LinkguardError E108 (verdict "source", no `doc._.linkguard_sources`),
            E105 (not a list of ids).
        """
        from ..detect.verdict import resolve_sources

        return resolve_sources(self.cfg["verdict"], doc._.linkguard_sources, None, self.detector.has_document,
                               what="the Doc (set doc._.linkguard_sources)")

    def __call__(self, doc: Doc) -> Doc:
        """Detect on `doc.text` and write spans and extensions to `doc`."""
        set_annotations(doc, self.detector.detect(doc.text, self.sources_of(doc)), self.spans_key)
        if self.cfg["rank"]:
            doc._.linkguard_rank = self.rank_of(doc)
        return doc

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Process a stream of Docs (each Doc is independent; batch_size is accepted for spaCy)."""
        detector = self.detector
        for doc in stream:
            set_annotations(doc, detector.detect(doc.text, self.sources_of(doc)), self.spans_key)
            if self.cfg["rank"]:
                doc._.linkguard_rank = self.rank_of(doc)
            yield doc

    # --- serialization: the settings and a reference to the index, with its checksum.
    # On disk the index path is relative to the component's folder, so a saved
    # pipeline holds no absolute path and can be moved together with its index.
    def _cfg_for_disk(self, folder: Optional[Path] = None) -> Dict[str, Any]:
        cfg = dict(self.cfg)
        if cfg["index"]:
            cfg["index_checksum"] = self.index.checksum
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
        if index and folder is not None:
            index = saved_path(index, folder)
        configured = self.cfg.get("index")
        if configured and holds_index(configured):
            index = configured
        settings = {f: cfg[f] for f in _SETTINGS}
        later = {f: cfg.get(f, default) for f, default in _LATER_SETTINGS.items()}
        fresh = Linkguard(None, self.name, index=index, verify=bool(cfg.get("verify", self.cfg.get("verify", False))),
                          embedding_attacker=self._embedding_attacker, **later, **settings)  # validates
        self.cfg = fresh.cfg
        self._expected_checksum = cfg["index_checksum"]
        self._index = self._detector = self._rankers = None
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
        state["_detector"] = state["_index"] = state["_rankers"] = None  # rebuilt in the worker
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
