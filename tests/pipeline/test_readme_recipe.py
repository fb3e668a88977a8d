"""The README's `nlp.pipe` recipe, run as written with every shipped rewrite config.

The recipe's code is taken from README.md itself; only the config name changes.
Where a config names a model this machine cannot run in a test (a GPU model,
the 1.5B model on one CPU thread, or llama.cpp), the test replaces its model
block with the canned-reply model of tests/rewrite/canned.py (its replies are
canned and say nothing about a model's quality; for the span-list task they
do not parse, so guarantee mode redacts). A config whose task and model sit in
a `rewriter` block (`linkguard.SentenceRewriter.v1`) gets the canned model
there, and its ranking's sentence model on the CPU. `rewrite_cpu` runs with its real
SmolLM2-135M model (models/, as `make test` fetches it); `rewrite_lexical`
with WordNet. Each released text is checked against a brute-force oracle.
"""
import io
import json
import re
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import spacy

from spacy_linkguard.configs import resolve_config, shipped_configs
from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.index import NgramIndex

from ..rewrite import canned  # noqa: F401  (registers linkguard_test.Canned.v1)
from ..rewrite.oracle import CORPUS, QUERY, DictIndex, brute_force
from ..test_docs_examples import REPO, extract_examples

RECIPE_LINE = 'config = spacy.util.load_config(resolve_config("rewrite_cpu"), overrides={"paths.index": "indexes/echr"})'
REAL_MODEL = {"rewrite_cpu", "rewrite_lexical"}  # run as shipped; the others get the canned model
CANNED_MODEL = '{"@llm_models": "linkguard_test.Canned.v1", "behaviour": "good"}'
CANNED_BLOCK = f'\nconfig["components"]["linkguard_rewrite"]["model"] = {CANNED_MODEL}\n'
# the sentence configs: task and model inside the component's `rewriter` block
CANNED_REWRITER_BLOCK = (f'\nconfig["components"]["linkguard_rewrite"]["rewriter"]["model"] = {CANNED_MODEL}\n'
                         'if "similarity_device" in config["components"]["linkguard_rewrite"]["rewriter"]:\n'
                         '    config["components"]["linkguard_rewrite"]["rewriter"]["similarity_device"] = "cpu"\n')


def readme_recipe() -> str:
    recipes = [e.code for e in extract_examples(REPO / "README.md")
               if e.language == "python" and "rewrite.pipe(" in e.code]
    assert len(recipes) == 1, "the README has one nlp.pipe recipe"
    assert RECIPE_LINE in recipes[0], "the recipe loads a shipped config by name with paths.index"
    return recipes[0]


def pipeline_configs():
    """The shipped configs that are pipelines (have [nlp]); the other one is the
    no-span-list baseline's block for `rewrite-nospans`, not a pipeline."""
    names = []
    for name in shipped_configs():
        text = resolve_config(name).read_text(encoding="utf-8")
        if re.search(r"^\[nlp\]", text, re.M):
            names.append(name)
        else:
            assert name == "baseline_nospans", f"{name} is neither a pipeline nor the known baseline block"
    return names


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A folder with indexes/echr (over the oracle's corpus) and to_release.jsonl
    (documents made from collection documents, named by their ids)."""
    root = tmp_path_factory.mktemp("recipe")
    NgramIndex.build([{"id": f"d{i}", "text": t} for i, t in enumerate(CORPUS)], root / "indexes" / "echr",
                     progress=False, n_process=1)
    docs = [("d0", QUERY), ("d1", CORPUS[1])]
    (root / "to_release.jsonl").write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in docs),
                                           encoding="utf-8")
    (root / "models").symlink_to(REPO / "models")
    return root


@pytest.mark.parametrize("name", pipeline_configs())
def test_the_readme_recipe_works_with_every_shipped_config(name, workdir, monkeypatch):
    if name == "rewrite_cpu" and not (REPO / "models" / "SmolLM2-135M-Instruct-hf" / "config.json").is_file():
        pytest.fail("models/SmolLM2-135M-Instruct-hf is missing: run `python -m spacy_linkguard fetch-models "
                    "--dest models --only smollm2` (make test does)")
    code = readme_recipe().replace('resolve_config("rewrite_cpu")', f'resolve_config("{name}")')
    if name not in REAL_MODEL:
        cfg = spacy.util.load_config(resolve_config(name), interpolate=False)
        in_rewriter = "model" in cfg["components"]["linkguard_rewrite"].get("rewriter", {})
        code = code.replace(RECIPE_LINE.replace("rewrite_cpu", name), RECIPE_LINE.replace("rewrite_cpu", name)
                            + (CANNED_REWRITER_BLOCK if in_rewriter else CANNED_BLOCK))
    # The recipe prints "id safe forced" and then the released text, per document.
    code = code.replace("print(doc._.linkguard_text)", "print(json.dumps(doc._.linkguard_text))")
    monkeypatch.chdir(workdir)
    out = io.StringIO()
    with redirect_stdout(out):
        exec(compile("import json\n" + code, f"README recipe ({name})", "exec"), {"__name__": "__recipe__"})
    lines = out.getvalue().splitlines()
    assert len(lines) == 4, out.getvalue()
    oracle_index = DictIndex(CORPUS)
    for head, text in zip(lines[::2], lines[1::2]):
        doc_id, safe, _forced = head.split(" ", 2)
        assert doc_id in ("d0", "d1") and safe == "True"
        # the recipe's verdict is source (the document it was made from): the oracle agrees
        assert not links_to(json.loads(text), int(doc_id[1:]), oracle_index)


def links_to(text: str, doc_no: int, index: DictIndex) -> bool:
    """Whether some rare N-gram or linkable combination of `text` finds document `doc_no`
    (a minimal one finds every document a larger one finds, so the minimal ones suffice)."""
    v = brute_force(text, index)
    return (any(doc_no in index.docs_of(o.key) for o in v.minimal_rare)
            or any(doc_no in frozenset.intersection(*(index.docs_of(c) for c in combo)) for combo in v.combos))


def test_the_recipe_documents_link_before_rewriting():
    """Without this the test above would pass on documents with nothing to rewrite."""
    assert links_to(QUERY, 0, DictIndex(CORPUS)) and links_to(CORPUS[1], 1, DictIndex(CORPUS))


def test_an_index_override_that_reaches_no_component_is_an_error(workdir, tmp_path):
    """A config that sets [paths] index and passes it nowhere: E020 at initialize, not E209 on the first Doc."""
    text = resolve_config("rewrite_lexical").read_text(encoding="utf-8")
    cut = text[: text.index("[initialize]")]
    (tmp_path / "no_init.cfg").write_text(cut, encoding="utf-8")
    config = spacy.util.load_config(tmp_path / "no_init.cfg",
                                    overrides={"paths.index": str(workdir / "indexes" / "echr")})
    nlp = spacy.util.load_model_from_config(config, auto_fill=True)
    with pytest.raises(LinkguardError, match=r"E020.*indexes/echr.*\[initialize.components.linkguard_rewrite\]"):
        nlp.initialize()
    # Without the override nothing was asked for: initialize passes (the index may come later).
    nlp = spacy.util.load_model_from_config(spacy.util.load_config(tmp_path / "no_init.cfg"), auto_fill=True)
    nlp.initialize()
