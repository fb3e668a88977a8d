"""One job per command: its options (picklable, sent to each worker) and its
state, built once per process by `setup()` (the parent builds it too, so a bad
index or config fails before any worker starts).

`run(records)` yields one result per record, in order: what the command
writes for it. The commands call the same job with `--workers 1` in their own
process, so one code path makes every line. The per-document helpers stay in
the command modules (`cli/`: `line_sources`, `sourced_docs`, ...) and are
imported lazily, so a worker loads only what its command needs.
"""
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple


class _Stateful:
    """Pickles its options only: each process builds its own state."""

    _state: Any = None

    def __getstate__(self) -> Dict[str, Any]:
        d = dict(self.__dict__)
        d.pop("_state", None)
        return d


@dataclass
class _DetectionJob(_Stateful):
    """The options `detect` and `show` share: the index and the detection settings."""

    index: str
    k: int = 2
    max_arity: int = 3
    verdict: str = "auto"
    verify: bool = False
    max_n: Optional[int] = None
    placeholder: Optional[str] = None

    def __getstate__(self) -> Dict[str, Any]:
        d = super().__getstate__()
        d["verify"] = False  # the parent checked every byte already; a worker need not again
        return d


@dataclass
class DetectJob(_DetectionJob):
    """`detect`: result (JSON line, safe, verdict) per record."""

    # detection_preload first: it sets the threads before NumPy and spaCy load.
    preload = ("spacy_linkguard.parallel.detection_preload", "spacy_linkguard.detect", "spacy_linkguard.index",
               "spacy_linkguard.pipeline.linkguard", "spacy_linkguard.cli.detect_cmds")

    def setup(self):
        """RETURNS (Detector). RAISES: the coded errors of open_index and Detector."""
        if self._state is None:
            from ..detect import Detector
            from ..index import open_index
            from ..pipeline.linkguard import requested_settings

            idx = open_index(self.index, verify=self.verify)
            settings = requested_settings(idx.settings, max_n=self.max_n, placeholder=self.placeholder)
            self._state = Detector(idx, k=self.k, max_arity=self.max_arity, settings=settings)
        return self._state

    def run(self, records: Iterable[Any]) -> Iterator[Tuple[str, bool, str]]:
        from ..cli.detect_cmds import line_sources

        detector = self.setup()
        for rec in records:
            res = detector.detect(rec.text, line_sources(detector, self.verdict, rec))
            yield json.dumps({"id": rec.id, **res.to_dict()}, ensure_ascii=False) + "\n", res.safe, res.verdict


@dataclass
class ShowJob(_DetectionJob):
    """`show`: the page's item (`display.report_item`) per record."""

    preload = DetectJob.preload + ("spacy_linkguard.display",)

    def setup(self):
        """RETURNS (Language): spacy.blank("en") + linkguard, initialized."""
        if self._state is None:
            import spacy
            from spacy.symbols import ORTH

            from ..index import open_index
            from ..pipeline import factories  # noqa: F401 -- registers "linkguard" even without entry points

            nlp = spacy.blank("en")
            linkguard = nlp.add_pipe("linkguard", config={
                "k": self.k, "max_arity": self.max_arity, "max_n": self.max_n, "placeholder": self.placeholder,
                "verify": self.verify, "verdict": self.verdict})
            linkguard.initialize(nlp=nlp, index=open_index(self.index, verify=self.verify))
            # Keep the placeholder one token on the page, as the detector does.
            ph = linkguard.settings.placeholder  # the index's
            nlp.tokenizer.add_special_case(ph, [{ORTH: ph}])
            self._state = nlp
        return self._state

    def run(self, records: Iterable[Any]) -> Iterator[Dict[str, Any]]:
        from ..cli.detect_cmds import line_sources
        from ..display import report_item

        nlp = self.setup()
        detector = nlp.get_pipe("linkguard").detector
        for rec in records:
            # The page only tokenizes: spaCy's max_length (a memory guard for
            # parsers) need not refuse a long document here.
            nlp.max_length = max(nlp.max_length, len(rec.text) + 1)
            doc = nlp.make_doc(rec.text)
            doc.user_data["id"] = rec.id
            doc._.linkguard_sources = line_sources(detector, self.verdict, rec)
            for _, proc in nlp.pipeline:
                doc = proc(doc)
            yield report_item(doc)


