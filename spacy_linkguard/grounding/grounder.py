"""`Grounder`: the words a rewrite adds that its input does not account for.

A content word of the output (`words.py`) is **grounded** in the input when

1. the input has it: one of its base forms (WordNet's `morphy`, any part of
   speech, or the word as written) is a base form of a word of the input;
2. it is a WordNet synonym or hypernym, up to `depth` (3) steps, of a content
   word of the input with the same part of speech: "officer" for
   "policeman", "vehicle" for "car", "representative" for "agent" -- a
   more general word says less, never something else. Every sense of the
   input's word counts (no tagger decides which one is meant);
3. it is generic (`generic_words.txt`: "person", "event", "place",
   "group", ...), each entry a noun or verb with many more specific words
   below it in WordNet (tested);
4. it is part of a multi-word WordNet entry of the output that 1-3 ground
   ("took part" for "participated"), or, for a hyphenated word, each of its
   content parts is grounded.

Anything else is **ungrounded**: "valid" for "admissible", "bronze" for
"silver", "innocent" for "guilty", "celebrated" where nobody praised. The
rule does not see a grounded word used to say something false ("declared
admissible" -> "declared inadmissible" is the polarity guard's, a changed
number the fact guard's).

The WordNet database is Debian's `wordnet-base` (`baselines/wordnet.py`);
look-ups are cached per word, so a grounder checks thousands of candidate
sentences a second once warm.
"""
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Set

from ..baselines.wordnet import WordNet, load_wordnet
from ..ngrams import DEFAULT_PLACEHOLDER
from .words import ContentWord, is_function_word, words_of

GENERIC_WORDS_PATH = Path(__file__).parent / "generic_words.txt"
DEFAULT_DEPTH = 3
WORDNET_POS = ("n", "v", "a", "r")
# Multi-word WordNet entries looked for in an output, in words.
MAX_ENTRY_WORDS = 3


@lru_cache(maxsize=4)
def load_generic_words(path: Optional[str] = None) -> FrozenSet[str]:
    """The generic words (one a line; "#" starts a comment), case-folded."""
    text = Path(path or GENERIC_WORDS_PATH).read_text(encoding="utf-8")
    return frozenset(w for line in text.splitlines() for w in [line.split("#", 1)[0].strip().casefold()] if w)


@dataclass
class Basis:
    """What an input grounds: the base forms it has (`present`), and per
    WordNet part of speech the synonyms and hypernyms of its content words
    (`related`), as WordNet keys (lower case, "_" between words)."""

    present: Set[str] = field(default_factory=set)
    related: Dict[str, Set[str]] = field(default_factory=lambda: {p: set() for p in WORDNET_POS})


