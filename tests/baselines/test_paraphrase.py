"""Paraphrasing on real POS tags (spaCy pipeline) and the real WordNet database,
scored by the cheap deterministic word-overlap scorer of conftest.py."""
import difflib
import random

import pytest

from spacy_linkguard.baselines.paraphrase import (
    Edit,
    LexicalSettings,
    apply_edits,
    paraphrase_document,
    paraphrase_spans,
    paraphrase_spans_batch,
    synonym_forms,
)
from spacy_linkguard.errors import LinkguardError

pytestmark = pytest.mark.slow  # loads the spaCy pipeline

TEXT = ("The applicants were represented by [REDACTED], a lawyer practising in [REDACTED]. "
        "The judges decided the cases quickly. The children walked to the old schools. "
        "She bought an expensive car and the court rejected the complaints.")


def _span(text, phrase):
    start = text.index(phrase)
    return start, start + len(phrase)


def _tag_in_context(nlp, sentence, start, form):
    """The tag the pipeline gives `form` when put at `start` of `sentence` (its head word)."""
    doc = nlp(sentence)
    span = doc.char_span(start, start + len(form), alignment_mode="expand")
    return span.root.tag_


@pytest.mark.parametrize("sentence,word", [
    ("The lawyers examined the documents carefully.", "lawyers"),
    ("The judges decided the cases yesterday.", "decided"),
    ("The judges decided the cases yesterday.", "judges"),
    ("The children walked to the schools.", "children"),
    ("The applicant is seeking compensation.", "seeking"),
    ("The court rejected the complaint.", "court"),
    ("She bought a bigger car.", "bigger"),
    ("He examined the documents carefully.", "carefully"),
])
def test_synonyms_are_wordnet_synonyms_with_the_same_pos_and_tag(nlp, wordnet, sentence, word):
    doc = nlp(sentence)
    token = next(t for t in doc if t.text == word)
    pos = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}[token.pos_]
    forms = synonym_forms(token, wordnet, LexicalSettings())
    assert forms, f"{word} has WordNet synonyms"
    own_synsets = {s.offset for s in wordnet.synsets(token.lemma_, pos)}
    for form in forms:
        assert form.casefold() != word.casefold()
        # Its base form (WordNet's morphy on the head word, or the phrase itself)
        # shares a synset with the original lemma, for the same POS.
        words = form.split()
        head = words[0] if pos == "v" else words[-1]
        bases = [" ".join(words[:-1] + [b]) if pos != "v" else " ".join([b] + words[1:])
                 for b in wordnet.morphy(head, pos)] + [form]
        if form.startswith(("more ", "most ")):
            bases.append(form.split(" ", 1)[1])
        assert any(own_synsets & {s.offset for s in wordnet.synsets(b, pos)} for b in bases), (word, form)
    # The inflection matches the tag: the first synonym, put in place, is tagged like the word
    # (plural stays plural, past stays past, comparative stays comparative).
    new = sentence[:token.idx] + forms[0] + sentence[token.idx + len(word):]
    assert _tag_in_context(nlp, new, token.idx, forms[0]) == token.tag_, (word, forms[0], new)


def test_plural_and_past_forms(nlp, wordnet):
    doc = nlp("The lawyers examined the documents.")
    lawyers, examined = doc[1], doc[2]
    assert "attorneys" in synonym_forms(lawyers, wordnet, LexicalSettings())
    forms = synonym_forms(examined, wordnet, LexicalSettings())
    assert forms and all(f.split()[0].endswith("ed") or f.split()[0] in {"took", "went"} for f in forms)
    assert "analyzed" in forms or "studied" in forms


def _changed_ranges(a: str, b: str):
    """Oracle: the character ranges of `a` that differ in `b` (difflib)."""
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    return [(i1, i2) for op, i1, i2, j1, j2 in matcher.get_opcodes() if op != "equal"]


