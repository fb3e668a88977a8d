"""Handcrafted lexical paraphrasing: WordNet synonyms, re-inflected, modifiers dropped.

Pure functions of a parsed spaCy `Doc` (POS, tags, lemmas, dependencies,
sentences), a `WordNet`, a scorer and a seed:

- `paraphrase_spans(doc, spans, ...)` rewrites only the given character spans
  (the detector's flagged spans): the rewriting backend `linkguard.Lexical.v1`.
- `paraphrase_document(doc, rate=..., ...)` rewrites content words anywhere,
  each with probability `rate`: the "Handcrafted WordNet paraphrasing" baseline.

A *phrase* is a run of tokens (one flagged span, or one content word). Its
candidates combine, per content word, the word itself, its WordNet synonyms
re-inflected to the word's tag and (for adjective/adverb modifiers) dropping
it; the scorer picks the best candidate of each phrase. Characters outside a
phrase change only in its neighbourhood: an "a"/"an" just before it is
re-agreed and a dropped word takes one adjacent space with it.
"""
import random
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from spacy.tokens import Doc, Token

from ..errors import Errors, LinkguardError
from .inflect import indefinite_article, inflect, match_case
from .scoring import Scorer, ScoringRequest, best_candidate
from .wordnet import UPOS_TO_WORDNET, WordNet

_DROP = None  # a token choice meaning "leave the word out"
_DROPPABLE_DEPS = {"amod", "advmod"}
# Light verbs have so many senses that their synonyms are mostly wrong.
_SKIP_LEMMAS = {"be", "have", "do", "get", "make", "take", "go", "say"}
# WordNet's stand-ins for arguments ("grease one's palms") are not text.
_ARGUMENT_WORDS = {"one's", "someone", "someone's", "something", "somebody", "oneself", "sb", "sth"}


