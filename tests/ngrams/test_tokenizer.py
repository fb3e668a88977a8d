"""`get_tokenizer` is `spacy.blank("en")`'s tokenizer, made without a `Language`.

The oracle is spaCy itself: `spacy.blank("en").tokenizer` with the same
special case. Both must have the same rules and patterns and give the same
tokens (and the lexeme flags the segmenter reads) on real and awkward text.
"""
import json
import subprocess
import sys
from pathlib import Path

import pytest
import spacy
from spacy.symbols import ORTH

from spacy_linkguard.ngrams import get_tokenizer

ASSETS = Path(__file__).parents[2] / "assets"
PLACEHOLDERS = ["[REDACTED]", "<PERSON>", "***"]


def blank_tokenizer(placeholder):
    tok = spacy.blank("en").tokenizer
    tok.add_special_case(placeholder, [{ORTH: placeholder}])
    return tok


def pattern(fn):
    return fn.__self__.pattern if fn is not None else None


@pytest.mark.parametrize("placeholder", PLACEHOLDERS)
def test_same_rules_and_patterns_as_spacy_blank(placeholder):
    ours, ref = get_tokenizer(placeholder), blank_tokenizer(placeholder)
    assert ours.rules == ref.rules and placeholder in ours.rules
    for attr in ("prefix_search", "suffix_search", "infix_finditer", "token_match", "url_match"):
        assert pattern(getattr(ours, attr)) == pattern(getattr(ref, attr)), attr
    assert ours.faster_heuristics == ref.faster_heuristics
    assert ours.vocab.lang == ref.vocab.lang == "en"


def texts():
    out = []
    for name, limit in (("echr/collection.jsonl", 150), ("wiki/collection.jsonl", 150), ("tab/tab_test.jsonl", 20)):
        with open(ASSETS / name, encoding="utf-8") as f:
            for i, line in enumerate(f):
                if i >= limit:
                    break
                obj = json.loads(line)
                out.append(obj.get("text", ""))
    out += ["see https://hudoc.echr.coe.int/eng?i=001-58287, e-mail a.b@c.org!", "€5,000 (five thousand) on 3.4.2001;",
            "don't can't U.S. No. 36110/97 §1 1. 5-2", "[REDACTED],[REDACTED]'s ([REDACTED]) X[REDACTED]Y",
            "<PERSON>-<PERSON> ***, ***s", "tab\there\u00a0nbsp\u2009thin  two\n\nlines", "\u201cquoted\u201d it\u2019s :-)"]
    return out


@pytest.mark.parametrize("placeholder", PLACEHOLDERS[:2])
def test_same_tokens_and_flags_as_spacy_blank(placeholder):
    ours, ref = get_tokenizer(placeholder), blank_tokenizer(placeholder)
    n = 0
    for text in texts():
        a = [(t.text, t.idx, t.whitespace_, t.is_punct, t.is_space) for t in ours(text)]
        b = [(t.text, t.idx, t.whitespace_, t.is_punct, t.is_space) for t in ref(text)]
        assert a == b, text[:200]
        n += len(a)
    assert n > 200_000  # the texts are real documents, not a handful of words


def test_makes_no_language_so_loads_no_spacy_factories():
    """spacy.blank would import every installed package's spaCy factories
    (Presidio's and spacy-llm's pull in transformers); get_tokenizer must not."""
    code = ("import sys; from spacy_linkguard.ngrams import get_tokenizer; get_tokenizer('[REDACTED]')('a b'); "
            "print(sorted(m for m in ('presidio_analyzer', 'spacy_llm', 'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "[]"