@dataclass
class RewriteJob(_Stateful):
    """`rewrite`: the JSON line per record; records go through `nlp.pipe`, so the
    rewrite component batches generation inside each process. With GPUs, each
    worker process sees one of them (`pool.visible_gpus`, round robin)."""

    uses_gpu = True

    config: str
    index: str
    overrides: Dict[str, Any] = field(default_factory=dict)
    component: str = "linkguard_rewrite"
    verdict: str = "auto"
    verify: bool = False
    # Modules that registered the config's functions in the parent (e.g. a
    # test's canned model, or code imported before the command ran): a worker
    # imports them before it builds the pipeline.
    imports: List[str] = field(default_factory=list)

    def __getstate__(self) -> Dict[str, Any]:
        d = super().__getstate__()
        d["verify"] = False
        return d

    def setup(self):
        """RETURNS (Tuple[Language, dict]): the initialized pipeline and the output tags.
        RAISES: E010/E218 (config), E215 (no such component), the index's coded errors."""
        if self._state is None:
            from importlib import import_module

            from ..cli.rewrite_cmds import load_rewrite_pipeline, rewrite_tags
            from ..configs import resolve_config
            from ..errors import Errors, LinkguardError
            from ..index import open_index
            from ..llm.local_models import offline_env

            for name in self.imports:
                import_module(name)
            offline_env()
            self.config = str(resolve_config(self.config))  # a .cfg path or a shipped config's name (E010/E219)
            nlp = load_rewrite_pipeline(Path(self.config), self.overrides, index=Path(self.index),
                                        component=self.component)
            if self.component not in nlp.pipe_names:
                raise LinkguardError(Errors.E215.format(path=self.config, name=self.component, pipes=nlp.pipe_names))
            nlp.get_pipe(self.component).cfg["verdict"] = self.verdict  # each Doc's sources are resolved in run
            # A damaged index fails now, before the model loads (on first use); the
            # components then get this open index from the opener's cache.
            open_index(self.index, verify=self.verify)
            nlp.initialize()  # [initialize.components.<component>] index: the --index folder
            if not self.imports:
                self.imports = registered_modules(nlp.config)
            self._state = (nlp, rewrite_tags(nlp, self.component))
        return self._state

    @property
    def batch_size(self) -> int:
        """Documents a worker gets at a time: the component's `batch_size`, generated together."""
        nlp, _ = self.setup()
        return int(nlp.get_pipe(self.component).cfg.get("batch_size", 8))

    def run(self, records: Iterable[Any]) -> Iterator[str]:
        from ..cli.rewrite_cmds import sourced_docs
        from ..pipeline.rewrite import result_record

        nlp, tags = self.setup()
        # The component's batch_size, not [nlp] batch_size: a line is out (and checkpointed) per batch.
        docs = nlp.pipe(sourced_docs(nlp, nlp.get_pipe(self.component).detector, self.verdict, records),
                        batch_size=self.batch_size)
        for doc in docs:
            yield json.dumps({**result_record(doc.user_data["id"], doc), **tags}, ensure_ascii=False) + "\n"


def registered_modules(config: Any) -> List[str]:
    """The modules (other than spaCy's and its plugins', which entry points reach) that define the
    registered functions a config names (`@llm_models = "..."` and the like),
    as the running process has them registered."""
    from spacy.util import registry

    found: List[str] = []

    def walk(node: Any) -> None:
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if isinstance(key, str) and key.startswith("@") and isinstance(value, str):
                try:
                    func = registry.get(key[1:], value)
                except Exception:  # unknown registry or name: building the pipeline said so already
                    continue
                mod = getattr(func, "__module__", None)
                if mod and mod not in found and mod != "__main__" and not mod.startswith("spacy"):
                    found.append(mod)
            walk(value)

    walk(dict(config))
    return found