@dataclass(frozen=True)
class LexicalSettings:
    """How candidates are made.

    max_senses: WordNet senses of a lemma (most frequent first) whose lemmas count.
    tagged_senses_only: also stop after the senses seen in WordNet's sense-tagged
        corpus (rare senses give most wrong synonyms).
    max_synonyms: synonyms kept per word (after inflection and filtering).
    max_candidates: candidates scored per phrase; beyond, a seeded sample.
    drop_modifiers: whether an adjective/adverb modifier may be left out.
    max_synonym_words: longest multiword synonym accepted ("look into" = 2).
    context_tokens: tokens each side of a phrase (within its sentence) that the
        embedding similarity compares.
    placeholder: the redaction placeholder; tokens inside one are never touched.
    """

    max_senses: int = 3
    tagged_senses_only: bool = True
    max_synonyms: int = 5
    max_candidates: int = 8
    drop_modifiers: bool = True
    max_synonym_words: int = 3
    context_tokens: int = 12
    placeholder: str = "[REDACTED]"

    def __post_init__(self) -> None:
        for name in ("max_senses", "max_synonyms", "max_candidates", "max_synonym_words"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise LinkguardError(Errors.E283.format(name=name, expected="an integer >= 1", value=value))
        if not isinstance(self.context_tokens, int) or self.context_tokens < 0:
            raise LinkguardError(Errors.E283.format(name="context_tokens", expected="an integer >= 0",
                                                    value=self.context_tokens))
        if not isinstance(self.placeholder, str) or not self.placeholder:
            raise LinkguardError(Errors.E283.format(name="placeholder", expected="a non-empty string",
                                                    value=self.placeholder))


@dataclass(frozen=True)
class Edit:
    """One replaced phrase. start/end: its character range in the input text
    (neighbourhood included); original/replacement: the text there before/after;
    n_synonyms/n_dropped: words replaced by a synonym / left out; score: the
    scorer's value of the chosen candidate among n_candidates (None when
    there was only one, which is not scored)."""

    start: int
    end: int
    original: str
    replacement: str
    n_synonyms: int
    n_dropped: int
    score: Optional[float]
    n_candidates: int

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass
class ParaphraseResult:
    """The rewritten text, its edits (sorted by start, non-overlapping, offsets
    into the input text) and the phrases asked for that had no candidate
    (character ranges into the input text)."""

    text: str
    edits: List[Edit] = field(default_factory=list)
    unchanged: List[Tuple[int, int]] = field(default_factory=list)

    def stats(self) -> Dict[str, int]:
        """Counts for reports: phrases tried / edited / left unchanged, words
        replaced by synonyms / dropped."""
        return {
            "n_phrases": len(self.edits) + len(self.unchanged),
            "n_edited": len(self.edits),
            "n_unchanged": len(self.unchanged),
            "n_synonyms": sum(e.n_synonyms for e in self.edits),
            "n_dropped": sum(e.n_dropped for e in self.edits),
        }


# -- per-word options -----------------------------------------------------------
def content_pos(token: Token) -> Optional[str]:
    """The WordNet POS letter of a content word (NOUN/VERB/ADJ/ADV by spaCy's POS), else None."""
    return UPOS_TO_WORDNET.get(token.pos_)


def wordnet_lemma(token: Token, wordnet: WordNet) -> Optional[str]:
    """The token's lemma as WordNet knows it: spaCy's lemma, else WordNet's morphy."""
    pos = content_pos(token)
    if pos is None:
        return None
    lemma = token.lemma_.lower()
    if lemma and wordnet.has_lemma(lemma, pos):
        return lemma
    forms = wordnet.morphy(token.text, pos)
    return forms[0] if forms else None


def synonym_forms(token: Token, wordnet: WordNet, settings: LexicalSettings) -> List[str]:
    """Synonyms of a content word, inflected to its tag and in its letter case.

    RETURNS (List[str]): at most settings.max_synonyms forms, WordNet sense order,
        each different from the word (case-folded) and not containing its lemma
        or its text as a word (so "dog" never becomes "domestic dog"); proper
        names are skipped for lower-case words. [] for other tokens.
    """
    pos = content_pos(token)
    lemma = wordnet_lemma(token, wordnet)
    if pos is None or lemma is None or lemma in _SKIP_LEMMAS:
        return []
    own = {lemma.casefold(), token.text.casefold()}
    out: List[str] = []
    for synonym in wordnet.synonyms(lemma, pos, max_senses=settings.max_senses,
                                    tagged_only=settings.tagged_senses_only):
        words = synonym.split(" ")
        if len(words) > settings.max_synonym_words:
            continue
        if not token.text[:1].isupper() and any(c.isupper() for c in synonym):
            continue
        folded = {w.casefold() for w in words}
        if own & folded or folded & _ARGUMENT_WORDS or synonym.casefold() in _SKIP_LEMMAS:
            continue
        form = inflect(synonym, token.tag_)
        if form is None:
            continue
        form = match_case(token.text, form)
        if form.casefold() == token.text.casefold() or form in out:
            continue
        out.append(form)
        if len(out) >= settings.max_synonyms:
            break
    return out


def droppable(token: Token, settings: LexicalSettings) -> bool:
    """Whether the token is an adjective/adverb modifier that may be left out:
    not a stop word (never, not, very...), not sentence-initial, not before punctuation."""
    if not settings.drop_modifiers or token.pos_ not in ("ADJ", "ADV") or token.is_stop:
        return False
    if token.dep_ not in _DROPPABLE_DEPS or token.is_sent_start:
        return False
    nxt = token.i + 1
    return nxt < len(token.doc) and not token.doc[nxt].is_punct and not token.doc[nxt].is_space


def in_compound(token: Token) -> bool:
    """Whether the token is part of a hyphenated word ("ill-founded"): a synonym of
    one part makes nonsense ("ill-set up"), and dropping it leaves a dangling hyphen."""
    doc = token.doc
    before = token.i > 0 and doc[token.i - 1].text == "-" and not doc[token.i - 1].whitespace_
    after = token.i + 1 < len(doc) and doc[token.i + 1].text == "-" and not token.whitespace_
    return bool(before or after)


def word_choices(token: Token, wordnet: WordNet, settings: LexicalSettings, *,
                 allow_stop: bool) -> List[Optional[str]]:
    """The ways to change one token: its synonym forms, then `None` (drop) where
    allowed. [] for tokens that are not eligible content words."""
    if content_pos(token) is None or not token.is_alpha or len(token.text) < 2 or in_compound(token):
        return []
    if token.is_stop and not allow_stop:
        return []
    choices: List[Optional[str]] = list(synonym_forms(token, wordnet, settings))
    if droppable(token, settings):
        choices.append(_DROP)
    return choices


# -- phrases and candidates -------------------------------------------------------
@dataclass(frozen=True)
class _Candidate:
    start: int
    end: int
    text: str
    n_synonyms: int
    n_dropped: int


def _render(doc: Doc, text: str, i: int, j: int, combo: Sequence[Any], article: Optional[Token]) -> _Candidate:
    """The replacement of tokens i..j-1 for one choice per token (the token's own
    text, a synonym form, or _DROP), with every "a"/"an" whose next word changed
    re-agreed: inside the phrase, and the one just before it (`article`).
    text: `doc.text`, passed in because spaCy joins every token to make it."""
    tokens = doc[i:j]
    start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
    # (token index, output text, trailing whitespace) of the words that stay.
    kept = [[tok.i, choice, tok.whitespace_] for tok, choice in zip(tokens, combo) if choice is not _DROP]
    after = doc[j].text if j < len(doc) else ""
    for pos, (ti, word, _) in enumerate(kept):
        if doc[ti].lower_ in ("a", "an") and word == doc[ti].text:
            nxt_i, nxt = (kept[pos + 1][0], kept[pos + 1][1]) if pos + 1 < len(kept) else (j, after)
            if nxt and (nxt_i != ti + 1 or nxt != doc[ti + 1].text):
                kept[pos][1] = indefinite_article(nxt, capital=word[:1].isupper())
    if kept:
        out = "".join(t + ws for _, t, ws in kept[:-1]) + kept[-1][1]
    else:
        out = ""
        # Take one adjacent space with the dropped words: the following one,
        # else the preceding one (a word before punctuation).
        if tokens[-1].whitespace_:
            end += len(tokens[-1].whitespace_)
        else:
            while start > 0 and text[start - 1] == " ":
                start -= 1
    n_syn = sum(1 for tok, c in zip(tokens, combo) if c is not _DROP and c != tok.text)
    n_drop = sum(1 for c in combo if c is _DROP)
    if article is not None:
        following = kept[0][1] if kept else after
        wanted = indefinite_article(following, capital=article.text[:1].isupper()) if following else article.text
        if wanted != article.text:
            out = wanted + text[article.idx + len(article.text):start] + out
            start = article.idx
    return _Candidate(start, end, out, n_syn, n_drop)


def _combos(choices: List[List[Any]], limit: int, rng: random.Random) -> List[Tuple[Any, ...]]:
    """All choice combinations except "keep everything" (index 0 everywhere), or a
    seeded sample of `limit` of them when there are more, in mixed-radix order."""
    sizes = [len(c) for c in choices]
    total = 1
    for s in sizes:
        total *= s
    if total <= 1:
        return []
    numbers = range(1, total) if total - 1 <= limit else sorted(rng.sample(range(1, total), limit))
    out = []
    for n in numbers:
        combo = []
        for options, size in zip(choices, sizes):
            n, r = divmod(n, size)
            combo.append(options[r])
        out.append(tuple(combo))
    return out


def _context_window(doc: Doc, i: int, j: int, width: int) -> Tuple[int, int]:
    lo, hi = max(0, i - width), min(len(doc), j + width)
    if doc.has_annotation("SENT_START"):
        sent = doc[i].sent
        lo, hi = max(lo, sent.start), min(hi, max(sent.end, j))
    return doc[lo].idx, doc[hi - 1].idx + len(doc[hi - 1].text)


def _placeholder_tokens(doc: Doc, placeholder: str) -> Set[int]:
    """Indices of tokens overlapping an occurrence of the placeholder (whatever the
    pipeline's tokenizer made of it: "[", "REDACTED", "]")."""
    blocked: Set[int] = set()
    text = doc.text
    pos = text.find(placeholder)
    while pos >= 0:
        span = doc.char_span(pos, pos + len(placeholder), alignment_mode="expand")
        if span is not None:
            blocked.update(range(span.start, span.end))
        pos = text.find(placeholder, pos + len(placeholder))
    return blocked


@dataclass
class _Plan:
    """One text's phrases with their candidates, before scoring: `requests`
    (those with more than one candidate are scored) and `pending` in phrase
    order, `unchanged` the phrases without a candidate."""

    text: str
    requests: List[ScoringRequest]
    pending: List[Tuple[Tuple[int, int], List[_Candidate]]]
    unchanged: List[Tuple[int, int]]


def _plan_phrases(doc: Doc, phrases: List[Tuple[int, int]], *, wordnet: WordNet, settings: LexicalSettings,
                  rng: random.Random, allow_stop_fallback: bool) -> _Plan:
    text = doc.text
    blocked = _placeholder_tokens(doc, settings.placeholder)
    in_phrase = {t for i, j in phrases for t in range(i, j)}
    plan = _Plan(text=text, requests=[], pending=[], unchanged=[])
    for i, j in phrases:
        char_range = (doc[i].idx, doc[j - 1].idx + len(doc[j - 1].text))
        choices = _phrase_choices(doc, i, j, blocked, wordnet, settings, allow_stop=False)
        if allow_stop_fallback and all(len(c) == 1 for c in choices):
            # Nothing but function words: better an odd synonym than a linkable phrase.
            choices = _phrase_choices(doc, i, j, blocked, wordnet, settings, allow_stop=True)
        article = None
        if i > 0 and doc[i - 1].lower_ in ("a", "an") and (i - 1) not in in_phrase:
            article = doc[i - 1]
        candidates = [_render(doc, text, i, j, combo, article)
                      for combo in _combos(choices, settings.max_candidates, rng)]
        if not candidates:
            plan.unchanged.append(char_range)
            continue
        ctx_start, ctx_end = _context_window(doc, i, j, settings.context_tokens)
        ctx_start = min([ctx_start] + [c.start for c in candidates])
        ctx_end = max([ctx_end] + [c.end for c in candidates])
        # The edit distance compares one window for all candidates: the phrase
        # plus any neighbourhood some candidate takes with it.
        lo = min([char_range[0]] + [c.start for c in candidates])
        hi = max([char_range[1]] + [c.end for c in candidates])
        plan.requests.append(ScoringRequest(
            original=text[lo:hi],
            candidates=tuple(text[lo:c.start] + c.text + text[c.end:hi] for c in candidates),
            context=text[ctx_start:ctx_end],
            candidate_contexts=tuple(text[ctx_start:c.start] + c.text + text[c.end:ctx_end] for c in candidates),
        ))
        plan.pending.append((char_range, candidates))
    return plan


def _score_plans(plans: Sequence[_Plan], scorer: Scorer) -> List[List[List[Optional[float]]]]:
    """The scores of every plan's requests, from ONE scorer call for all of
    them (the embedding model, the slow part, then runs on full batches).
    A phrase with one candidate needs no score: [None]."""
    to_score = [r for plan in plans for r in plan.requests if len(r.candidates) > 1]
    scored = iter(scorer(to_score) if to_score else [])
    return [[next(scored) if len(r.candidates) > 1 else [None] for r in plan.requests] for plan in plans]


def _finish(plan: _Plan, scores: List[List[Optional[float]]]) -> ParaphraseResult:
    text = plan.text
    unchanged = list(plan.unchanged)
    edits: List[Edit] = []
    for (char_range, candidates), cand_scores in zip(plan.pending, scores):
        best = 0 if len(candidates) == 1 else best_candidate(cand_scores)  # ties: the earliest
        c = candidates[best]
        edits.append(Edit(start=c.start, end=c.end, original=text[c.start:c.end], replacement=c.text,
                          n_synonyms=c.n_synonyms, n_dropped=c.n_dropped,
                          score=None if cand_scores[best] is None else float(cand_scores[best]),
                          n_candidates=len(candidates)))
    edits.sort(key=lambda e: e.start)
    accepted: List[Edit] = []
    for e in edits:
        # Neighbourhoods (a shared article or space) can touch; the first edit wins.
        if accepted and e.start < accepted[-1].end:
            unchanged.append((e.start, e.end))
            continue
        accepted.append(e)
    return ParaphraseResult(text=apply_edits(text, accepted), edits=accepted, unchanged=sorted(unchanged))


def _phrase_choices(doc: Doc, i: int, j: int, blocked: Set[int], wordnet: WordNet,
                    settings: LexicalSettings, *, allow_stop: bool) -> List[List[Any]]:
    out = []
    for tok in doc[i:j]:
        options: List[Any] = [tok.text]
        if tok.i not in blocked:
            options.extend(word_choices(tok, wordnet, settings, allow_stop=allow_stop))
        out.append(options)
    return out


def apply_edits(text: str, edits: Iterable[Edit]) -> str:
    """`text` with each edit's [start, end) replaced; edits must not overlap."""
    parts, pos = [], 0
    for e in sorted(edits, key=lambda e: e.start):
        parts.append(text[pos:e.start])
        parts.append(e.replacement)
        pos = e.end
    parts.append(text[pos:])
    return "".join(parts)


def span_bounds(span: Any) -> Tuple[int, int]:
    """(start, end) of a span given as a pair, a dict with start/end or
    start_char/end_char, or an object with start_char/end_char (FlaggedSpan, spaCy Span)."""
    if isinstance(span, dict):
        return int(span.get("start_char", span.get("start"))), int(span.get("end_char", span.get("end")))
    if hasattr(span, "start_char"):
        return int(span.start_char), int(span.end_char)
    start, end = span
    return int(start), int(end)


def span_phrases(doc: Doc, spans: Iterable[Any]) -> List[Tuple[int, int]]:
    """The token ranges (start, end) of character spans of `doc.text`, each
    widened to whole tokens, overlapping ones merged, whitespace-only ones left out.
    RAISES: LinkguardError E284 for a span outside the text or empty."""
    ranges: List[Tuple[int, int]] = []
    length = len(doc.text)  # spaCy joins every token to make doc.text: once, not per span
    for span in spans:
        start, end = span_bounds(span)
        if not 0 <= start < end <= length:
            raise LinkguardError(Errors.E284.format(span=(start, end), length=length))
        tokens = doc.char_span(start, end, alignment_mode="expand")
        if tokens is None or all(t.is_space for t in tokens):
            continue  # whitespace only: nothing to rewrite
        ranges.append((tokens.start, tokens.end))
    merged: List[Tuple[int, int]] = []
    for i, j in sorted(ranges):
        if merged and i < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], j))
        else:
            merged.append((i, j))
    return merged


