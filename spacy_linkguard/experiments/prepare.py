"""Choosing the evaluation documents from a query corpus (the `prepare` step)."""
from pathlib import Path
from typing import List, Tuple, Union

from ..corpus import iter_records, write_records
from ..errors import Errors, LinkguardError


def choose_documents(n_total: int, n_docs: int, seed: int) -> List[int]:
    """Indices of `n_docs` documents out of `n_total` (all when n_docs is 0 or too large), sorted."""
    import random

    if n_docs <= 0 or n_docs >= n_total:
        return list(range(n_total))
    return sorted(random.Random(seed).sample(range(n_total), n_docs))


def prepare_queries(queries: Union[str, Path], out: Union[str, Path], *, n_docs: int, seed: int) -> Tuple[int, int]:
    """Write `n_docs` documents of `queries`, chosen at random with `seed`, to
    `out` in their file order (all of them when n_docs is 0).

    RETURNS (Tuple[int, int]): (documents written, documents in `queries`).
    RAISES: LinkguardError E254 (n_docs < 0), E011 (empty corpus) and those
        of `iter_records`.
    """
    if n_docs < 0:
        raise LinkguardError(Errors.E254.format(name="--n-docs", value=n_docs))
    records = list(iter_records(queries))
    if not records:
        raise LinkguardError(Errors.E011.format(path=queries))
    chosen = choose_documents(len(records), n_docs, seed)
    return write_records((records[i] for i in chosen), out), len(records)
