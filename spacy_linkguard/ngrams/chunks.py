"""spaCy's N-gram tokens of a text, remembered per whitespace-delimited chunk.

spaCy's tokenizer splits a text at whitespace first and tokenizes each chunk
on its own; only special cases that contain whitespace can join chunks. Its
own chunk cache stops saving for the rest of a text once any special case
(the placeholder, "Mr.", "e.g.") has matched, so masked documents are
re-tokenized almost in full on every call. The detector tokenizes every text
it sees (and the rewrite loop re-detects mostly unchanged text), so
`ChunkTokenizer` keeps its own memo: chunk -> its tokens, and calls spaCy
only for chunks it has not seen, all of one text's new chunks in one call.

The result is exactly what iterating `tokenizer(text)` gives (tests compare
the two on real and generated text); `get_chunk_tokenizer` returns None when
the rules could join chunks (a special case or placeholder with whitespace
inside), and callers then use the tokenizer directly.
"""
import re
from functools import lru_cache
from itertools import chain
from operator import itemgetter
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

import numpy as np

from .normalize import token_key
from .tokenizer import get_tokenizer

if TYPE_CHECKING:  # spaCy loads when a tokenizer is made: `index-stats` never imports it
    from spacy.tokenizer import Tokenizer

# (start, end, key) of one token, offsets relative to its chunk; key None for a
# boundary token (punctuation or containing the placeholder).
ChunkToken = Tuple[int, int, Optional[str]]
# (start, end, key) of one token, offsets into the text; key None for a boundary
# token, including a whitespace token between chunks.
TextToken = Tuple[int, int, Optional[str]]

# `\S` and `\s` follow `str.isspace`, as spaCy's whitespace split does.
_CHUNK = re.compile(r"\S+")
_SPLIT = re.compile(r"(\s+)")  # the complement of _CHUNK: chunks and the whitespace runs between them
_JOIN = "\n"  # joins a text's new chunks for one spaCy call; a whitespace token, never part of a chunk
MEMO_SIZE = 200_000  # chunks remembered (about 50 MB); the memo is emptied when full


class ChunkTokenizer:
    """Tokens of a text with boundary flags, as `tokenizer(text)` gives them, memoised per chunk.

    tokenizer (Tokenizer): spaCy's English tokenizer with the placeholder special case.
    placeholder (str): A token containing it is a boundary token.
    memo_size (int): Chunks remembered before the memo is emptied.
    """

    def __init__(self, tokenizer: "Tokenizer", placeholder: str, memo_size: int = MEMO_SIZE) -> None:
        self.tokenizer = tokenizer
        self.placeholder = placeholder
        self.memo_size = memo_size
        self.memo: Dict[str, Tuple[ChunkToken, ...]] = {}
        self._rules = frozenset(tokenizer.rules)

    def __call__(self, text: str) -> List[TextToken]:
        """Tokens of `text` (already normalized) in order; whitespace between
        chunks other than one plain space (a blank line) becomes one boundary token."""
        chunks = [(m.start(), m.group()) for m in _CHUNK.finditer(text)]
        memo = self._remember([chunk for _, chunk in chunks])
        out: List[TextToken] = []
        prev_end = -1
        for start, chunk in chunks:
            if prev_end >= 0 and (start - prev_end != 1 or text[prev_end] != " "):
                out.append((prev_end, start, None))
            out.extend([(start + s, start + e, key) for s, e, key in memo[chunk]])
            prev_end = start + len(chunk)
        return out

    def _remember(self, chunks: List[str]) -> Dict[str, Tuple[ChunkToken, ...]]:
        """The memo, holding every one of `chunks` (new ones tokenized in one spaCy call)."""
        memo = self.memo
        distinct = list(dict.fromkeys(chunks))
        new = [c for c in distinct if c not in memo]
        if new and len(memo) + len(new) > self.memo_size:
            memo.clear()  # full: start again with this text's chunks
            new = distinct
        if new:
            hard = []
            for chunk in new:
                if self.is_plain_word(chunk):
                    memo[chunk] = ((0, len(chunk), token_key(chunk)),)
                else:
                    hard.append(chunk)
            if hard:
                memo.update(self._tokenize(hard))
        return memo

    def is_plain_word(self, chunk: str) -> bool:
        """Whether spaCy's English rules make `chunk` one non-boundary token,
        known without calling the tokenizer: ASCII letters only, not a special
        case, no placeholder. English prefixes, suffixes and infixes all need a
        character that is not a letter (unit suffixes such as "km" only after
        a digit), so such a chunk is never split. Most new chunks of a text are
        plain words; spaCy took ~0.5 ms a document tokenizing them.
        tests/ngrams/test_chunks.py checks this against the tokenizer on every
        plain word of the bundled collection and on all short letter strings."""
        return chunk.isascii() and chunk.isalpha() and chunk not in self._rules and self.placeholder not in chunk

    def flat(self, text: str) -> Tuple[List[Optional[str]], np.ndarray, np.ndarray, np.ndarray]:
        """The tokens of `__call__` as arrays, without a tuple per token: (keys, starts,
        ends, gap_before). keys: each token's key, None for a boundary token;
        starts/ends (int64): offsets into `text`; gap_before (bool): a boundary
        (whitespace other than one plain space) lies between the token and the
        one before it. `__call__` gives that gap as a boundary token of its own;
        otherwise the two list the same tokens in the same order."""
        parts = _SPLIT.split(text)  # chunk, gap, chunk, ..., chunk ("" at an end that is whitespace)
        lens = np.fromiter(map(len, parts), dtype=np.int64, count=len(parts))
        offs = np.cumsum(lens) - lens
        lo = 2 if parts[0] == "" else 0
        hi = len(parts) - 2 if len(parts) > 1 and parts[-1] == "" else len(parts)
        chunks = parts[lo:hi:2]
        if not chunks:
            empty = np.zeros(0, dtype=np.int64)
            return [], empty, empty, np.zeros(0, dtype=bool)
        memo = self._remember(chunks)
        found = list(map(memo.__getitem__, chunks))
        tokens = list(chain.from_iterable(found))
        n = len(tokens)
        counts = np.fromiter(map(len, found), dtype=np.int64, count=len(found))
        chunk_of = np.repeat(np.arange(len(chunks)), counts)
        base = offs[lo:hi:2][chunk_of]
        starts = base + np.fromiter(map(itemgetter(0), tokens), dtype=np.int64, count=n)
        ends = base + np.fromiter(map(itemgetter(1), tokens), dtype=np.int64, count=n)
        keys = list(map(itemgetter(2), tokens))
        # gaps: number of odd whitespace runs before each chunk
        odd = np.zeros(len(chunks), dtype=np.int64)
        odd[1:] = np.fromiter((g != " " for g in parts[lo + 1 : hi : 2]), dtype=bool, count=len(chunks) - 1)
        seen = np.cumsum(odd)[chunk_of]
        gap_before = np.zeros(n, dtype=bool)
        if n:
            gap_before[1:] = seen[1:] != seen[:-1]
        return keys, starts, ends, gap_before

    def _tokenize(self, chunks: List[str]) -> Dict[str, Tuple[ChunkToken, ...]]:
        """Tokenize new chunks with one spaCy call; split the tokens back by offset."""
        bounds = []
        pos = 0
        for chunk in chunks:
            bounds.append(pos)
            pos += len(chunk) + len(_JOIN)
        found: List[List[ChunkToken]] = [[] for _ in chunks]
        c = 0
        placeholder = self.placeholder
        for tok in self.tokenizer(_JOIN.join(chunks)):
            if tok.is_space:
                continue
            idx = tok.idx
            while c + 1 < len(bounds) and bounds[c + 1] <= idx:
                c += 1
            rel = idx - bounds[c]
            text = tok.text
            boundary = tok.is_punct or placeholder in text
            found[c].append((rel, rel + len(text), None if boundary else token_key(text)))
        return {chunk: tuple(toks) for chunk, toks in zip(chunks, found)}


