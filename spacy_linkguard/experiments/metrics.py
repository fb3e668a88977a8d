"""Per-document metrics of SPEC.md ("Metrics"), as pure functions on texts.

Nothing here loads a model or an index: span lists come from the detector,
safe flags from re-detection and ungrounded words from a `Grounder` the
caller passes in, so every function is testable by hand.
"""
import difflib
import math
from collections import Counter
from functools import lru_cache
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..ngrams import NgramSettings, text_segments
from ..paragraphs import paragraph_pairs


def span_key_tokens(text: str, settings: NgramSettings) -> Tuple[str, ...]:
    """The case-folded token keys of a flagged span's text (boundary tokens dropped).

    text (str): The span's surface text, as cut from the input document.
    settings (NgramSettings): Tokenization settings (placeholder, look-alikes).
    RETURNS (Tuple[str, ...]): Token keys in order; empty if the text has none.
    """
    keys: List[str] = []
    for seg in text_segments(text, settings):
        keys.extend(seg.keys)
    return tuple(keys)


def text_key_ngrams(text: str, settings: NgramSettings, lengths: Iterable[int]) -> Set[Tuple[str, ...]]:
    """Every run of `n` consecutive token keys inside one segment of `text`, for n in `lengths`.

    Occurrence is checked inside segments so that a span never "survives"
    across punctuation or a placeholder, exactly as the index sees phrases.
    """
    wanted = sorted({n for n in lengths if n > 0})
    out: Set[Tuple[str, ...]] = set()
    for keys in _segment_keys(text, settings):
        for n in wanted:
            for i in range(len(keys) - n + 1):
                out.add(keys[i : i + n])
    return out


@lru_cache(maxsize=1024)
def _segment_keys(text: str, settings: NgramSettings) -> Tuple[Tuple[str, ...], ...]:
    # Cached: the evaluation looks for the arity-1 and the arity-m spans in the
    # same output, and segmenting a long document is most of the cost.
    return tuple(tuple(seg.keys) for seg in text_segments(text, settings))


def surviving_spans(
    span_texts: Sequence[str], output_text: str, settings: Optional[NgramSettings] = None
) -> List[bool]:
    """For each flagged span, whether its text still occurs in the output.

    Comparison is token-wise and case-folded (SPEC.md): "The Court" survives
    in "... the court ...", "court" does not survive in "courts". A flagged
    span is one segment (an N-gram), and it must occur inside one segment of
    the output; a span text with several segments (not produced by the
    detector) must occur with the same punctuation between its parts.

    span_texts (Sequence[str]): Texts of the spans flagged in the input.
    output_text (str): The rewritten document.
    settings (NgramSettings): Tokenization settings; default NgramSettings().
    RETURNS (List[bool]): One flag per span; a span without any word token is
        reported as not surviving (it cannot be searched for).
    """
    settings = settings or NgramSettings()
    flags: List[bool] = []
    single: Dict[int, Tuple[str, ...]] = {}
    multi: Dict[int, Tuple[str, ...]] = {}
    for i, text in enumerate(span_texts):
        segs = text_segments(text, settings)
        if len(segs) == 1:
            single[i] = segs[0].keys
        elif len(segs) > 1:
            multi[i] = tuple(text_tokens(text, settings))
    present = text_key_ngrams(output_text, settings, (len(k) for k in single.values()))
    out_tokens = tuple(text_tokens(output_text, settings)) if multi else ()
    for i in range(len(span_texts)):
        if i in single:
            flags.append(single[i] in present)
        elif i in multi:
            flags.append(_contains_run(out_tokens, multi[i]))
        else:
            flags.append(False)
    return flags


def _contains_run(haystack: Tuple[str, ...], needle: Tuple[str, ...]) -> bool:
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


def linkable_proportion(
    span_texts: Sequence[str], output_text: str, settings: Optional[NgramSettings] = None
) -> Optional[float]:
    """The paper's linkable N-gram proportion for one document.

    span_texts (Sequence[str]): Texts of the spans flagged in the input d'.
    output_text (str): The rewritten document.
    RETURNS (Optional[float]): Fraction of flagged spans whose text still
        occurs in the output, in [0, 1]; None when nothing was flagged (the
        ratio is undefined; such documents are left out of the average).
    """
    if not span_texts:
        return None
    flags = surviving_spans(span_texts, output_text, settings)
    return sum(flags) / len(flags)