def paraphrase_spans(doc: Doc, spans: Iterable[Any], *, wordnet: WordNet, scorer: Scorer,
                     settings: LexicalSettings = LexicalSettings(), seed: int = 0) -> ParaphraseResult:
    """Rewrite only the given character spans of `doc.text`.

    doc (Doc): The text parsed by a pipeline with tagger, lemmatizer and parser.
    spans: (start, end) character ranges (see `span_bounds` for accepted forms);
        each is widened to whole tokens, overlapping ones are merged.
    wordnet (WordNet), scorer (Scorer), settings (LexicalSettings), seed (int): see module doc.
    RETURNS (ParaphraseResult): characters outside the spans change only in their
        neighbourhood (an a/an before a span, one space next to a dropped word).
    RAISES: LinkguardError E284 for a span outside the text or empty.
    """
    return paraphrase_spans_batch([doc], [spans], wordnet=wordnet, scorer=scorer, settings=settings,
                                  seeds=[seed])[0]


def paraphrase_spans_batch(docs: Sequence[Doc], spans: Sequence[Iterable[Any]], *, wordnet: WordNet,
                           scorer: Scorer, settings: LexicalSettings = LexicalSettings(),
                           seeds: Sequence[int]) -> List[ParaphraseResult]:
    """`paraphrase_spans` of each doc with its spans and seed, the candidates
    of all of them scored in one scorer call: what each gets is what it gets
    alone, up to the last bits of an embedding (scores within SCORE_TIE are
    a tie, so no choice follows them). The lexical rewrite passes the chunks
    of one document and pass here: one or two phrases a chunk would otherwise
    make many small calls of the embedding model, each slower a text.
    RAISES: LinkguardError E284 for a span outside its text or empty.
    """
    plans = [_plan_phrases(doc, span_phrases(doc, doc_spans), wordnet=wordnet, settings=settings,
                           rng=random.Random(seed), allow_stop_fallback=True)
             for doc, doc_spans, seed in zip(docs, spans, seeds)]
    return [_finish(plan, scores) for plan, scores in zip(plans, _score_plans(plans, scorer))]


