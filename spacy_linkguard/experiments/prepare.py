"""Choosing the evaluation documents from a query corpus (the `prepare` step)."""
from pathlib import Path
from typing import List, Optional, Set, Tuple, Union

from ..corpus import iter_records, write_records
from ..errors import Errors, LinkguardError


def choose_documents(n_total: int, n_docs: int, seed: int) -> List[int]:
    """Indices of `n_docs` documents out of `n_total` (all when n_docs is 0 or too large), sorted."""
    import random

    if n_docs <= 0 or n_docs >= n_total:
        return list(range(n_total))
    return sorted(random.Random(seed).sample(range(n_total), n_docs))


def shortest_documents(lengths: List[int], n_docs: int) -> List[int]:
    """Indices of the `n_docs` shortest documents (ties: file order), sorted; all when n_docs is 0 or too large."""
    if n_docs <= 0 or n_docs >= len(lengths):
        return list(range(len(lengths)))
    return sorted(sorted(range(len(lengths)), key=lambda i: (lengths[i], i))[:n_docs])


def flagged_ids(spans_path: Union[str, Path]) -> Set[str]:
    """Ids of the documents with at least one flagged span in a `detect` output."""
    from ..corpus import iter_json_lines

    return {str(obj.get("id")) for _, obj in iter_json_lines(spans_path) if obj.get("spans")}


def prepare_queries(queries: Union[str, Path], out: Union[str, Path], *, n_docs: int, seed: int,
                    shortest: bool = False, flagged_in: Optional[Union[str, Path]] = None,
                    full_run_out: Optional[Union[str, Path]] = None) -> Tuple[int, int]:
    """Write `n_docs` documents of `queries`, chosen at random with `seed`
    (with `shortest`: the n_docs shortest, e.g. for a quick smoke run), to
    `out` in their file order (all of them when n_docs is 0). With
    `flagged_in` (a `detect` output), only documents with a flagged span there
    are chosen from, when n_docs is not 0 (a smoke run that gives the rewriter work).
    `full_run_out`: a second file that gets the same documents when n_docs is 0
    (a full run) and none otherwise (the steps that read it run only in a full run).

    RETURNS (Tuple[int, int]): (documents written, documents in `queries`).
    RAISES: LinkguardError E254 (n_docs < 0), E011 (empty corpus) and those
        of `iter_records`.
    """
    if n_docs < 0:
        raise LinkguardError(Errors.E254.format(name="--n-docs", value=n_docs))
    records = list(iter_records(queries))
    if not records:
        raise LinkguardError(Errors.E011.format(path=queries))
    pool = list(range(len(records)))
    if flagged_in is not None and n_docs > 0:
        ids = flagged_ids(flagged_in)
        pool = [i for i in pool if records[i].id in ids] or pool  # none flagged: any will do
    if shortest:
        chosen = [pool[i] for i in shortest_documents([len(records[i].text) for i in pool], n_docs)]
    else:
        chosen = [pool[i] for i in choose_documents(len(pool), n_docs, seed)]
    if full_run_out is not None:
        write_records((records[i] for i in chosen) if n_docs == 0 else iter(()), full_run_out)
    return write_records((records[i] for i in chosen), out), len(records)
