"""A fresh process finds our registered names through entry points alone."""
import json
import subprocess
import sys

CODE = r"""
import json, sys
import spacy
from spacy_llm.registry import registry
assert not any(m.startswith("spacy_linkguard.llm") for m in sys.modules)
task = registry.llm_tasks.get("linkguard.Rewrite.v1")
model = registry.llm_models.get("linkguard.HF.v1")
nlp = spacy.blank("en")
resolved = registry.resolve({"t": {"@llm_tasks": "linkguard.Rewrite.v1", "examples": []}})["t"]
print(json.dumps({"task": task.__module__, "model": model.__module__,
                  "factory": spacy.registry.factories.get("linkguard_rewrite").__module__,
                  "resolved": type(resolved).__name__}))
"""


def test_fresh_process_resolves_task_model_and_factory():
    proc = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out == {
        "task": "spacy_linkguard.llm.tasks.rewrite.registry",
        "model": "spacy_linkguard.llm.models.registry",
        "factory": "spacy_linkguard.pipeline.factories",
        "resolved": "RewriteTask",
    }


SPANS_CODE = r"""
import json, sys
from spacy_llm.registry import registry
assert not any(m.startswith("spacy_linkguard.llm") for m in sys.modules)
task = registry.llm_tasks.get("linkguard.RewriteSpans.v1")
resolved = registry.resolve({"t": {"@llm_tasks": "linkguard.RewriteSpans.v1", "examples": []}})["t"]
print(json.dumps({"task": task.__module__, "resolved": type(resolved).__name__}))
"""


def test_fresh_process_resolves_the_spans_task():
    # `make test` reinstalls when setup.cfg changes, so a missing entry point is a real failure.
    proc = subprocess.run([sys.executable, "-c", SPANS_CODE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {
        "task": "spacy_linkguard.llm.tasks.rewrite_spans.registry",
        "resolved": "RewriteSpansTask",
    }


BACKENDS_CODE = r"""
import json, sys
import spacy
from spacy_llm.registry import registry
assert not any(m.startswith("spacy_linkguard") for m in sys.modules)
task = registry.resolve({"t": {"@llm_tasks": "linkguard.RewriteNoSpans.v1"}})["t"]
lexical = spacy.registry.misc.get("linkguard.LexicalRewriter.v1")
print(json.dumps({"task": type(task).__name__, "lexical": lexical.__module__}))
"""


def test_fresh_process_resolves_the_rewriting_backends():
    import configparser
    from importlib.metadata import entry_points
    from pathlib import Path

    cfg = configparser.ConfigParser()
    cfg.read(Path(__file__).parents[2] / "setup.cfg")
    declared = cfg["options.entry_points"]["thinc_llm_tasks"] + cfg["options.entry_points"]["spacy_misc"]
    installed = {ep.name for group in ("thinc_llm_tasks", "spacy_misc") for ep in entry_points(group=group)}
    # A fresh process finds the backends only through installed entry points:
    # an install older than setup.cfg is a setup error, reported as such.
    assert "linkguard.RewriteNoSpans.v1" in declared
    assert "linkguard.RewriteNoSpans.v1" in installed, "the installed entry points predate setup.cfg: reinstall (`make test` does)"
    proc = subprocess.run([sys.executable, "-c", BACKENDS_CODE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.strip().splitlines()[-1]) == {
        "task": "NoSpanRewriteTask", "lexical": "spacy_linkguard.baselines.registry"}