def document_linkage_rate(safe_flags: Sequence[bool]) -> Optional[float]:
    """Fraction of output documents that are NOT safe; None for an empty set."""
    if not safe_flags:
        return None
    return sum(1 for s in safe_flags if not s) / len(safe_flags)


def placeholders_added(input_text: str, output_text: str, placeholder: str) -> int:
    """Placeholders the rewrite added to one document: occurrences of `placeholder`
    in the output minus those in the input d' (exact, non-overlapping matches).

    Counts every redaction, whether the model wrote the placeholder or guarantee
    mode forced it; negative when the rewrite dropped placeholders of d'.

    input_text (str): The released document d'.
    output_text (str): Its rewrite.
    placeholder (str): The index's placeholder, e.g. "[REDACTED]".
    RETURNS (int): output count minus input count.
    RAISES: ValueError for an empty placeholder.
    """
    if not placeholder:
        raise ValueError("placeholder must not be empty")
    return output_text.count(placeholder) - input_text.count(placeholder)


def ratio_to(value: Optional[float], base: Optional[float]) -> Optional[float]:
    """`value / base`, e.g. a row's mean perplexity relative to the input's;
    None when either is missing or `base` is not positive."""
    if value is None or base is None or base <= 0:
        return None
    return value / base


def text_tokens(text: str, settings: Optional[NgramSettings] = None) -> List[str]:
    """All non-whitespace tokens of `text` (normalized as for N-grams), case-folded
    (punctuation kept).

    Used for edit volume, where a changed comma is an edit too.
    """
    return list(_text_tokens(text, settings or NgramSettings()))


@lru_cache(maxsize=1024)
def _text_tokens(text: str, settings: NgramSettings) -> Tuple[str, ...]:
    # Cached: the evaluation compares every row's outputs with the same inputs,
    # and tokenizing a long document is most of an edit volume's cost.
    from ..ngrams import get_tokenizer, normalize_text

    doc = get_tokenizer(settings.placeholder)(normalize_text(text).text)
    return tuple(t.text.casefold() for t in doc if not t.is_space)


def edit_volume(input_text: str, output_text: str, settings: Optional[NgramSettings] = None) -> float:
    """Share of output tokens that are not kept from the input.

    Tokens are aligned with difflib's longest-matching-blocks algorithm
    (autojunk off, so frequent tokens like "the" still align); an output
    token counts as kept when it lies in a matching block.

    RETURNS (float): In [0, 1]; 0.0 for an unchanged text, and 0.0 for an
        empty output (nothing in it was changed).
    """
    a = text_tokens(input_text, settings)
    b = text_tokens(output_text, settings)
    if not b:
        return 0.0
    matcher = difflib.SequenceMatcher(a=a, b=b, autojunk=False)
    kept = sum(block.size for block in matcher.get_matching_blocks())
    return 1.0 - kept / len(b)


def mean_defined(values: Iterable[Optional[float]]) -> Optional[float]:
    """Mean of the values that are not None (nor NaN); None when there are none."""
    vals = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return sum(vals) / len(vals) if vals else None


