"""The one place that touches Presidio (presidio-analyzer/-anonymizer >=2.2.355,<2.3.0).

Everything Presidio-specific lives here, so a Presidio upgrade is checked in
one module:
- network off: tldextract (used by Presidio's e-mail recognizer) would fetch
  the public-suffix list over HTTP on first use; we clear its URL list so it
  uses the snapshot bundled with tldextract;
- the NLP engine: a `SpacyNlpEngine` configured with an explicit model name
  (never `en_core_web_lg`, never a download) whose `nlp` is the *pipeline's own*
  `Language`, so Presidio never runs or loads spaCy itself;
- `NlpArtifacts` built from the pipeline's `Doc` (private constructor use);
- the analyzer, with recognizers from Presidio-format YAML files;
- the anonymizer, one operator applied per detected span.
"""
import logging
import os
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import yaml
from spacy.language import Language
from spacy.tokens import Doc, Span

from ..errors import Errors, LinkguardError
from .spans import PiiSpan

PRESIDIO_RANGE = ">=2.2.355,<2.3.0"
_OFFLINE_DONE = False


def ensure_offline() -> None:
    """Make sure nothing Presidio uses goes to the network (idempotent).

    tldextract reads `TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS` when its default
    extractor is created at import time; an empty value disables HTTP. We set
    it before the import, and also strip non-`file://` URLs from an extractor
    that was created earlier (tldextract imported before us).
    """
    global _OFFLINE_DONE
    if _OFFLINE_DONE:
        return
    os.environ["TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS"] = "\n".join(
        u for u in os.environ.get("TLDEXTRACT_PUBLIC_SUFFIX_LIST_URLS", "").split("\n") if u.startswith("file:")
    )
    import tldextract.tldextract as tld

    tld.TLD_EXTRACTOR.suffix_list_urls = tuple(u for u in tld.TLD_EXTRACTOR.suffix_list_urls if u.startswith("file:"))
    # Presidio logs one warning per unmapped spaCy label per document; we map
    # labels ourselves, so its per-call chatter is noise.
    logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
    _OFFLINE_DONE = True


def _import_presidio():
    ensure_offline()
    try:
        import presidio_analyzer  # noqa: F401
        import presidio_anonymizer  # noqa: F401
    except ImportError as e:
        raise LinkguardError(Errors.E150.format(detail=str(e), range=PRESIDIO_RANGE)) from None


def read_yaml(path: Path) -> Dict[str, Any]:
    """Read one YAML config file as a dict (E152 when missing or malformed)."""
    path = Path(path)
    if not path.is_file():
        raise LinkguardError(Errors.E152.format(path=path, detail="file not found"))
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise LinkguardError(Errors.E152.format(path=path, detail=str(e).splitlines()[0])) from None
    if not isinstance(data, dict):
        raise LinkguardError(Errors.E152.format(path=path, detail=f"top level is {type(data).__name__}, not a mapping"))
    return data


