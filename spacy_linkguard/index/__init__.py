"""The N-gram inverted index: build, on-disk format, read. See `NgramIndex`."""
from .budget import parse_memory_budget
from .format import FORMAT_VERSION
from .ngram_index import NgramIndex
from .sharded_index import ShardedIndex

__all__ = ["FORMAT_VERSION", "NgramIndex", "ShardedIndex", "parse_memory_budget"]
