"""The N-gram inverted index: build, on-disk format, read.

Open an index with `open_index(path)` (cached per process; what commands and
components use); `NgramIndex.load` reads a folder afresh every time.
"""
from .budget import parse_memory_budget
from .format import FORMAT_VERSION
from .ngram_index import NgramIndex
from .open import clear_index_cache, open_index
from .sharded_index import ShardedIndex

__all__ = ["FORMAT_VERSION", "NgramIndex", "ShardedIndex", "clear_index_cache", "open_index", "parse_memory_budget"]
