"""Where a banned phrase occurs in a growing reply, as `rewrite.occurs` decides it.

A phrase occurs in a text when its token keys (SPEC.md's tokens: normalized,
spaCy-tokenized, case-folded; the phrase's keys taken across its segments, as
`occurs` takes them) appear consecutively inside one segment of the text.
`first_occurrence` answers that for a whole text; `PhraseWatcher` answers it
for a reply that grows token by token, looking only at the text that became
final since its last look, so a reply of L characters costs O(L) in all, not
O(L) per step.

Text becomes final at whitespace: spaCy splits on whitespace first and every
later rule works inside one whitespace-free chunk, and normalization is per
character (whitespace runs aside, which the watcher keeps whole). A token
followed by whitespace therefore never changes again, whatever is generated
after it; a token at the very end of an unfinished reply may ("Smith" ->
"Smithson"), so the watcher leaves it for later, until the reply ends.
"""
from bisect import bisect_right
from typing import Dict, FrozenSet, Iterable, List, Optional, Sequence, Tuple

from ...ngrams import NgramSettings, normalize_text, phrase_keys
from ...ngrams.segments import normalized_tokens

Keys = Tuple[str, ...]
# A sentinel word put before a piece that starts with whitespace, so that the
# piece's leading blank line (a segment boundary) is tokenized as in the full text.
_SENTINEL = "x"


class PhraseSet:
    """Compiled banned phrases of one reply: their keys, grouped by length.

    phrases: Raw phrase texts; one without any token key can never occur and
        is left out (as `occurs` answers False for it).
    """

    def __init__(self, phrases: Iterable[str], settings: NgramSettings):
        by_len: Dict[int, set] = {}
        for phrase in phrases:
            keys = phrase_keys(phrase, settings)
            if keys:
                by_len.setdefault(len(keys), set()).add(keys)
        self.by_len: Dict[int, FrozenSet[Keys]] = {n: frozenset(s) for n, s in by_len.items()}
        self.lengths = sorted(self.by_len)
        self.max_len = self.lengths[-1] if self.lengths else 0
        self.settings = settings

    def __bool__(self) -> bool:
        return bool(self.lengths)

    def match_end(self, window: Sequence[Tuple[str, int]]) -> Optional[int]:
        """The start offset of a phrase that ends with the last token of
        `window` ((key, start) pairs of one segment), or None."""
        for n in self.lengths:
            if n <= len(window) and tuple(k for k, _ in window[-n:]) in self.by_len[n]:
                return window[-n][1]
        return None


def piece_tokens(text: str, start: int, end: int, placeholder: str) -> List[Tuple[int, int, Optional[str]]]:
    """(start, end, key) of the tokens of text[start:end], offsets into `text`;
    key None for a boundary token. `start` is 0 or the start of a whitespace run."""
    piece = text[start:end]
    shift = start
    lead = bool(piece) and piece[0].isspace()
    if lead:
        piece = _SENTINEL + piece
        shift -= len(_SENTINEL)
    norm = normalize_text(piece)
    tokens = normalized_tokens(norm.text, placeholder)
    if norm.offsets is not None:
        tokens = norm.offsets.map_tokens(tokens)
    if lead:
        tokens = tokens[1:]
    return [(s + shift, e + shift, k) for s, e, k in tokens]


def first_occurrence(text: str, phrases: PhraseSet) -> Optional[int]:
    """Start offset in `text` of the first phrase occurrence to complete
    (scanning tokens left to right), or None when none occurs."""
    if not phrases:
        return None
    window: List[Tuple[str, int]] = []
    for start, _, key in piece_tokens(text, 0, len(text), phrases.settings.placeholder):
        if key is None:
            window = []
            continue
        window.append((key, start))
        del window[: -phrases.max_len]
        found = phrases.match_end(window)
        if found is not None:
            return found
    return None


class PhraseWatcher:
    """Streaming `first_occurrence` over a reply that grows and is cut back.

    `scan(text, ended)` looks at the text that became final since the last
    scan (up to the last whitespace run; all of it when `ended`) and RETURNS
    the start offset of a completed occurrence, or None. `cut(offset)` forgets
    what was scanned beyond `offset` after the reply was cut back there.
    """

    def __init__(self, phrases: PhraseSet):
        self.phrases = phrases
        # (offset, window): the scan state at each offset where a scanned piece ended.
        self._points: List[int] = [0]
        self._windows: List[Tuple[Tuple[str, int], ...]] = [()]
        self._seen = 0  # text before this was searched for whitespace runs

    def scan(self, text: str, ended: bool = False) -> Optional[int]:
        pos = self._points[-1]
        end = len(text) if ended else _last_run_start(text, pos, max(pos, self._seen - 1))
        self._seen = len(text)
        if end <= pos or not self.phrases:
            return None
        window = list(self._windows[-1])
        for start, _, key in piece_tokens(text, pos, end, self.phrases.settings.placeholder):
            if key is None:
                window = []
                continue
            window.append((key, start))
            del window[: -self.phrases.max_len]
            found = self.phrases.match_end(window)
            if found is not None:
                return found
        if not ended:
            self._points.append(end)
            self._windows.append(tuple(window[-(self.phrases.max_len - 1) :] if self.phrases.max_len > 1 else ()))
        return None

    def cut(self, offset: int) -> None:
        keep = bisect_right(self._points, offset)
        del self._points[keep:]
        del self._windows[keep:]
        self._seen = min(self._seen, offset)


def _last_run_start(text: str, pos: int, lo: int) -> int:
    """The start of the last whitespace run after `lo` (>= pos) that follows a
    non-whitespace character (pos when there is none): text before it is final."""
    i = len(text) - 1
    while i > lo:
        if text[i].isspace() and not text[i - 1].isspace():
            return i
        i -= 1
    return pos
