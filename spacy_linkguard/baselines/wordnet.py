"""A compact, read-only reader of the WordNet 3.x database files.

Debian's `wordnet-base` package ships the database at /usr/share/wordnet:
`index.<pos>` (lemma -> synset offsets, most frequent sense first),
`data.<pos>` (one synset a line, found by its byte offset) and `<pos>.exc`
(irregular forms -> base forms). We read those files directly: nltk's reader
refuses paths outside its data directories and expects a `lexnames` file
Debian does not ship, and `wn` wants to download its data.
"""
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Tuple, Union

from ..errors import Errors, LinkguardError

# WordNet's own tools read WNSEARCHDIR; we honour it before the Debian path.
WORDNET_ENV_VAR = "WNSEARCHDIR"
DEFAULT_WORDNET_DIR = Path("/usr/share/wordnet")

POS_NAMES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# Universal POS (spaCy's token.pos_) -> WordNet POS letter.
UPOS_TO_WORDNET = {"NOUN": "n", "VERB": "v", "ADJ": "a", "ADV": "r"}

# WordNet's morphy detachment rules (wnintro(3WN) "morphy"), tried after the
# exception lists; a result counts only if the index knows it.
_SUFFIX_RULES: Dict[str, Tuple[Tuple[str, str], ...]] = {
    "n": (("s", ""), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"),
          ("shes", "sh"), ("men", "man"), ("ies", "y")),
    "v": (("s", ""), ("ies", "y"), ("es", "e"), ("es", ""), ("ed", "e"),
          ("ed", ""), ("ing", "e"), ("ing", "")),
    "a": (("er", ""), ("est", ""), ("er", "e"), ("est", "e")),
    "r": (),
}
# Adjective lemmas in data.adj may carry a syntactic marker: "galore(ip)".
_ADJ_MARKER = re.compile(r"\((?:a|p|ip)\)$")


# Pointer symbols of data.<pos> lines that lead to a more general synset:
# hypernym and instance hypernym (nouns, verbs).
HYPERNYM_POINTERS = ("@", "@i")


@dataclass(frozen=True)
class Synset:
    """One WordNet synset: its POS letter, byte offset in data.<pos>, lemma names
    (spaces, not underscores, in file order), gloss, and the (POS letter,
    offset) of each more general synset it points to (`HYPERNYM_POINTERS`)."""

    pos: str
    offset: int
    lemmas: Tuple[str, ...]
    gloss: str
    hypernyms: Tuple[Tuple[str, int], ...] = ()


def resolve_wordnet_dir(path: Union[str, Path, None] = None) -> Path:
    """The WordNet database directory: `path`, else $WNSEARCHDIR, else /usr/share/wordnet.

    RAISES: LinkguardError E280 when the directory lacks the index/data files.
    """
    if path is None or str(path) == "":
        path = os.environ.get(WORDNET_ENV_VAR) or DEFAULT_WORDNET_DIR
    path = Path(path)
    missing = [
        name for pos in POS_NAMES.values() for name in (f"index.{pos}", f"data.{pos}")
        if not (path / name).is_file()
    ]
    if missing:
        raise LinkguardError(Errors.E280.format(path=path, missing=", ".join(missing)))
    return path


