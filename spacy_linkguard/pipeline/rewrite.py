"""The `linkguard_rewrite` component: the released text of each Doc.

A component cannot change `doc.text`, so it writes:
- `doc._.linkguard_text`: the released text (safe with `guarantee`);
- `doc._.linkguard_passes`: one dict per LLM pass (spans sent and removed,
  chunks, LLM calls, prompt and completion tokens, seconds);
- `doc._.linkguard_text_before_guarantee`: the text the LLM passes left,
  before guarantee mode redacted anything;
- `doc._.linkguard_forced_redactions`: spans guarantee mode had to redact;
- `doc._.linkguard_safe`: whether the released text is safe (the name the
  `linkguard` component uses for its verdict; the old name
  `doc._.linkguard_rewrite_safe` is a deprecated alias of it);
- `doc._.linkguard_verdict`: the verdict it was detected under ("source" when
  `doc._.linkguard_sources` was set and the `verdict` setting is "auto" or
  "source", else "any"; SPEC.md "Threat model");
- `doc._.linkguard_verified`: with `keep_verified`, the model's verified
  rewrites of the Doc's chunks (the training pairs of `train-lora`), else None.

It detects on `doc.text` itself (through its own `Detector`, or the one of a
`linkguard` component earlier in the pipeline), so it does not need
`doc.spans`. `pipe` batches documents: all their chunks go to the model
together. Registration: `factories.py`.
"""
import json
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Union

from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from ..errors import Errors, LinkguardError
from .index_arg import check_index_variable, receive_index, relative_path, saved_path

DOC_EXTENSIONS = {
    "linkguard_text": None,
    "linkguard_text_before_guarantee": None,
    "linkguard_passes": None,
    "linkguard_forced_redactions": None,
    "linkguard_omissions": None,
    "linkguard_verdict": None,
    "linkguard_verified": None,
}
CFG_FILE = "cfg.json"


def install_extensions() -> None:
    """Register the Doc extensions once (safe to call repeatedly), with the
    `linkguard` component's (`doc._.linkguard_sources` is read here too)."""
    from .linkguard import install_extensions as install_detection_extensions

    install_detection_extensions()
    for name, default in DOC_EXTENSIONS.items():
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=default)
    if not Doc.has_extension("linkguard_rewrite_safe"):
        Doc.set_extension("linkguard_rewrite_safe", getter=_deprecated_rewrite_safe, setter=_set_rewrite_safe)


def _deprecated_rewrite_safe(doc: Doc) -> Optional[bool]:
    """`doc._.linkguard_rewrite_safe`, the old name of `doc._.linkguard_safe`."""
    import warnings

    warnings.warn("doc._.linkguard_rewrite_safe is deprecated: read doc._.linkguard_safe "
                  "(set by linkguard and by the rewrite components).", DeprecationWarning, stacklevel=3)
    return doc._.linkguard_safe


def _set_rewrite_safe(doc: Doc, value: Optional[bool]) -> None:
    doc._.linkguard_safe = value


