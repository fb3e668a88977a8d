"""`NgramIndex`: the N-gram inverted index -- build it, add documents, open it.

The read side of one folder is `FolderIndex` (folder_index.py); this class
adds what needs the builder (build.py) and the sharded reader
(sharded_index.py), which both sit below it, so none of them imports another
in a circle.
"""
from pathlib import Path
from typing import Any, Dict, Iterable, Optional, Union

from ..corpus import Record
from ..ngrams import DEFAULT_MAX_N, DEFAULT_PLACEHOLDER, NgramSettings
from . import format as fmt
from .build import add_to_index, build_index
from .folder_index import FolderIndex
from .sharded_index import ShardedIndex

Records = Iterable[Union[Record, Dict[str, Any]]]


class NgramIndex(FolderIndex):
    """For every N-gram (1..max_n tokens) of a collection, the documents containing it.

    Build with `NgramIndex.build`, open with `NgramIndex.load`. Document
    numbers are 0..n_docs-1 in corpus order; `doc_ids[i]` is the corpus id.
    """

    # ---- construction -------------------------------------------------
    @classmethod
    def build(cls, records: Records, path: Union[str, Path], *, max_n: int = DEFAULT_MAX_N,
              placeholder: str = DEFAULT_PLACEHOLDER, memory_budget: Union[str, int] = "4GB",
              progress: bool = True, n_process: Optional[int] = None, full: bool = False,
              shards: Optional[int] = None) -> "NgramIndex":
        """Build an index of `records` at `path` and return it loaded.

        records: Records or {"id", "text"} dicts (e.g. `spacy_linkguard.corpus.iter_records(...)`);
            streamed once. Empty (whitespace-only) documents are skipped with warning W050.
        path: target directory; an index already there is replaced atomically,
            anything else there is refused (E057).
        memory_budget: working memory for the full layout's sorts, e.g. "4GB" (more gives fewer,
            larger runs); the pruned build needs ~120 bytes per token whatever it is, and warns
            (W051) when that is more.
        progress: show progress bars on stderr.
        n_process: tokenizer processes (default: usable CPUs, at most 4; 1 = no subprocess).
        full: store every N-gram (format version 2's layout) instead of the pruned
            layout (frequent N-grams and each document's tokens; the same answers).
        shards: write a sharded index of this many shards (returns a `ShardedIndex`,
            same API; spacy_linkguard/index/shards.py).
        RAISES: LinkguardError E050-E058 (see spacy_linkguard/errors.py).
        """
        settings = NgramSettings(max_n=max_n, placeholder=placeholder)
        build_index(records, path, settings, memory_budget=memory_budget, progress=progress, n_process=n_process,
                    layout=fmt.FULL if full else fmt.PRUNED, shards=shards)
        return cls.load(path)

    def add_documents(self, records: Records, *, memory_budget: Union[str, int] = "4GB",
                      progress: bool = True, n_process: Optional[int] = None) -> "NgramIndex":
        """Add documents (numbered after the existing ones); returns the updated index,
        byte-identical to a full rebuild over the old and new documents. The
        directory is replaced atomically; keep using the returned object.

        RAISES: E052 (id already indexed) and as `build`.
        """
        add_to_index(self, records, memory_budget=memory_budget, progress=progress, n_process=n_process)
        return type(self).load(self.path)

    @classmethod
    def load(cls, path: Union[str, Path], *, verify: bool = False, _part: bool = False) -> "NgramIndex":
        """Open an index directory, memory-mapped and checked as `FolderIndex.load`
        says (verify: also every file's SHA-256 and every row).

        A folder holding a sharded index (manifest.json) opens as a
        `ShardedIndex`, with the same API.
        RAISES: as `FolderIndex.load` (E059-E064, E069, E070, E072).
        """
        path = Path(path)
        if (path / fmt.MANIFEST).is_file() and not (path / fmt.META).exists():
            return ShardedIndex.load(path, verify=verify)  # type: ignore[return-value]
        return super().load(path, verify=verify, _part=_part)  # type: ignore[return-value]