def test_spans_only_changes_only_the_spans(nlp, wordnet, cheap_scorer):
    spans = [_span(TEXT, "lawyer practising"), _span(TEXT, "cases quickly"), _span(TEXT, "expensive car")]
    res = paraphrase_spans(nlp(TEXT), spans, wordnet=wordnet, scorer=cheap_scorer, seed=3)
    assert res.text != TEXT
    assert res.text == apply_edits(TEXT, res.edits)
    assert len(res.edits) == 3 and not res.unchanged
    # Every change lies inside a span's neighbourhood: an a/an before it ("an "),
    # one space after it (a dropped last word).
    for i1, i2 in _changed_ranges(TEXT, res.text):
        assert any(s - 3 <= i1 and i2 <= e + 1 for s, e in spans), (i1, i2, TEXT[i1:i2])
    for (s, e), edit in zip(spans, res.edits):
        # The flagged phrase is gone: its case-folded text changed.
        assert TEXT[s:e].casefold() not in edit.replacement.casefold()
        assert edit.original == TEXT[edit.start:edit.end]
    assert res.text.count("[REDACTED]") == 2
    assert "  " not in res.text


def test_spans_only_unchangeable_span_is_reported(nlp, wordnet, cheap_scorer):
    text = "It was on [REDACTED] in Paris."
    spans = [_span(text, "in Paris")]
    res = paraphrase_spans(nlp(text), spans, wordnet=wordnet, scorer=cheap_scorer)
    assert res.text == text and res.edits == [] and res.unchanged == [spans[0]]
    assert res.stats() == {"n_phrases": 1, "n_edited": 0, "n_unchanged": 1, "n_synonyms": 0, "n_dropped": 0}


def test_spans_accept_flagged_span_objects_and_reject_bad_ranges(nlp, wordnet, cheap_scorer):
    from spacy_linkguard.detect import FlaggedSpan

    s, e = _span(TEXT, "lawyer")
    flagged = FlaggedSpan(start_char=s, end_char=e, label="NGRAM", key="lawyer", df=1)
    res = paraphrase_spans(nlp(TEXT), [flagged, {"start": s, "end": e}], wordnet=wordnet, scorer=cheap_scorer)
    assert len(res.edits) == 1 and res.edits[0].start >= s - 3
    # A whitespace-only span has nothing to rewrite and is not reported as unchanged.
    spaced = "Hello   world"
    res = paraphrase_spans(nlp(spaced), [(5, 8)], wordnet=wordnet, scorer=cheap_scorer)
    assert res.text == spaced and res.edits == [] and res.unchanged == []
    with pytest.raises(LinkguardError, match="E284"):
        paraphrase_spans(nlp(TEXT), [(5, 5000)], wordnet=wordnet, scorer=cheap_scorer)


def test_dropped_modifier_fixes_article_and_spacing(nlp, wordnet):
    # A scorer that prefers the shortest candidate: dropping "old" wins.
    def shortest(requests):
        return [[-len(c) for c in r.candidates] for r in requests]

    text = "She sold an old car to a friend."
    res = paraphrase_spans(nlp(text), [(12, 15)], wordnet=wordnet, scorer=shortest)
    assert res.text == "She sold a car to a friend."
    assert res.edits == [Edit(start=9, end=16, original="an old ", replacement="a ", n_synonyms=0, n_dropped=1,
                              score=res.edits[0].score, n_candidates=res.edits[0].n_candidates)]


def test_article_inside_a_span_is_re_agreed(nlp, wordnet):
    # A scorer that prefers candidates changing "appeal" to a consonant-initial word.
    def consonant(requests):
        return [[1.0 if " a " in f" {c} " else 0.0 for c in r.candidates] for r in requests]

    text = "He lodged an appeal with the court."
    span = (text.index("an appeal"), text.index("an appeal") + len("an appeal"))
    res = paraphrase_spans(nlp(text), [span], wordnet=wordnet, scorer=consonant)
    (edit,) = res.edits
    words = edit.replacement.split()
    assert words[0] == "a" and words[1][0] not in "aeiou", edit
    # Every candidate had its article agree with the next word.
    seen = []

    def record(requests):
        seen.extend(c for r in requests for c in r.candidates)
        return [[0.0] * len(r.candidates) for r in requests]

    paraphrase_spans(nlp(text), [span], wordnet=wordnet, scorer=record)
    assert len(seen) >= 2
    for cand in seen:
        w = cand.split()
        assert w[0] == ("an" if w[1][0] in "aeiou" else "a"), cand


