"""Test helpers: WordNet read whole, the slow and obvious way, and the
grounded-words rule computed from it by brute force.

Independent of `spacy_linkguard.baselines.wordnet`'s reader: every line of
data.<pos> is split here, its "@"/"@i" pointers kept, and index.<pos> maps a
lemma to its offsets. Only single-word base forms come from the product's
`WordNet.morphy` (its suffix rules and exception lists are tested in
tests/baselines/test_wordnet.py). Nothing here is shipped.
"""
import re
from collections import deque
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Set, Tuple

from spacy.lang.en.stop_words import STOP_WORDS

WORDNET_DIR = Path("/usr/share/wordnet")
FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
Key = Tuple[str, int]


@dataclass
class BruteWordNet:
    index: Dict[str, Dict[str, Tuple[int, ...]]]  # pos -> lemma -> offsets
    lemmas: Dict[Key, Tuple[str, ...]]  # synset -> lemma names, lower case, "_" between words
    up: Dict[Key, Tuple[Key, ...]]  # synset -> hypernyms and instance hypernyms
    down: Dict[Key, Tuple[Key, ...]]  # synset -> hyponyms and instances


@lru_cache(maxsize=1)
def read_wordnet(path: Path = WORDNET_DIR) -> BruteWordNet:
    index: Dict[str, Dict[str, Tuple[int, ...]]] = {}
    lemmas: Dict[Key, Tuple[str, ...]] = {}
    up: Dict[Key, List[Key]] = {}
    down: Dict[Key, List[Key]] = {}
    for pos, name in FILES.items():
        index[pos] = {}
        for line in (path / f"index.{name}").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(" ") or not line.strip():
                continue
            f = line.split()
            n = int(f[2])
            index[pos][f[0]] = tuple(int(x) for x in f[-n:])
        for line in (path / f"data.{name}").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith(" ") or not line.strip():
                continue
            f = line.split("|")[0].split()
            key = (pos, int(f[0]))
            n_words = int(f[3], 16)
            words = f[4 : 4 + 2 * n_words : 2]
            lemmas[key] = tuple(re.sub(r"\((a|p|ip)\)$", "", w).lower() for w in words)
            at = 4 + 2 * n_words
            for i in range(int(f[at])):
                symbol, offset, target_pos = f[at + 1 + 4 * i], f[at + 2 + 4 * i], f[at + 3 + 4 * i]
                if symbol in ("@", "@i"):
                    target = ("a" if target_pos == "s" else target_pos, int(offset))
                    up.setdefault(key, []).append(target)
                    down.setdefault(target, []).append(key)
    return BruteWordNet(index, lemmas, {k: tuple(v) for k, v in up.items()},
                        {k: tuple(v) for k, v in down.items()})


def within(graph: Dict[Key, Tuple[Key, ...]], start: Key, steps: int) -> Set[Key]:
    """The synsets 1..`steps` edges from `start` (breadth first), without `start`."""
    seen = {start: 0}
    queue = deque([start])
    while queue:
        s = queue.popleft()
        if seen[s] == steps:
            continue
        for t in graph.get(s, ()):
            if t not in seen:
                seen[t] = seen[s] + 1
                queue.append(t)
    return set(seen) - {start}


# -- the grounded-words rule, by brute force ---------------------------------------

PLACEHOLDER = "[REDACTED]"
_WORD = re.compile(r"[A-Za-z0-9]+(?:[-'][A-Za-z0-9]+)*'?")


def words(text: str) -> List[Tuple[int, int, str]]:
    """(start, end, key) of every word: letters with inner hyphens or
    apostrophes, "'s"/"n't"/"'" cut off the key; the placeholder and a run
    holding a digit ("3rd", "1990s") none."""
    text = text.replace(PLACEHOLDER, " " * len(PLACEHOLDER))
    out = []
    for m in _WORD.finditer(text):
        if re.search(r"\d", m.group()):
            continue
        key = re.sub(r"('s|n't|')$", "", m.group().lower())
        if key:
            out.append((m.start(), m.end(), key))
    return out


def is_function(key: str) -> bool:
    return len(key) < 2 or key in STOP_WORDS


class BruteGrounder:
    """grounding/grounder.py's rule over `read_wordnet()`, every set computed afresh."""

    def __init__(self, wordnet, generic: Iterable[str], depth: int = 3) -> None:
        self.wn = read_wordnet()
        self.morphy = wordnet.morphy  # single words only
        self.generic = frozenset(generic)
        self.depth = depth

    def bases(self, key: str) -> Dict[str, Set[str]]:
        """pos -> the base forms of a word or of an entry of words joined by "_"."""
        out: Dict[str, Set[str]] = {}
        for pos in FILES:
            parts = key.split("_")
            found = {b.replace(" ", "_") for b in self.morphy(key, pos)} if len(parts) == 1 else set()
            if len(parts) > 1:
                cands = {key}
                for i in (0, len(parts) - 1):  # a collocation inflects its first or last word
                    for b in self.morphy(parts[i], pos):
                        cands.add("_".join(parts[:i] + [b.replace(" ", "_")] + parts[i + 1:]))
                found = {c for c in cands if c in self.wn.index[pos]}
            if found:
                out[pos] = found
        return out

    def related(self, base: str, pos: str) -> Set[str]:
        names: Set[str] = set()
        for off in self.wn.index[pos].get(base, ()):
            for s in {(pos, off)} | within(self.wn.up, (pos, off), self.depth):
                names.update(self.wn.lemmas[s])
        return names

    def ungrounded(self, source: str, output: str) -> List[str]:
        present: Set[str] = set()
        related: Dict[str, Set[str]] = {p: set() for p in FILES}
        for text in [source]:
            ws = words(text)
            runs = [[w] for w in ws] + [ws[i : i + n] for n in (2, 3) for i in range(len(ws) - n + 1)
                                        if _adjacent(text, ws[i : i + n])]
            for run in runs:
                key = "_".join(w[2] for w in run)
                if len(run) == 1:
                    present.add(key)
                for pos, bases in self.bases(key).items():
                    present |= bases
                    if len(run) > 1 or not is_function(key):
                        for b in bases:
                            related[pos] |= self.related(b, pos)

        def grounds(pos: str, base: str) -> bool:
            return base in present or base in related[pos] or base in self.generic

        def grounded(key: str) -> bool:
            if is_function(key) or key in present or key in self.generic:
                return True
            bases = self.bases(key)
            if any(grounds(p, b) for p, bs in bases.items() for b in bs):
                return True
            if "-" in key and not bases:
                parts = [p for p in key.split("-") if not is_function(p)]
                return bool(parts) and all(grounded(p) for p in parts)
            return False

        ws = words(output)
        ok = [grounded(w[2]) for w in ws]
        for n in (2, 3):
            for i in range(len(ws) - n + 1):
                run = ws[i : i + n]
                if _adjacent(output, run) and any(grounds(p, b) for p, bs in
                                                  self.bases("_".join(w[2] for w in run)).items() for b in bs):
                    ok[i : i + n] = [True] * n
        return [output[a:b] for (a, b, _), good in zip(ws, ok) if not good]


def _adjacent(text: str, run) -> bool:
    return all(text[a[1] : b[0]].strip() == "" for a, b in zip(run, run[1:]))


def generic_words(path: Path) -> FrozenSet[str]:
    out = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        word = line.split("#")[0].strip().lower()
        if word:
            out.add(word)
    return frozenset(out)
