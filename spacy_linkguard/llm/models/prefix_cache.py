"""The prompt prefix every row of a batch shares, computed once a run.

Every prompt of a rewrite run starts with the same instruction and few-shot
examples (a chat header, the rules, the examples, "Now this sentence."):
about 500 of an ECHR prompt's 700 tokens, 570 of a biography prompt's 830
(measured on an H200, `benchmarks/results/gpu_fast/`). `PrefixCache.split` finds the
longest run of token ids that all rows of a batch start with; the model
computes that prefix's keys and values once (`decode_steps.prefix_states`)
and keeps them, here, for the next batches, and each batch's prefill copies
them into its rows and computes only the rest (`decode_steps.prefill_once`).

The batch's layout (`layout`) puts the prefix in the first columns of every
row and left-pads the rest after it; positions count the real tokens of a
row, so each row sees the same tokens at the same positions as its prompt
alone, and its logits are those of the whole prompt (to rounding; tested
against the full forward).

torch only (no spaCy), like the other modules of the decoding loop.
"""
from collections import OrderedDict
from typing import Any, List, Optional, Sequence, Tuple

# a shared prefix shorter than this is not worth a cache entry
MIN_PREFIX_TOKENS = 16
# prefixes kept (the task's prompt and its generalize prompt, a few more)
MAX_ENTRIES = 4


class PrefixCache:
    """The keys and values of the last few shared prefixes, by their token ids.

    min_tokens (int): Shorter shared prefixes are not cached (0 returned by `split`).
    max_entries (int): Prefixes kept; the least recently used leaves first.
    """

    def __init__(self, min_tokens: int = MIN_PREFIX_TOKENS, max_entries: int = MAX_ENTRIES) -> None:
        self.min_tokens = min_tokens
        self.max_entries = max_entries
        self._entries: "OrderedDict[Tuple[int, ...], Any]" = OrderedDict()
        self.computed = 0  # prefixes computed (tests, the profile)
        self.reused = 0  # rows that got a cached prefix instead of computing it

    def split(self, rows: Sequence[Sequence[int]], keep_last: int = 1) -> int:
        """The number of leading token ids all `rows` share, leaving at least
        `keep_last` ids of the shortest row after it (its last token's
        logits are needed); 0 when that is below `min_tokens`."""
        if not rows:
            return 0
        n = min(len(r) for r in rows) - keep_last
        first = rows[0]
        for row in rows[1:]:
            i = 0
            limit = min(n, len(row))
            while i < limit and row[i] == first[i]:
                i += 1
            n = i
            if n < self.min_tokens:
                return 0
        return n if n >= self.min_tokens else 0

    def states(self, model: Any, ids: Sequence[int], n_rows: int = 1) -> List[Tuple[Any, Any]]:
        """Each layer's (keys, values) of the prefix `ids`, computed on first use."""
        from .decode_steps import prefix_states

        key = tuple(ids)
        found = self._entries.get(key)
        if found is None:
            from ... import profiling

            with profiling.phase("prefix", sync=True):
                found = prefix_states(model, key)
            profiling.count("prefix_tokens", len(key))
            self._entries[key] = found
            self.computed += 1
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        else:
            self._entries.move_to_end(key)
        self.reused += n_rows
        return found


def layout(rows: Sequence[Sequence[int]], shared: int, pad_id: int, device: Any = None):
    """The batch as tensors: `shared` prefix columns, then each row's rest
    left-padded to the longest. RETURNS (input_ids, attention_mask), (rows, columns)."""
    import torch

    width = max(len(r) for r in rows) - shared
    ids, mask = [], []
    for row in rows:
        rest = list(row[shared:])
        pad = width - len(rest)
        ids.append(list(row[:shared]) + [pad_id] * pad + rest)
        mask.append([1] * shared + [0] * pad + [1] * len(rest))
    return (torch.tensor(ids, dtype=torch.long, device=device), torch.tensor(mask, dtype=torch.long, device=device))


def shared_prefix(cache: Optional[PrefixCache], rows: Sequence[Sequence[int]], keep_last: int = 1) -> int:
    """`cache.split(rows)`, or 0 without a cache."""
    return 0 if cache is None else cache.split(rows, keep_last)