class WordNet:
    """Synonym look-ups in a local WordNet 3.x database.

    Index files are parsed on first use of each POS (about 0.3 s for nouns);
    synset lines are read by offset, so start-up is instant and memory small.
    Instances pickle (for `nlp.pipe(n_process=...)`) as their path only.
    """

    def __init__(self, path: Union[str, Path, None] = None) -> None:
        """path: the database directory (default: see `resolve_wordnet_dir`).
        RAISES: LinkguardError E280 when the database is missing."""
        self.path = resolve_wordnet_dir(path)
        # lemma -> (number of senses tagged in SemCor, synset offsets)
        self._index: Dict[str, Dict[str, Tuple[int, Tuple[int, ...]]]] = {}
        self._exceptions: Dict[str, Dict[str, Tuple[str, ...]]] = {}
        self._synsets: Dict[Tuple[str, int], Synset] = {}

    def __reduce__(self):
        return (type(self), (str(self.path),))

    # -- look-ups -----------------------------------------------------------
    def synsets(self, lemma: str, pos: str) -> List[Synset]:
        """Synsets of `lemma` (a base form; case and spaces/underscores don't matter)
        for WordNet POS letter `pos`, most frequent sense first; [] when unknown."""
        _, offsets = self._pos_index(pos).get(_key(lemma), (0, ()))
        return [self.synset(pos, off) for off in offsets]

    def tagged_sense_count(self, lemma: str, pos: str) -> int:
        """How many senses of `lemma` occur in WordNet's sense-tagged corpus (the
        first ones in sense order); 0 when unknown or untagged."""
        return self._pos_index(pos).get(_key(lemma), (0, ()))[0]

    def has_lemma(self, lemma: str, pos: str) -> bool:
        return _key(lemma) in self._pos_index(pos)

    def morphy(self, word: str, pos: str) -> List[str]:
        """Base forms of `word` for `pos` that the index knows, WordNet's way:
        exception list first, then the word itself, then the suffix rules; a
        collocation ("took part") also with its first or last word's base forms."""
        key = _key(word)
        index = self._pos_index(pos)
        found: List[str] = []
        candidates: List[str] = list(self._pos_exceptions(pos).get(key, ()))
        candidates.append(key)
        for suffix, repl in _SUFFIX_RULES[pos]:
            if key.endswith(suffix) and len(key) > len(suffix):
                candidates.append(key[: len(key) - len(suffix)] + repl)
        parts = key.split("_")
        if len(parts) > 1:
            # a collocation inflects its first or its last word: "took part",
            # "looked into", "police officers"
            for i in (0, len(parts) - 1):
                for base in self.morphy(parts[i], pos):
                    candidates.append("_".join(parts[:i] + [_key(base)] + parts[i + 1:]))
        for cand in candidates:
            if cand in index and cand.replace("_", " ") not in found:
                found.append(cand.replace("_", " "))
        return found

    def synonyms(self, lemma: str, pos: str, *, max_senses: Optional[int] = None,
                 tagged_only: bool = False) -> List[str]:
        """Lemma names sharing a synset with `lemma`, in sense order then file order,
        without `lemma` itself; spaces, not underscores.

        max_senses: look at the first senses only (None: all).
        tagged_only: also stop after the senses seen in the sense-tagged corpus
            (at least one): the rarer senses give most wrong synonyms ("dog" ->
            "frump", "bark" -> "skin").
        """
        own = _key(lemma)
        out: List[str] = []
        seen = {own}
        senses = self.synsets(lemma, pos)[:max_senses]
        if tagged_only:
            senses = senses[: max(1, self.tagged_sense_count(lemma, pos))]
        for synset in senses:
            for name in synset.lemmas:
                k = _key(name)
                if k not in seen:
                    seen.add(k)
                    out.append(name)
        return out

    def hypernym_closure(self, synset: Synset, depth: int) -> List[Synset]:
        """The synsets reachable from `synset` by 1..`depth` hypernym or
        instance-hypernym pointers, nearest first, each once."""
        out: List[Synset] = []
        seen = {(synset.pos, synset.offset)}
        level = [synset]
        for _ in range(depth):
            nxt = []
            for s in level:
                for key in s.hypernyms:
                    if key not in seen:
                        seen.add(key)
                        nxt.append(self.synset(*key))
            out.extend(nxt)
            level = nxt
        return out

    def synset(self, pos: str, offset: int) -> Synset:
        """The synset at byte `offset` of data.<pos> (cached)."""
        cached = self._synsets.get((pos, offset))
        if cached is None:
            with (self.path / f"data.{POS_NAMES[pos]}").open("rb") as f:
                f.seek(offset)
                line = f.readline().decode("utf-8", errors="replace")
            cached = _parse_data_line(line, pos, offset)
            self._synsets[(pos, offset)] = cached
        return cached

    # -- file parsing -------------------------------------------------------
    def _pos_index(self, pos: str) -> Dict[str, Tuple[int, Tuple[int, ...]]]:
        if pos not in POS_NAMES:
            raise LinkguardError(Errors.E281.format(pos=pos))
        index = self._index.get(pos)
        if index is None:
            index = self._index[pos] = _parse_index(self.path / f"index.{POS_NAMES[pos]}")
        return index

    def _pos_exceptions(self, pos: str) -> Dict[str, Tuple[str, ...]]:
        exc = self._exceptions.get(pos)
        if exc is None:
            # Exception files are optional (adv.exc is nearly empty anyway).
            path = self.path / f"{POS_NAMES[pos]}.exc"
            exc = self._exceptions[pos] = _parse_exceptions(path) if path.is_file() else {}
        return exc


def _key(word: str) -> str:
    return word.strip().lower().replace(" ", "_")


def _parse_index(path: Path) -> Dict[str, Tuple[int, Tuple[int, ...]]]:
    # Line: lemma pos synset_cnt p_cnt [ptr_symbol...] sense_cnt tagsense_cnt offset...
    # The offsets are the last synset_cnt fields. Licence lines start with spaces.
    index: Dict[str, Tuple[int, Tuple[int, ...]]] = {}
    with path.open("r", encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith(" "):
                continue
            parts = line.split()
            if len(parts) < 6:
                continue
            n = int(parts[2])
            tagged = int(parts[len(parts) - n - 1])
            index[parts[0]] = (tagged, tuple(int(x) for x in parts[len(parts) - n:]))
    return index


def _parse_exceptions(path: Path) -> Dict[str, Tuple[str, ...]]:
    out: Dict[str, Tuple[str, ...]] = {}
    with path.open("r", encoding="utf-8", errors="replace") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 2:
                out[parts[0]] = tuple(parts[1:])
    return out


def _parse_data_line(line: str, pos: str, offset: int) -> Synset:
    # Line: offset lex_filenum ss_type w_cnt(hex) [word lex_id]... p_cnt ... | gloss
    head, _, gloss = line.partition("|")
    parts = head.split()
    n_words = int(parts[3], 16)
    lemmas = []
    for i in range(n_words):
        word = _ADJ_MARKER.sub("", parts[4 + 2 * i])
        lemmas.append(word.replace("_", " "))
    # then: p_cnt, and p_cnt pointers "symbol offset pos source/target"
    at = 4 + 2 * n_words
    n_pointers = int(parts[at]) if at < len(parts) else 0
    hypernyms = []
    for i in range(n_pointers):
        symbol, target, target_pos = parts[at + 1 + 4 * i : at + 4 + 4 * i]
        if symbol in HYPERNYM_POINTERS:
            hypernyms.append(("a" if target_pos == "s" else target_pos, int(target)))
    return Synset(pos=pos, offset=offset, lemmas=tuple(lemmas), gloss=gloss.strip(), hypernyms=tuple(hypernyms))


def load_wordnet(path: Union[str, Path, None] = None) -> WordNet:
    """A `WordNet` on `path` (default: $WNSEARCHDIR or /usr/share/wordnet).
    RAISES: LinkguardError E280 when the database is missing."""
    return WordNet(path)


__all__: Iterable[str] = ["HYPERNYM_POINTERS", "Synset", "WordNet", "load_wordnet", "resolve_wordnet_dir",
                          "UPOS_TO_WORDNET", "POS_NAMES"]