def can_memoise(tokenizer: "Tokenizer", placeholder: str) -> bool:
    """Whether chunks are tokenized independently: no special case (and not
    the placeholder) has whitespace next to other characters."""
    def joins(text: str) -> bool:
        return any(c.isspace() for c in text) and not text.isspace()

    return not joins(placeholder) and not any(joins(rule) for rule in tokenizer.rules)


@lru_cache(maxsize=8)
def get_chunk_tokenizer(placeholder: str) -> Optional[ChunkTokenizer]:
    """The (cached) `ChunkTokenizer` for `placeholder`, or None when chunks are
    not independent under its rules (then tokenize whole texts)."""
    tokenizer = get_tokenizer(placeholder)
    if not can_memoise(tokenizer, placeholder):
        return None
    return ChunkTokenizer(lean_copy(tokenizer), placeholder)


def lean_copy(tokenizer: "Tokenizer") -> "Tokenizer":
    """A tokenizer with the same rules (so the same tokens) over a vocabulary of its
    own that computes only the lexeme attributes `ChunkTokenizer` reads. spaCy
    computes every attribute (shape, prefix, like_num, ...) of each word the
    first time it sees it; those were a third of the cost of tokenizing new
    words. `get_tokenizer`'s own tokenizer is not changed."""
    from spacy.attrs import IS_PUNCT, IS_SPACE
    from spacy.tokenizer import Tokenizer
    from spacy.vocab import Vocab

    # The lexeme attributes `ChunkTokenizer._tokenize` reads (Token.is_punct, Token.is_space).
    lexeme_attrs = (IS_PUNCT, IS_SPACE)
    getters = tokenizer.vocab.lex_attr_getters
    # No strings given to Vocab: it would make their lexemes before it holds the getters.
    vocab = Vocab(lex_attr_getters={a: getters[a] for a in lexeme_attrs if a in getters})
    lean = Tokenizer(vocab, rules=dict(tokenizer.rules), prefix_search=tokenizer.prefix_search,
                     suffix_search=tokenizer.suffix_search, infix_finditer=tokenizer.infix_finditer,
                     token_match=tokenizer.token_match, url_match=tokenizer.url_match,
                     faster_heuristics=tokenizer.faster_heuristics)
    return lean