def test_hyphenated_words_are_left_alone(nlp, wordnet, cheap_scorer):
    text = "The complaint was manifestly ill-founded and well-known."
    res = paraphrase_document(nlp(text), wordnet=wordnet, scorer=cheap_scorer, rate=1.0)
    assert "ill-founded" in res.text and "well-known" in res.text
    assert res.text != text  # the other content words still change


def test_document_mode_is_deterministic_with_a_seed(nlp, wordnet, cheap_scorer):
    doc = nlp(TEXT)
    runs = {seed: paraphrase_document(doc, wordnet=wordnet, scorer=cheap_scorer, rate=0.5, seed=seed).text
            for seed in range(5)}
    again = paraphrase_document(doc, wordnet=wordnet, scorer=cheap_scorer, rate=0.5, seed=2).text
    assert again == runs[2]
    assert len(set(runs.values())) > 1  # the seed matters
    assert all(t.count("[REDACTED]") == 2 for t in runs.values())


def test_document_mode_rate(nlp, wordnet, cheap_scorer):
    doc = nlp(TEXT)
    none = paraphrase_document(doc, wordnet=wordnet, scorer=cheap_scorer, rate=0.0)
    assert none.text == TEXT and none.stats()["n_phrases"] == 0
    full = paraphrase_document(doc, wordnet=wordnet, scorer=cheap_scorer, rate=1.0)
    # Every content word that has a candidate is rewritten (and only content words).
    content = [t for t in doc if t.pos_ in ("NOUN", "VERB", "ADJ", "ADV") and not t.is_stop and t.is_alpha
               and "REDACTED" not in t.text]
    assert full.stats()["n_phrases"] == len(content)
    assert full.stats()["n_edited"] >= len(content) - 3
    for t in ("lawyer", "judges", "children"):
        assert f" {t} " not in full.text
    with pytest.raises(LinkguardError, match="E283"):
        paraphrase_document(doc, wordnet=wordnet, scorer=cheap_scorer, rate=1.5)


def test_candidate_sampling_is_bounded_and_seeded(nlp, wordnet):
    calls = []

    def record(requests):
        calls.append([r.candidates for r in requests])
        return [[0.0] * len(r.candidates) for r in requests]

    text = "The judges quickly decided the difficult cases."
    span = [_span(text, "judges quickly decided the difficult cases")]
    settings = LexicalSettings(max_candidates=5)
    paraphrase_spans(nlp(text), span, wordnet=wordnet, scorer=record, settings=settings, seed=1)
    paraphrase_spans(nlp(text), span, wordnet=wordnet, scorer=record, settings=settings, seed=1)
    paraphrase_spans(nlp(text), span, wordnet=wordnet, scorer=record, settings=settings, seed=2)
    assert len(calls[0][0]) == 5
    assert calls[0] == calls[1] and calls[0] != calls[2]


def test_settings_are_validated():
    with pytest.raises(LinkguardError, match="E283"):
        LexicalSettings(max_candidates=0)


def test_a_batch_gets_what_each_text_gets_alone_from_one_scorer_call(nlp, wordnet, cheap_scorer):
    texts = [TEXT, "The court dismissed the appeal as manifestly ill-founded on 3 May.",
             "The applicant lodged a complaint about the excessive length of the criminal proceedings."]
    spans = [[(4, 14), (60, 80)], [(4, 9), (10, 19)], [(14, 20), (38, 54), (62, 71)]]
    seeds = [7, 8, 9]
    alone = [paraphrase_spans(nlp(t), s, wordnet=wordnet, scorer=cheap_scorer, seed=seed)
             for t, s, seed in zip(texts, spans, seeds)]
    calls = []

    def counting(requests):
        calls.append(len(requests))
        return cheap_scorer(requests)

    together = paraphrase_spans_batch([nlp(t) for t in texts], spans, wordnet=wordnet, scorer=counting,
                                      seeds=seeds)
    assert [r.text for r in together] == [r.text for r in alone]
    assert [r.edits for r in together] == [r.edits for r in alone]
    assert [r.unchanged for r in together] == [r.unchanged for r in alone]
    assert sum(len(r.edits) for r in alone) >= 3  # the comparison is not of unchanged texts
    assert len(calls) == 1 and calls[0] >= 3
