"""The words a rewrite may use: those of the collection and of the document.

`vocabulary_of(index, document_text)` is the `known` test of the vocabulary
guard (`filters/f8_vocabulary.py`). A word is split into tokens and each
token keyed exactly as the index keys it (`spacy_linkguard.ngrams`: look-alike
and width folding, spaCy's English tokenizer, case folding), so "Applicant's"
is known when "applicant" and "'s" are. A token is known when it is one of the
document's tokens or a unigram of the index with df >= 1. Every layout keeps
every unigram as a row (the pruned layout drops only N-grams with a rare
sub-N-gram, never a unigram; a sharded index asks the token's shard), so a
frequent word is known in all of them.
"""
from typing import Any, Callable, Dict, List

from ..errors import Errors, LinkguardError
from ..ngrams import text_segments


def vocabulary_of(index: Any, document_text: str) -> Callable[[str], bool]:
    """The known-word test for rewriting one document.

    index: An open N-gram index (`open_index`; `NgramIndex` or `ShardedIndex`).
    document_text (str): The document being rewritten (its words are known
        even when the collection lacks them).
    RETURNS (Callable[[str], bool]): word -> whether every token of it is
        known (a word with no token, e.g. punctuation only, is known).
        Answers are memoized for the life of the callable.
    RAISES: LinkguardError E233 when `index` is not an index.
    """
    if not all(hasattr(index, name) for name in ("settings", "key_doc_freqs")):
        raise LinkguardError(Errors.E233.format(value=index))
    settings = index.settings
    own = {key for seg in text_segments(document_text, settings) for key in seg.keys}
    memo: Dict[str, bool] = {}

    def token_keys(word: str) -> List[str]:
        return [key for seg in text_segments(word, settings) for key in seg.keys]

    def known(word: str) -> bool:
        got = memo.get(word)
        if got is None:
            keys = [k for k in token_keys(word) if k not in own]
            got = True
            if keys:
                dfs = index.key_doc_freqs(keys)
                got = all(int(df) > 0 for df in dfs)
            memo[word] = got
        return got

    return known