class Grounder:
    """Which content words of an output its input grounds (see the module).

    wordnet (WordNet): The database (default: `load_wordnet()`).
    generic (Iterable[str]): The generic words (default: `generic_words.txt`).
    depth (int): Hypernym steps that still ground a word.
    placeholder (str): The redaction placeholder (never a word).
    RAISES: LinkguardError E280 when the WordNet database is missing.
    """

    def __init__(self, wordnet: Optional[WordNet] = None, generic: Optional[Iterable[str]] = None,
                 depth: int = DEFAULT_DEPTH, placeholder: str = DEFAULT_PLACEHOLDER) -> None:
        self.wordnet = wordnet if wordnet is not None else load_wordnet()
        self.generic = frozenset(g.casefold() for g in generic) if generic is not None else load_generic_words()
        self.depth = depth
        self.placeholder = placeholder
        self._lemmas: Dict[str, Dict[str, List[str]]] = {}
        self._related: Dict[tuple, FrozenSet[str]] = {}

    def __reduce__(self):
        return (type(self), (self.wordnet, self.generic, self.depth, self.placeholder))

    # -- the rule -------------------------------------------------------------
    def basis(self, *texts: str) -> Basis:
        """What `texts` (the input: a sentence, its paragraph) ground together."""
        basis = Basis()
        for text in texts:
            ws = words_of(text, self.placeholder)
            keys = [w.key for w in ws]
            for i, w in enumerate(ws):
                basis.present.add(w.key)
                for pos, lemmas in self.lemmas(w.key).items():
                    basis.present.update(lemmas)
                    if not is_function_word(w.key):
                        for lemma in lemmas:
                            basis.related[pos] |= self.related(lemma, pos)
                for n in range(2, MAX_ENTRY_WORDS + 1):
                    if i + n <= len(ws) and _adjacent(text, ws[i : i + n]):
                        for pos, lemmas in self.lemmas("_".join(keys[i : i + n])).items():
                            basis.present.update(lemmas)
                            for lemma in lemmas:
                                basis.related[pos] |= self.related(lemma, pos)
        return basis

    def ungrounded(self, output: str, basis: Basis) -> List[ContentWord]:
        """The content words of `output` that `basis` does not ground, in order
        (a word written twice counts twice)."""
        ws = words_of(output, self.placeholder)
        grounded = [is_function_word(w.key) or self._grounded(w.key, basis) for w in ws]
        if all(grounded):
            return []
        keys = [w.key for w in ws]
        for i in range(len(ws)):
            for n in range(2, MAX_ENTRY_WORDS + 1):
                run = ws[i : i + n]
                if len(run) == n and not all(grounded[i : i + n]) and _adjacent(output, run):
                    entry = "_".join(keys[i : i + n])
                    if any(self._grounds(lemma, pos, basis) for pos, ls in self.lemmas(entry).items() for lemma in ls):
                        grounded[i : i + n] = [True] * n
        return [w for w, ok in zip(ws, grounded) if not ok]

    def ungrounded_words(self, source: str, output: str) -> List[str]:
        """The ungrounded content words of `output` against `source`, as written."""
        return [output[w.start : w.end] for w in self.ungrounded(output, self.basis(source))]

    # -- WordNet, cached --------------------------------------------------------
    def lemmas(self, key: str) -> Dict[str, List[str]]:
        """The base forms of `key` per WordNet part of speech (WordNet keys)."""
        found = self._lemmas.get(key)
        if found is None:
            found = {}
            for pos in WORDNET_POS:
                forms = [f.replace(" ", "_") for f in self.wordnet.morphy(key, pos)]
                if forms:
                    found[pos] = forms
            self._lemmas[key] = found
        return found

    def related(self, lemma: str, pos: str) -> FrozenSet[str]:
        """The lemma's synonyms and its hypernyms up to `depth` steps (all
        senses), as WordNet keys."""
        key = (lemma, pos)
        out = self._related.get(key)
        if out is None:
            names: Set[str] = set()
            for synset in self.wordnet.synsets(lemma, pos):
                for s in [synset] + self.wordnet.hypernym_closure(synset, self.depth):
                    names.update(n.casefold().replace(" ", "_") for n in s.lemmas)
            out = self._related[key] = frozenset(names)
        return out

    def _grounded(self, key: str, basis: Basis) -> bool:
        if key in basis.present or key in self.generic:
            return True
        lemmas = self.lemmas(key)
        if any(self._grounds(lemma, pos, basis) for pos, ls in lemmas.items() for lemma in ls):
            return True
        if "-" in key and not lemmas:
            parts = [p for p in key.split("-") if p and not is_function_word(p)]
            return bool(parts) and all(self._grounded(p, basis) for p in parts)
        return False

    def _grounds(self, lemma: str, pos: str, basis: Basis) -> bool:
        return lemma in basis.present or lemma in basis.related[pos] or lemma in self.generic


def _adjacent(text: str, run: List[ContentWord]) -> bool:
    """Whether the words of `run` follow each other with only spaces between."""
    return all(text[a.end : b.start].strip() == "" for a, b in zip(run, run[1:]))