def paraphrase_document(doc: Doc, *, wordnet: WordNet, scorer: Scorer, rate: float = 0.5,
                        settings: LexicalSettings = LexicalSettings(), seed: int = 0) -> ParaphraseResult:
    """Rewrite content words anywhere in `doc.text`, each with probability `rate`.

    Each content word (not a stop word, not in a placeholder) is a phrase of its
    own, chosen by a seeded coin flip; the same seed gives the same output.
    RETURNS (ParaphraseResult). RAISES: LinkguardError E283 for a rate outside [0, 1].
    """
    if not isinstance(rate, (int, float)) or not 0.0 <= rate <= 1.0:
        raise LinkguardError(Errors.E283.format(name="rate", expected="a number from 0 to 1", value=rate))
    rng = random.Random(seed)
    blocked = _placeholder_tokens(doc, settings.placeholder)
    phrases = []
    for tok in doc:
        if tok.i in blocked or content_pos(tok) is None or tok.is_stop or not tok.is_alpha:
            continue
        # Draw for every content word, so the selection does not depend on WordNet.
        if rng.random() < rate:
            phrases.append((tok.i, tok.i + 1))
    plan = _plan_phrases(doc, phrases, wordnet=wordnet, settings=settings, rng=rng, allow_stop_fallback=False)
    return _finish(plan, _score_plans([plan], scorer)[0])