def wilson_interval(successes: int, n: int, z: float = 1.959963984540054) -> Tuple[float, float]:
    """Wilson score interval for a binomial proportion (95% by default).

    successes (int): Number of successes, 0 <= successes <= n.
    n (int): Number of trials.
    z (float): Normal quantile; the default gives a 95% interval.
    RETURNS (Tuple[float, float]): (low, high) within [0, 1]; (0.0, 1.0) when n == 0.
    RAISES: ValueError when successes is outside [0, n].
    """
    if n == 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must lie in [0, n={n}], got {successes}")
    if successes == 0 or successes == n:
        # Closed forms at the edges (avoid round-off just outside [0, 1] or p).
        bound = n / (n + z * z)
        return (0.0, 1.0 - bound) if successes == 0 else (bound, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def summarize(values: Dict[str, List[Optional[float]]]) -> Dict[str, Optional[float]]:
    """Average each named list of per-document values with `mean_defined`."""
    return {name: mean_defined(vals) for name, vals in values.items()}


# --- Paragraphs: similarity, facts kept and new facts (SPEC.md "Metrics") ---

PARA_MIN_WORDS = 8  # paragraph similarity: input paragraphs of at least this many words
PARA_SIM_LOW = 0.8  # paragraph similarity: the share of paragraphs below this cosine
UNGROUNDED_MANY = 3  # ungrounded words: the share of changed paragraphs with at least this many
# The paragraphs themselves and their pairing: `paragraphs.py` (the review page uses them too).


def quantile(values: Sequence[float], q: float) -> Optional[float]:
    """The q-quantile of `values`, interpolated linearly between order
    statistics (numpy's default, "linear"); None for no values.

    RAISES: ValueError when q is outside [0, 1].
    """
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must lie in [0, 1], got {q}")
    vals = sorted(values)
    if not vals:
        return None
    pos = q * (len(vals) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(vals) - 1)
    return vals[lo] + (vals[hi] - vals[lo]) * (pos - lo)


def share_below(values: Sequence[float], threshold: float) -> Optional[float]:
    """Share of `values` strictly below `threshold`; None for no values."""
    if not values:
        return None
    return sum(1 for v in values if v < threshold) / len(values)


def fact_counts(input_paragraph: str, output_paragraph: str,
                facts: Optional[Callable[[str], "Counter[str]"]] = None) -> Tuple[int, int, int]:
    """Facts of one input paragraph and what its output paragraph did with them.

    facts: text -> multiset of facts (numbers, ordinals, number words,
        negation cues); default `llm.facts.facts_of`.
    RETURNS (Tuple[int, int, int]): (facts in the input, of them kept in the
        output -- multiset intersection --, facts of the output not in the
        input -- multiset difference). "two counts" -> "one count": (1, 0, 1).
    """
    if facts is None:
        from ..llm.facts import facts_of as facts
    a, b = facts(input_paragraph), facts(output_paragraph)
    return sum(a.values()), sum((a & b).values()), sum((b - a).values())


def document_paragraph_facts(input_text: str, output_text: str,
                             facts: Optional[Callable[[str], "Counter[str]"]] = None) -> Dict[str, int]:
    """Facts kept and new facts of one document, paragraph by paragraph.

    An input paragraph without a partner is compared with an empty output
    (its facts are lost); an output paragraph without a partner with an empty
    input (its facts are new).

    RETURNS (dict): {"facts_in", "facts_kept", "facts_new", "n_paras"}: sums
        over the paragraphs; n_paras is the number of input paragraphs.
    """
    a, b, pairs = paragraph_pairs(input_text, output_text)
    pa = dict(pairs)
    pb = {j for _, j in pairs}
    units = [(p, b[pa[i]] if i in pa else "") for i, p in enumerate(a)] + [("", q) for j, q in enumerate(b) if j not in pb]
    totals = [0, 0, 0]
    for x, y in units:
        for k, v in enumerate(fact_counts(x, y, facts)):
            totals[k] += v
    return {"facts_in": totals[0], "facts_kept": totals[1], "facts_new": totals[2], "n_paras": len(a)}


def similarity_pairs(input_text: str, output_text: str, min_words: int = PARA_MIN_WORDS) -> List[Tuple[str, str]]:
    """The (input, output) paragraph pairs whose cosine paragraph similarity
    measures: aligned pairs whose input paragraph has at least `min_words`
    whitespace-separated words (headings and short numbered lines are left out)."""
    a, b, pairs = paragraph_pairs(input_text, output_text)
    return [(a[i], b[j]) for i, j in pairs if len(a[i].split()) >= min_words]


def changed_pairs(input_text: str, output_text: str, min_words: int = PARA_MIN_WORDS) -> List[Tuple[str, str]]:
    """The (input, output) paragraph pairs the ungrounded-words metric counts:
    aligned pairs whose input paragraph has at least `min_words`
    whitespace-separated words and whose words changed (a pair that differs
    only in spacing is unchanged). Paragraphs without a partner are left out:
    there is no input paragraph to ground an added one in."""
    return [(x, y) for x, y in similarity_pairs(input_text, output_text, min_words) if x.split() != y.split()]


def document_ungrounded(input_text: str, output_text: str, grounder: Any,
                        bases: Optional[Dict[str, Any]] = None) -> List[int]:
    """Ungrounded words of each changed paragraph of one document (SPEC.md
    "Metrics"): the content words of the output paragraph that its input
    paragraph does not ground (`grounding.Grounder`).

    grounder: a `Grounder` (its WordNet look-ups are cached, so pass the same
        one for every document).
    bases: input paragraph -> its `grounder.basis`, filled here, so an input
        paragraph is read once for every row.
    RETURNS (List[int]): per pair of `changed_pairs`, in order, its number of
        ungrounded words (a word written twice counts twice).
    """
    bases = {} if bases is None else bases
    counts = []
    for x, y in changed_pairs(input_text, output_text):
        if x not in bases:
            bases[x] = grounder.basis(x)
        counts.append(len(grounder.ungrounded(y, bases[x])))
    return counts


def summarize_ungrounded(counts: Sequence[int], many: int = UNGROUNDED_MANY) -> Dict[str, Optional[float]]:
    """The ungrounded-words metric of a set of changed paragraphs.

    counts: ungrounded words per changed paragraph (`document_ungrounded`), pooled.
    RETURNS (dict): ungrounded_per_changed_para (their mean),
        share_changed_paras_ungrounded_ge3 (share with `many` or more) -- both
        None without changed paragraphs -- and n_changed_paras.
    """
    n = len(counts)
    return {
        "ungrounded_per_changed_para": sum(counts) / n if n else None,
        "share_changed_paras_ungrounded_ge3": sum(1 for c in counts if c >= many) / n if n else None,
        "n_changed_paras": n,
    }


def summarize_paragraphs(docs: Sequence[Dict[str, Any]], low: float = PARA_SIM_LOW) -> Dict[str, Optional[float]]:
    """A row's paragraph metrics, pooled over its documents' paragraphs (each
    paragraph weighs the same, so the 10th percentile is the row's worst
    paragraphs, not an average of per-document percentiles).

    docs: per document, {"sims": [cosine, ...] or None (not measured: no
        embedder), "facts_in", "facts_kept", "facts_new", "n_paras",
        "ungrounded": [count per changed paragraph, ...] or None (not
        measured)} (`document_paragraph_facts` plus the cosines and
        `document_ungrounded`).
    RETURNS (dict): para_sim_mean, para_sim_p10, para_sim_below_0_8 (share
        below `low`), para_sim_n (paragraphs measured; None when not
        measured), facts_kept (kept / in;
        None without facts in the input), new_facts_per_para (new facts per
        input paragraph; None without paragraphs), and
        `summarize_ungrounded` of the changed paragraphs (all three None when
        no document was measured).
    """
    measured = [d["sims"] for d in docs if d.get("sims") is not None]
    sims = [s for doc in measured for s in doc]
    f_in = sum(d.get("facts_in", 0) for d in docs)
    n_paras = sum(d.get("n_paras", 0) for d in docs)
    grounded = [d["ungrounded"] for d in docs if d.get("ungrounded") is not None]
    ungrounded = summarize_ungrounded([c for doc in grounded for c in doc])
    if not grounded:
        ungrounded = {name: None for name in ungrounded}
    return {
        "para_sim_mean": sum(sims) / len(sims) if sims else None,
        "para_sim_p10": quantile(sims, 0.1),
        "para_sim_below_0_8": share_below(sims, low),
        "para_sim_n": len(sims) if measured else None,
        "facts_kept": sum(d.get("facts_kept", 0) for d in docs) / f_in if f_in else None,
        "new_facts_per_para": sum(d.get("facts_new", 0) for d in docs) / n_paras if n_paras else None,
        **ungrounded,
    }