class LinkguardRewrite:
    """Rewrite each Doc until no span links it to the indexed collection.

    nlp (Language), name (str): The pipeline and the component name.
    task: A `linkguard.Rewrite.v1` task (with `model`: the LLM backend).
    model: A `linkguard.HF.v1` model (or any model the loop accepts).
    rewriter: Another rewriting backend (`rewrite/backends.py`), e.g.
        `linkguard.LexicalRewriter.v1`; when given, `task` and `model` are unused.
    index (Optional[str]): A shortcut for `initialize(index=...)`: the index
        folder. None: the index arrives in `initialize` ([initialize.components.<name>]
        index in a config), else the detector of `detector_component` is
        borrowed, or one is given with `set_detector`.
    k, max_arity (int): Detection settings for the index (its own max_n and
        placeholder are used; the backend's placeholder must be the index's, E210).
    max_passes, guarantee, guarantee_unit, max_retries: See `RewriteLoop`.
    detector_component (str): Pipe whose `detector` is reused when no index is given.
    batch_size (int): Documents rewritten together by `pipe`.
    n_candidates (int): With the LLM backend: replies sampled per flagged
        chunk; the one that leaves the fewest linking spans is kept
        (`rewrite/judge.py`). 1: the first accepted reply.
    verdict (str): "auto" (the source verdict for a Doc whose
        `doc._.linkguard_sources` is set, else any), "source" (E108 for a Doc
        without sources) or "any".
    span_cost (str): How the detector's hitting set weighs the phrases of
        combinations (`detect/detector.py`): "uniform" or "weighted".
    keep_verified (bool): Keep the model's verified rewrites of each Doc in
        `doc._.linkguard_verified` (output lines: "verified"), the training
        pairs of `train-lora` (see `RewriteLoop`).
    """

    def __init__(
        self,
        nlp: Language,
        name: str = "linkguard_rewrite",
        *,
        task: Any = None,
        model: Any = None,
        rewriter: Any = None,
        index: Optional[str] = None,
        k: int = 2,
        max_arity: int = 3,
        max_passes: int = 5,
        guarantee: bool = True,
        max_retries: int = 2,
        detector_component: str = "linkguard",
        batch_size: int = 8,
        verdict: str = "auto",
        n_candidates: int = 1,
        keep_verified: bool = False,
        guarantee_unit: str = "span",
        span_cost: str = "uniform",
    ) -> None:
        from ..detect.detector import check_span_cost
        from ..detect.verdict import check_verdict

        check_verdict(verdict)
        check_span_cost(span_cost)
        from ..rewrite.guarantee import check_guarantee_unit

        check_guarantee_unit(guarantee_unit)  # at assembly, not after the last pass
        if not isinstance(batch_size, int) or batch_size < 1:
            raise LinkguardError(Errors.E207.format(name="batch_size", expected="an integer >= 1", value=batch_size))
        self.nlp = nlp
        self.name = name
        if rewriter is None:
            if task is None or model is None:
                raise LinkguardError(Errors.E207.format(name="task and model", expected="both given (or a rewriter)",
                                                        value=(task, model)))
            from ..rewrite import LLMRewriter

            rewriter = LLMRewriter(task, model, max_retries=max_retries, n_candidates=n_candidates)
        self.rewriter = rewriter
        self.task = getattr(rewriter, "task", None)
        self.model = getattr(rewriter, "model", None)
        self.cfg: Dict[str, Any] = {
            "index": str(index) if index else None,
            "k": k,
            "max_arity": max_arity,
            "max_passes": max_passes,
            "guarantee": guarantee,
            "guarantee_unit": guarantee_unit,
            "max_retries": max_retries,
            "detector_component": detector_component,
            "batch_size": batch_size,
            "verdict": verdict,
            "keep_verified": bool(keep_verified),
            "span_cost": span_cost,
            **getattr(rewriter, "cfg", {}),
        }
        self._index: Any = None  # an open index given to `initialize`
        self._detector: Any = None
        self._loop: Any = None
        install_extensions()

    # --- detector -------------------------------------------------------------
    def set_detector(self, detector: Any) -> None:
        """Use `detector` (anything with `detect(text)` and `settings`)."""
        self._detector = detector
        self._loop = None

    @property
    def detector(self) -> Any:
        """The detector: set, built from `index`, or borrowed from `detector_component`.

        RAISES: LinkguardError E209 when there is none.
        """
        if self._detector is None:
            if self._index is not None or self.cfg["index"]:
                from ..detect import Detector

                index = self._index
                if index is None:
                    index = receive_index(self.cfg["index"], self.name)[1]
                self._detector = Detector(index, k=self.cfg["k"], max_arity=self.cfg["max_arity"],
                                          span_cost=self.cfg.get("span_cost", "uniform"))
            elif self.cfg["detector_component"] in self.nlp.pipe_names:
                self._detector = self.nlp.get_pipe(self.cfg["detector_component"]).detector
            else:
                raise LinkguardError(Errors.E209)
        return self._detector

    @property
    def loop(self) -> Any:
        """The `RewriteLoop` (built on first use)."""
        if self._loop is None:
            from ..rewrite import RewriteLoop

            if hasattr(self.rewriter, "configure"):  # settings loaded from disk reach the backend
                self.rewriter.configure(self.cfg)
            self._loop = RewriteLoop(
                self.detector,
                self.rewriter,
                max_passes=self.cfg["max_passes"],
                guarantee=self.cfg["guarantee"],
                guarantee_unit=self.cfg.get("guarantee_unit", "span"),
                keep_verified=self.cfg.get("keep_verified", False),
            )
        return self._loop

    def initialize(
        self, get_examples: Optional[Callable[[], Iterable[Any]]] = None, *, nlp: Optional[Language] = None,
        index: Optional[Any] = None,
    ) -> None:
        """Receive the N-gram index, as `span_ruler` receives its patterns.
        Called by `nlp.initialize()` with the settings of [initialize.components.<name>].

        get_examples, nlp: Not used (nothing is trained).
        index (Union[str, Path, NgramIndex, ShardedIndex]): The index folder
            (opened now with `spacy_linkguard.index.open_index`), or an open
            index; it replaces a configured one. None: keep what there is.
        RAISES: LinkguardError E114 (not an index), E020 (the config sets [paths]
            index but does not pass it here), and the coded errors of `open_index`.
        """
        if index is not None:
            self.cfg["index"], self._index = receive_index(index, self.name)
            self._detector = None
            self._loop = None
        elif (nlp is not None and self._index is None and not self.cfg["index"] and self._detector is None
              and self.cfg["detector_component"] not in nlp.pipe_names):
            check_index_variable(nlp, self.name)  # an index the user named must not be dropped in silence

    # --- processing -----------------------------------------------------------
    def __call__(self, doc: Doc) -> Doc:
        return next(iter(self.pipe([doc], batch_size=1)))

    def pipe(self, stream: Iterable[Doc], *, batch_size: Optional[int] = None) -> Iterator[Doc]:
        seen = 0
        for docs in minibatch(stream, size=batch_size or self.cfg["batch_size"]):
            ids = [doc_name(d, seen + j) for j, d in enumerate(docs)]
            seen += len(docs)
            results = self.loop.run([d.text for d in docs], ids=ids, sources=[self.sources_of(d) for d in docs])
            for doc, res in zip(docs, results):
                set_annotations(doc, res)
                yield doc

    def sources_of(self, doc: Doc) -> Optional[List[str]]:
        """The sources `doc` is detected with under the `verdict` setting (None: any).

        RAISES: LinkguardError E108 (verdict "source", no `doc._.linkguard_sources`).
        """
        from ..detect.verdict import resolve_sources

        return resolve_sources(self.cfg.get("verdict", "auto"), doc._.linkguard_sources, None, lambda _: False,
                               what="the Doc (set doc._.linkguard_sources)")

    # --- serialization (settings only: the index and the model stay where they are)
    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        return json.dumps(self.cfg).encode("utf-8")

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "LinkguardRewrite":
        self._load_cfg(json.loads(bytes_data.decode("utf-8")))
        return self

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        if CFG_FILE not in exclude:
            cfg = dict(self.cfg)
            if cfg["index"]:  # relative to the saved component: no absolute path in a saved pipeline
                cfg["index"] = relative_path(cfg["index"], path)
            (path / CFG_FILE).write_text(json.dumps(cfg, indent=2) + "\n", encoding="utf-8")

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "LinkguardRewrite":
        cfg_path = Path(path) / CFG_FILE
        if CFG_FILE not in exclude and cfg_path.is_file():
            cfg = json.loads(cfg_path.read_text(encoding="utf-8"))
            if cfg.get("index"):
                cfg["index"] = saved_path(cfg["index"], path)
            self._load_cfg(cfg)
        return self

    def _load_cfg(self, cfg: Dict[str, Any]) -> None:
        self.cfg.update({k: v for k, v in cfg.items() if k in self.cfg})
        self._index = self._detector = None
        self._loop = None


