"""The deny list: boilerplate phrases that are never masked (pure functions)."""
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, FrozenSet, Iterable, List, Optional, Tuple, Union

_SPACES = re.compile(r"\s+")
_LEADING_THE = re.compile(r"^the\s+")
# Words of a phrase for the generic-word test (numbers included, so "1932
# and 1934" is not "generic"); a possessive "'s" is not a word.
_GENERIC_WORD = re.compile(r"[^\W_]+(?:[-'’][^\W_]+)*(?<!'s)(?<!’s)")
_EDGE_PUNCT = "\"'“”‘’()[],.;:"


@dataclass(frozen=True)
class DenyList:
    """Phrases (exact, normalized) and regexes (full match) that are never masked."""

    phrases: FrozenSet[str] = frozenset()
    patterns: Tuple["re.Pattern[str]", ...] = ()
    generic_words: FrozenSet[str] = frozenset()
    label_patterns: Tuple[Tuple[str, "re.Pattern[str]"], ...] = ()

    @classmethod
    def from_config(
        cls,
        phrases: Iterable[str] = (),
        patterns: Iterable[str] = (),
        generic_words: Iterable[str] = (),
        label_patterns: Optional[Dict[str, Iterable[str]]] = None,
    ) -> "DenyList":
        flags = re.IGNORECASE | re.DOTALL
        return cls(
            frozenset(normalize_phrase(p) for p in phrases),
            tuple(re.compile(p, flags) for p in patterns),
            frozenset(w.casefold() for w in generic_words),
            # Case-sensitive: a capital letter often marks a name ("İzmir"
            # tagged DATE by a small model) that such a rule must not drop.
            tuple((label, re.compile(p, re.DOTALL)) for label, pats in (label_patterns or {}).items() for p in pats),
        )

    @classmethod
    def from_file(cls, path: Union[str, Path]) -> "DenyList":
        """Read `phrases:` and `patterns:` from a YAML file (E152 when malformed)."""
        from .adapter import read_yaml  # the YAML reader with coded errors

        data = read_yaml(Path(path))
        return cls.from_config(
            data.get("phrases") or (),
            data.get("patterns") or (),
            data.get("generic_words") or (),
            data.get("label_patterns") or {},
        )

    def denies(self, text: str, label: str = "") -> bool:
        """True when `text` (detected as `label`) is boilerplate.

        Denied are: an empty text; a listed phrase; a full match of a pattern
        (or, case-sensitively, of a pattern listed for `label`); a text whose every word is a
        generic word ("the Supreme Administrative Court", "Ministry of Foreign
        Affairs"), since such institutions are named the same in every case.
        Texts are compared after `normalize_phrase`; a leading "the" is ignored.
        """
        key = normalize_phrase(text)
        if not key:
            return True
        stripped = _LEADING_THE.sub("", key)
        if key in self.phrases or stripped in self.phrases:
            return True
        if any(p.fullmatch(key) or p.fullmatch(stripped) for p in self.patterns):
            return True
        if self.label_patterns:
            plain = _SPACES.sub(" ", text.strip())
            if any(lab == label and p.fullmatch(plain) for lab, p in self.label_patterns):
                return True
        if self.generic_words:
            words = _GENERIC_WORD.findall(key)
            if words and all(w in self.generic_words for w in words):
                return True
        return False


def normalize_phrase(text: str) -> str:
    """Trim spaces and edge punctuation, collapse inner spaces, case-fold."""
    return _SPACES.sub(" ", text.strip().strip(_EDGE_PUNCT).strip()).casefold()


def filter_denied(text: str, spans: Iterable, deny: DenyList) -> List:
    """Keep the spans (anything with .start/.end) whose text the deny list does not deny."""
    return [s for s in spans if not deny.denies(text[s.start : s.end], getattr(s, "label", ""))]
