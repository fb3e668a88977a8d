"""A cheap guess of a text's language, for the de-identification report.

Presidio's recognizers here are English; a text in another language still
runs through them, and the report says which language the text looks like so
the user can judge the result. The guess counts very common function words
of a few languages among the text's first words and picks the language with
the highest share; below `min_share` it answers "unknown". This is a
heuristic (no model, no download): reliable on running prose of a few
sentences, not on lists, names or very short texts.
"""
import re
from typing import Dict, Tuple

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)

FUNCTION_WORDS: Dict[str, frozenset] = {
    "en": frozenset("the of and to in is that was for on with as by at from it be this which were are".split()),
    "de": frozenset("der die das und zu den von mit ist nicht sich des auf für im dem ein eine als auch".split()),
    "fr": frozenset("le la les de des et en du un une est que pour dans qui sur par au pas ne avec".split()),
    "es": frozenset("el la los las de y en que del por con una para es se lo como al su no".split()),
    "it": frozenset("il di che la per del della un una è non le si da con sono gli al nel".split()),
    "nl": frozenset("de het een van en in is dat op te zijn voor met niet aan er die ook als".split()),
    "pt": frozenset("o a os as de do da e em que um uma para com não por se no na dos".split()),
    "pl": frozenset("i w na z się nie do to że jest o jak po przez od za ale dla być".split()),
    "tr": frozenset("ve bir bu da de için ile olarak olan gibi daha çok ama en kadar sonra ya".split()),
}


def guess_language(text: str, *, max_words: int = 400, min_share: float = 0.08) -> Tuple[str, float]:
    """Guess the language of `text` from function-word frequencies.

    text (str): Any text.
    max_words (int): Only the first `max_words` words are looked at (speed).
    min_share (float): The winner's share of function words must reach this,
        otherwise the answer is "unknown".
    RETURNS (Tuple[str, float]): (ISO 639-1 code or "unknown", share of the
        looked-at words that are function words of that language).
    """
    words = [m.group(0).casefold() for _, m in zip(range(max_words), _WORD.finditer(text))]
    if not words:
        return "unknown", 0.0
    best, best_share = "unknown", 0.0
    for lang, vocab in FUNCTION_WORDS.items():
        share = sum(w in vocab for w in words) / len(words)
        if share > best_share:
            best, best_share = lang, share
    if best_share < min_share:
        return "unknown", round(best_share, 4)
    return best, round(best_share, 4)
