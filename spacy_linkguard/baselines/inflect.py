"""Re-inflecting a WordNet lemma to the Penn Treebank tag of the word it replaces.

lemminflect's dictionary gives the irregular forms (children, went, better);
unknown words get its rules for nouns and verbs, and the periphrastic
"more X" / "most X" for comparatives and superlatives, because rules make
"beautifuler" out of "beautiful".
"""
from typing import Optional

# Tags whose form is the lemma itself (VBP is the base form except for "be",
# which is not a content word here).
_BASE_TAGS = {"NN", "NNP", "VB", "VBP", "JJ", "RB", "AFX", ""}
_PERIPHRASTIC = {"JJR": "more", "RBR": "more", "JJS": "most", "RBS": "most"}
# Tags lemminflect knows, by the universal POS of the lemma.
_NOUN_TAGS = {"NNS", "NNPS"}
_VERB_TAGS = {"VBD", "VBG", "VBN", "VBZ"}


def inflect(lemma: str, tag: str) -> Optional[str]:
    """The form of `lemma` for Penn tag `tag`, or None when there is no sensible one.

    lemma (str): A base form; a multiword lemma ("look into", "post office") is
        inflected on its head: the first word of a verb, the last word of a noun.
    tag (str): The Penn Treebank tag of the word being replaced (spaCy's token.tag_).
    RETURNS (Optional[str]): e.g. ("hound", "NNS") -> "hounds", ("go", "VBD") -> "went",
        ("beautiful", "JJR") -> "more beautiful"; None for tags of other parts
        of speech (e.g. "IN").
    """
    if tag in _BASE_TAGS:
        return lemma
    words = lemma.split(" ")
    if tag in _PERIPHRASTIC:
        if len(words) == 1:
            form = _lookup(lemma, tag, oov=False)
            if form:
                return form
        return f"{_PERIPHRASTIC[tag]} {lemma}"
    if tag in _NOUN_TAGS:
        head = len(words) - 1
    elif tag in _VERB_TAGS:
        head = 0
    else:
        return None
    if tag in _NOUN_TAGS and _is_plural(words[head]):
        return lemma  # WordNet lists some plurals as lemmas: "papers", not "paperses"
    form = _lookup(words[head], tag, oov=False) or _lookup(words[head], tag, oov=True)
    if not form:
        return None
    words[head] = form
    return " ".join(words)


def _lookup(word: str, tag: str, *, oov: bool) -> Optional[str]:
    from lemminflect import getInflection

    # lemminflect is case-sensitive; inflect lower case, restore the case after.
    forms = getInflection(word.lower(), tag=tag, inflect_oov=oov)
    if not forms:
        return None
    form = forms[0]
    if word[:1].isupper():
        form = form[:1].upper() + form[1:]
    return form


def _is_plural(noun: str) -> bool:
    from lemminflect import getLemma

    lemmas = getLemma(noun.lower(), upos="NOUN", lemmatize_oov=False)
    return bool(lemmas) and noun.lower() not in lemmas


def match_case(original: str, replacement: str) -> str:
    """`replacement` in the letter case pattern of `original`: "UPPER" -> upper
    case, "Title" -> first letter upper, otherwise unchanged."""
    if not replacement:
        return replacement
    if len(original) > 1 and original.isupper():
        return replacement.upper()
    if original[:1].isupper():
        return replacement[:1].upper() + replacement[1:]
    return replacement


def indefinite_article(next_word: str, *, capital: bool = False) -> str:
    """"a" or "an" before `next_word`, by its first letter (a heuristic: a vowel
    letter gets "an"; "hour" and "university" are the known misses)."""
    article = "an" if next_word[:1].lower() in "aeiou" and next_word[:1] else "a"
    return article.capitalize() if capital else article
