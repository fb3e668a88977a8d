"""Per-document metrics of SPEC.md ("Metrics"), as pure functions on texts.

Nothing here loads a model or an index: span lists come from the detector
and safe flags from re-detection, so every function is testable by hand.
"""
import difflib
import math
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..ngrams import NgramSettings, text_segments


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
    for seg in text_segments(text, settings):
        keys = seg.keys
        for n in wanted:
            for i in range(len(keys) - n + 1):
                out.add(keys[i : i + n])
    return out


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
    from ..ngrams import get_tokenizer, normalize_text

    settings = settings or NgramSettings()
    doc = get_tokenizer(settings.placeholder)(normalize_text(text).text)
    return [t.text.casefold() for t in doc if not t.is_space]


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
