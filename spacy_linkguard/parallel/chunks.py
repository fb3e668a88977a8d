"""Reading the input a chunk at a time, for the pool and the Dask runner alike."""
from typing import Any, Iterator, List, Optional, Tuple

from ..errors import LinkguardError


def read_chunk(records: Iterator[Any], size: int) -> Tuple[List[Any], bool, Optional[LinkguardError]]:
    """Up to `size` records of `records`.

    RETURNS (tuple): (chunk, exhausted, error): exhausted when the records ran
        out or a bad input line raised; error: that line's LinkguardError (the
        chunk holds the lines before it), else None.
    """
    chunk: List[Any] = []
    try:
        for rec in records:
            chunk.append(rec)
            if len(chunk) == size:
                return chunk, False, None
    except LinkguardError as e:  # a bad input line: raised after the lines before it
        return chunk, True, e
    return chunk, True, None