def doc_name(doc: Doc, position: int) -> str:
    """How warnings name a Doc: `doc.user_data["id"]`, else the context given to
    `nlp.pipe(..., as_tuples=True)` when it is a str or has an "id" (the CLI
    passes the record id), else "#<position in the stream>"."""
    if doc.user_data.get("id") is not None:
        return str(doc.user_data["id"])
    context = getattr(doc, "_context", None)
    if isinstance(context, dict) and context.get("id") is not None:
        return str(context["id"])
    if isinstance(context, str):
        return context
    return f"#{position}"


def set_annotations(doc: Doc, result: Any) -> None:
    """Write one `RewriteResult` to the Doc's extensions."""
    doc._.linkguard_text = result.text
    doc._.linkguard_text_before_guarantee = result.text_before_guarantee
    doc._.linkguard_passes = [p.to_dict() for p in result.passes]
    doc._.linkguard_forced_redactions = result.forced_redactions
    doc._.linkguard_omissions = result.omissions
    doc._.linkguard_safe = result.safe
    doc._.linkguard_verdict = result.verdict
    doc._.linkguard_verified = result.verified


def result_record(doc_id: str, doc: Doc) -> Dict[str, Any]:
    """The CLI's output line for one Doc."""
    return {
        "id": doc_id,
        "text": doc._.linkguard_text,
        "safe": doc._.linkguard_safe,
        "verdict": doc._.linkguard_verdict,
        "sources": doc._.linkguard_sources if doc._.linkguard_verdict == "source" else None,
        "text_before_guarantee": doc._.linkguard_text_before_guarantee,
        "passes": doc._.linkguard_passes,
        "forced_redactions": doc._.linkguard_forced_redactions,
        "omissions": doc._.linkguard_omissions or 0,
        **({} if doc._.linkguard_verified is None else {"verified": doc._.linkguard_verified}),
    }


__all__: List[str] = ["LinkguardRewrite", "install_extensions", "result_record", "set_annotations"]