class PresidioAnalyzer:
    """Presidio's analyzer bound to a spaCy pipeline, fed with that pipeline's Docs.

    nlp (Language): The pipeline whose Docs are analyzed (its vocab answers
        Presidio's stop-word/punctuation questions; it is never re-run).
    model_name (str): The model name written into Presidio's NLP engine
        config, so Presidio never falls back to en_core_web_lg.
    recognizer_files (Sequence[Path]): Presidio recognizer-registry YAML files.
    nlp_config_file (Path): Presidio NLP-engine YAML (its
        `ner_model_configuration`: label mapping, labels to ignore, default score).
    language (str): Presidio language code of the recognizers.
    RAISES: LinkguardError E150 (Presidio missing), E152 (bad YAML), E153
        (recognizer YAML rejected by Presidio).
    """

    def __init__(
        self,
        nlp: Language,
        *,
        model_name: str,
        recognizer_files: Sequence[Path],
        nlp_config_file: Path,
        language: str = "en",
    ):
        _import_presidio()
        from presidio_analyzer import AnalyzerEngine, RecognizerRegistry
        from presidio_analyzer.nlp_engine import NerModelConfiguration, SpacyNlpEngine
        from presidio_analyzer.recognizer_registry import RecognizerRegistryProvider

        self.language = language
        nlp_conf = read_yaml(nlp_config_file)
        ner_conf = NerModelConfiguration.from_dict(nlp_conf.get("ner_model_configuration") or {})
        self.label_map: Dict[str, str] = dict(ner_conf.model_to_presidio_entity_mapping or {})
        self.labels_to_ignore = set(ner_conf.labels_to_ignore or ())
        self.default_score = float(ner_conf.default_score)
        engine = SpacyNlpEngine(
            models=[{"lang_code": language, "model_name": model_name}],
            ner_model_configuration=ner_conf,
        )
        # Private: hand the engine our pipeline instead of calling load(),
        # which would spacy.load() (or download) a second model.
        engine.nlp = {language: nlp}
        self.engine = engine
        recognizers = []
        for path in recognizer_files:
            read_yaml(path)  # E152 with a clear message before Presidio's own errors
            try:
                provider = RecognizerRegistryProvider(conf_file=str(path))
                recognizers.extend(provider.create_recognizer_registry().recognizers)
            except Exception as e:  # Presidio raises ValueError/TypeError/pydantic errors
                cause = e.__cause__ or e  # Presidio wraps pydantic's message
                detail = " ".join(str(cause).split())[:400]
                raise LinkguardError(Errors.E153.format(path=path, detail=detail)) from None
        # The NLP recognizer (doc.ents -> results) is added once, whatever the files say.
        recognizers = [r for r in recognizers if type(r).__name__ != "SpacyRecognizer"]
        registry = RecognizerRegistry(recognizers=recognizers, supported_languages=[language])
        registry.add_nlp_recognizer(nlp_engine=engine)
        self.analyzer = AnalyzerEngine(registry=registry, nlp_engine=engine, supported_languages=[language])

    @property
    def recognizer_names(self) -> List[str]:
        return sorted(r.name for r in self.analyzer.registry.recognizers)

    @property
    def supported_entities(self) -> List[str]:
        return sorted(self.analyzer.get_supported_entities(self.language))

    def nlp_artifacts(self, doc: Doc):
        """Presidio `NlpArtifacts` for a Doc the pipeline already made.

        Entities are `doc.ents` relabelled with the configured mapping (new Span
        objects; the Doc is not changed); ignored labels are dropped.
        """
        from presidio_analyzer.nlp_engine import NlpArtifacts

        tokens = list(doc)  # one pass over the Doc (each pass builds Token objects)
        entities: List[Span] = []
        for ent in doc.ents:
            label = self.label_map.get(ent.label_, ent.label_)
            if ent.label_ in self.labels_to_ignore or label in self.labels_to_ignore:
                continue
            entities.append(Span(doc, ent.start, ent.end, label=label))
        # A list of the Doc's tokens, not the Doc: Presidio's context enhancer
        # re-iterates `tokens` once per result, and iterating a Doc builds new
        # Token objects every time (half of the analysis time on long texts).
        return NlpArtifacts(
            entities=entities,
            tokens=tokens,
            tokens_indices=[t.idx for t in tokens],
            lemmas=[t.lemma_ or t.text for t in tokens],
            nlp_engine=self.engine,
            language=self.language,
            scores=[self.default_score] * len(entities),
        )

    def analyze(
        self,
        doc: Doc,
        *,
        text: Optional[str] = None,
        entities: Optional[Iterable[str]] = None,
        score_threshold: Optional[float] = None,
    ) -> List[PiiSpan]:
        """Run every recognizer on `doc` (no second spaCy run).

        text (Optional[str]): `doc.text` when the caller has it already
            (Doc.text is rebuilt from the tokens on every access).
        RETURNS (List[PiiSpan]): Presidio's results (may overlap), in its order.
        """
        results = self.analyzer.analyze(
            text=doc.text if text is None else text,
            language=self.language,
            entities=list(entities) if entities else None,
            score_threshold=score_threshold,
            nlp_artifacts=self.nlp_artifacts(doc),
        )
        out = []
        for r in results:
            meta = r.recognition_metadata or {}
            out.append(PiiSpan(r.start, r.end, r.entity_type, float(r.score), str(meta.get("recognizer_name", ""))))
        return out


class PresidioAnonymizer:
    """Presidio's anonymizer: the replacement text of each span under one operator.

    operator (str): A Presidio operator name: "replace", "redact", "mask", "hash", ...
    params (Dict[str, Any]): The operator's parameters (e.g. {"new_value": "[REDACTED]"}).
    RAISES: LinkguardError E154 when Presidio rejects the operator or its parameters.
    """

    def __init__(self, operator: str, params: Dict[str, Any]):
        _import_presidio()
        from presidio_anonymizer import AnonymizerEngine
        from presidio_anonymizer.entities import OperatorConfig

        self.engine = AnonymizerEngine()
        self.operator = operator
        self.params = dict(params)
        self.config = {"DEFAULT": OperatorConfig(operator, self.params)}
        # "replace" with a fixed value needs no call per span (the common case).
        self._fixed = self.params.get("new_value") if operator == "replace" and "new_value" in self.params else None
        try:
            self.replacement("x", "PERSON")
        except LinkguardError:
            raise
        except Exception as e:
            raise LinkguardError(Errors.E154.format(operator=operator, params=self.params, detail=str(e))) from None

    def replacement(self, span_text: str, label: str) -> str:
        """The text that replaces `span_text` (detected as `label`)."""
        if self._fixed is not None:
            return str(self._fixed)
        from presidio_anonymizer.entities import RecognizerResult

        result = self.engine.anonymize(
            text=span_text,
            analyzer_results=[RecognizerResult(label, 0, len(span_text), 1.0)],
            operators=self.config,
        )
        return result.text

    def replacements(self, text: str, spans: Sequence[PiiSpan]) -> List[Tuple[int, int, str]]:
        """(start, end, new_text) for each (non-overlapping) span of `text`."""
        return [(s.start, s.end, self.replacement(text[s.start : s.end], s.label)) for s in spans]
