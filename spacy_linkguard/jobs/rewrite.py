"""`rewrite`: a rewrite pipeline per process, one JSON line per document."""
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, Iterator, List

from .base import Stateful


@dataclass
class RewriteJob(Stateful):
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

            from .rewrite_pipeline import load_rewrite_pipeline
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
        from .sources import sourced_docs
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


def rewrite_tags(nlp: Any, component: str) -> Dict[str, Any]:
    """{system, model, k, max_arity} of the rewrite component, from the pipeline's
    own (already parsed) config: the output lines carry them for `evaluate`."""
    from ..llm.models.describe import describe_model, model_block
    from .tags import output_tags

    pipe = nlp.get_pipe(component)
    # The model block describes the model only when the backend is the LLM one (task + model).
    block = model_block(dict(nlp.config), component) if getattr(pipe.rewriter, "task", None) is not None else None
    model = describe_model(block) if block is not None else pipe.rewriter.describe()
    return output_tags(system=pipe.rewriter.system, model=model, k=pipe.cfg["k"], max_arity=pipe.cfg["max_arity"])