@dataclass
class ParaphraseJob(_Stateful):
    """`paraphrase`: the output line (a dict) per record, as `paraphrase_cmd` wrote it."""

    lexical: Dict[str, Any]  # make_lexical's arguments
    seed: int = 0
    spans_only: bool = False
    index: Optional[str] = None
    k: int = 2
    max_arity: int = 3
    passes: int = 3
    verdict: str = "auto"
    guarantee: bool = True
    given_spans: Dict[str, List[Any]] = field(default_factory=dict)

    def setup(self):
        """RETURNS (Tuple[LexicalParaphraser, Optional[RewriteLoop], Optional[Detector], dict]):
        paraphraser, loop (--spans-only --index), detector (whenever --index is given: each
        output line is checked), output tags."""
        if self._state is None:
            from ..baselines.registry import make_lexical
            from ..cli.output import output_tags

            paraphraser = make_lexical(**self.lexical)
            loop = detector = None
            if self.index is not None:
                from ..detect import Detector
                from ..index import open_index

                detector = Detector(open_index(self.index), k=self.k, max_arity=self.max_arity)
            if self.spans_only and detector is not None:
                from ..baselines.rewriter import LexicalRewriter
                from ..rewrite import RewriteLoop

                loop = RewriteLoop(detector, LexicalRewriter(paraphraser), max_passes=self.passes,
                                   guarantee=self.guarantee)
            detected = detector is not None
            tags = output_tags(system="lexical" if self.spans_only else "wordnet", model=paraphraser.describe(),
                               k=self.k if detected else None, max_arity=self.max_arity if detected else None)
            self._state = (paraphraser, loop, detector, tags)
        return self._state

    def run(self, records: Iterable[Any]) -> Iterator[Dict[str, Any]]:
        import time

        from ..cli.paraphrase_cmd import _checked, _line, _loop_line, doc_seed
        from ..errors import Errors, LinkguardError

        paraphraser, loop, detector, tags = self.setup()
        for rec in records:
            t0 = time.perf_counter()
            s = doc_seed(self.seed, rec.id)
            if not self.spans_only:
                res = paraphraser.paraphrase_document(rec.text, seed=s)
                line = _line(rec, res.text, res, mode="document")
            elif loop is None:
                if rec.id not in self.given_spans:
                    raise LinkguardError(Errors.E286.format(doc_id=rec.id, line=rec.line))
                res = paraphraser.paraphrase_spans(rec.text, self.given_spans[rec.id], seed=s)
                line = _line(rec, res.text, res, mode="spans")
            else:
                line = _loop_line(rec, loop, s, self.verdict)
            if loop is None:  # the loop's line says it already; else detect the output (safe: None without --index)
                line.update(_checked(detector, self.verdict, rec, line["text"]))
            line["seconds"] = round(time.perf_counter() - t0, 4)
            line.update(tags)
            yield line


@dataclass
class DeidentifyJob(_Stateful):
    """`deidentify`: (output record, [[start, end], ...], language) per record."""

    model: str
    config: Dict[str, Any] = field(default_factory=dict)
    batch_size: int = 8

    def setup(self):
        if self._state is None:
            from ..deid.runner import load_pipeline

            self._state = load_pipeline(self.model, config=self.config)
        return self._state

    def run(self, records: Iterable[Any]) -> Iterator[Tuple[Dict[str, Any], List[List[int]], str]]:
        from ..deid.runner import deidentified_record, deidentify_texts

        nlp = self.setup()
        records = list(records)
        results = deidentify_texts(nlp, (r.text for r in records), batch_size=self.batch_size,
                                   ids=(r.id for r in records))
        for rec, res in zip(records, results):
            yield (deidentified_record(rec, res), [[s.start, s.end] for s in res.spans],
                   res.report.get("language", "unknown"))
