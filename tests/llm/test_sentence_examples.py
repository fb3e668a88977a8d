"""The sentence task's few-shot examples: bundled sets by name, a file of one's own, coded errors."""
from pathlib import Path

import pytest
from spacy_llm.registry import registry
from thinc.api import Config

from spacy_linkguard.errors import LinkguardError
from spacy_linkguard.filters.f2_facts import check_facts
from spacy_linkguard.llm.tasks.rewrite.util import read_examples
from spacy_linkguard.llm.tasks.rewrite_sentences.registry import make_rewrite_sentences_task
from spacy_linkguard.llm.tasks.rewrite_sentences.util import BUNDLED_EXAMPLES, DEFAULT_EXAMPLES_PATH

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
SENTENCE_CONFIGS = ["rewrite_qwen25_1p5b.cfg", "rewrite_qwen25_1p5b_cpu.cfg", "rewrite_qwen25_1p5b_llamacpp.cfg",
                    "rewrite_qwen3_sentences.cfg"]
COURT_WORDS = ("applicant", "court", "judgment", "convention", "government")


def sentences_of(task):
    return [eg.sentence for eg in task.prompt_examples]


def prompt(task):
    text = "He played for the club in 1990 and scored twice in the final."
    (chunk,) = [c for c in task.chunks(text, [(0, 22)]) if c.flagged]
    return task.render(chunk)


def test_the_default_is_the_set_written_for_judgments():
    assert DEFAULT_EXAMPLES_PATH == BUNDLED_EXAMPLES["echr"]
    assert sentences_of(make_rewrite_sentences_task()) == sentences_of(make_rewrite_sentences_task(examples="echr"))


def test_a_bundled_set_by_name_reaches_the_prompt():
    wiki, echr = make_rewrite_sentences_task(examples="wiki"), make_rewrite_sentences_task(examples="echr")
    assert sentences_of(wiki) == [eg["sentence"] for eg in read_examples(BUNDLED_EXAMPLES["wiki"])]
    assert set(sentences_of(wiki)).isdisjoint(sentences_of(echr))
    shown = prompt(wiki)
    assert all(s in shown for s in sentences_of(wiki)) and not any(s in shown for s in sentences_of(echr))


def test_the_biography_set_holds_no_court_wording():
    # the reason the set exists: judgment examples put "the applicant" into biographies
    for eg in read_examples(BUNDLED_EXAMPLES["wiki"]):
        words = " ".join([eg["sentence"], eg["rewritten"], eg.get("before", ""), eg.get("after", "")]).lower()
        assert not [w for w in COURT_WORDS if w in words], eg["sentence"]


@pytest.mark.parametrize("name", sorted(BUNDLED_EXAMPLES))
def test_every_bundled_rewrite_passes_the_tasks_own_fact_guard(name):
    # an example that drops or changes a fact would teach what the guard rejects
    for eg in read_examples(BUNDLED_EXAMPLES[name]):
        sentence = eg["sentence"]
        flagged = []
        for phrase in eg["phrases"]:
            start = sentence.lower().index(phrase.lower())
            flagged.append((start, start + len(phrase)))
        assert check_facts(sentence, eg["rewritten"], flagged) is None, (name, sentence)


def test_a_file_of_ones_own_examples(tmp_path):
    path = tmp_path / "notes.yml"
    path.write_text(
        '- sentence: "The patient was admitted with chest pain after a fall at home."\n'
        '  phrases: ["a fall at home"]\n'
        '  rewritten: "The patient was admitted with chest pain after falling in the house."\n',
        encoding="utf8",
    )
    task = make_rewrite_sentences_task(examples=str(path))
    assert sentences_of(task) == ["The patient was admitted with chest pain after a fall at home."]


@pytest.mark.parametrize("value", ["biographies", "no/such/file.yml"])
def test_neither_a_set_nor_a_file_is_a_coded_error_naming_the_sets(value):
    with pytest.raises(LinkguardError, match=r"E234.*'echr', 'wiki'"):
        make_rewrite_sentences_task(examples=value)


def test_an_invalid_example_in_ones_own_file_is_still_e204(tmp_path):
    path = tmp_path / "bad.yml"
    path.write_text('- sentence: "A short sentence."\n  phrases: ["short"]\n  rewritten: "A short one."\n',
                    encoding="utf8")
    with pytest.raises(LinkguardError, match="E204"):
        make_rewrite_sentences_task(examples=str(path))


@pytest.mark.parametrize("name", SENTENCE_CONFIGS)
def test_the_sentence_configs_take_their_examples_from_paths_examples(name):
    def task_of(overrides):
        cfg = Config().from_disk(CONFIGS / name, overrides=overrides)
        return registry.resolve({"t": cfg["components"]["linkguard_rewrite"]["rewriter"]["task"]})["t"]

    assert Config().from_disk(CONFIGS / name)["paths"]["examples"] == "echr"
    assert sentences_of(task_of({})) == sentences_of(make_rewrite_sentences_task(examples="echr"))
    assert sentences_of(task_of({"paths.examples": "wiki"})) == sentences_of(make_rewrite_sentences_task(examples="wiki"))
