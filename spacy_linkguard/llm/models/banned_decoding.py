"""Sampling that never completes a banned phrase: rewind and ban, per row.

Why not transformers' `bad_words_ids`: it bans token-id sequences, and a phrase
has many. "Smith" and " Smith", "SMITH", "smith", a split form ("Sm" + "ith")
and the same words with another space or dash between them are different ids,
and the phrase's test (`rewrite.occurs`: normalized, spaCy tokens, case-folded)
catches them all. Listing every tokenization is exponential, and banning a
single token id bans every word that starts with it. So we decode, read the
reply as text, and undo the tokens that made a phrase occur:

After each step, each row's new text is matched (`banned_phrases.PhraseWatcher`)
against its phrases. When one has COMPLETED (its last word is followed by
whitespace, or the reply ended), the row is rewound to the generated token in
which that occurrence began, that token id is banned at that position (bans
persist: a second rewind to the same position bans one more id), and sampling
resumes from there. Past `max_rewinds` rewinds the row fails
(`failed="banned_phrase"`).

A rewind costs no recomputation of the batch: all rows share one KV cache
(`decode_steps.py`: grown in place, or fixed buffers replayed as a CUDA
graph); the rewound tokens of a row, and its last kept token, are masked
out (attention mask 0), and the row feeds its last kept token again at the
next step with an explicit position id (its logits are then the distribution
at the rewound position). Other rows just continue. Rows that have finished
leave the batch once they are half of it (`COMPACT_FROM`), so a long reply
does not keep the whole batch running.
"""
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Set

from ... import profiling
from .banned_phrases import PhraseSet, PhraseWatcher, first_occurrence
from .decode_steps import make_steps
from .sampling import sample

FAILED = "banned_phrase"
# Finished rows leave the batch (the cache's rows are selected) once at most
# half of a batch of at least this many rows is still generating.
COMPACT_FROM = 8


@dataclass
class Row:
    """One sequence of the batch: what it generated and where it stands."""

    index: int  # the row's place in the batch
    phrases: PhraseSet
    prompt_len: int
    prompt_col: int  # cache column of the last prompt token (moves when re-fed)
    prompt_last: int  # the last prompt token's id
    ids: List[int] = field(default_factory=list)
    cols: List[int] = field(default_factory=list)  # cache column of each generated token
    text: str = ""
    ends: List[int] = field(default_factory=list)  # len(text) after each generated token
    offsets: List[tuple] = field(default_factory=list)  # detokenizer (prefix, read) after each token
    bans: Dict[int, Set[int]] = field(default_factory=dict)
    rewinds: int = 0
    done: bool = False
    failed: Optional[str] = None
    refeed: bool = False  # feed the last kept token again (after a rewind)
    json: Any = None

    def __post_init__(self):
        self.watcher = PhraseWatcher(self.phrases)


def generate_banned(
    model,
    tokenizer,
    enc,
    phrase_sets: Sequence[PhraseSet],
    *,
    max_new_tokens: int,
    temperature: float,
    top_p: float,
    stop_ids: Sequence[int],
    max_rewinds: int,
    stop_strings: Sequence[str] = (),
    stop_at_json: Optional[str] = None,
    graphs: bool = False,
    keys: Optional[Sequence[int]] = None,
    prefix: Optional[Sequence[Any]] = None,
) -> List[Row]:
    """Sample completions of a left-padded batch that never contain a banned phrase.

    model, tokenizer: A transformers causal LM and its tokenizer.
    enc: The tokenized batch (input_ids, attention_mask; left padding) on the model's device.
    phrase_sets: One PhraseSet per row (an empty one bans nothing).
    max_new_tokens: Completion length limit (kept tokens; rewound ones do not count).
    temperature, top_p: As `HFChatModel`; temperature 0 is greedy.
    stop_ids: Token ids that end a completion (kept as its last id, decoded to nothing).
    max_rewinds: Rewinds allowed per row; one more needed fails the row.
    stop_strings, stop_at_json: As `HFChatModel`.
    graphs: Decode over fixed buffers, replaying a CUDA graph on a GPU
        (`decode_steps.GraphSteps`); False: transformers' forward at every step.
    keys: One sampling key per row (`sampling.row_key`): each row draws from
        its own noise, so its reply does not depend on the batch; None:
        torch's generator (seeding is then the caller's: `torch.manual_seed`).
    prefix: The keys and values of the batch's first P columns, which every
        row shares (`prefix_cache.PrefixCache`), each layer's (1, heads, P,
        dim); the prefill then computes only the columns after them. None:
        every column.
    RETURNS (List[Row]): Per row: `ids` (generated, stop id included), `text`
        (as produced; the caller decodes `ids` for the final text), `rewinds`, `failed`.
    """
    import torch

    device = enc["input_ids"].device
    input_ids, mask = enc["input_ids"], enc["attention_mask"]
    width = input_ids.shape[1]
    stop = set(stop_ids)
    rows = [
        Row(r, phrases, int(n), width - 1, int(last))
        for r, (phrases, n, last) in enumerate(zip(phrase_sets, mask.sum(dim=1).tolist(), input_ids[:, -1].tolist()))
    ]
    if stop_at_json:
        from .stopping import JsonAnswerScanner

        for row in rows:
            row.json = JsonAnswerScanner(stop_at_json)
    longest_stop = max((len(s) for s in stop_strings), default=0)
    decode = fast_decode(tokenizer)
    penalty = getattr(getattr(model, "generation_config", None), "repetition_penalty", None)
    history = None
    if penalty not in (None, 1.0):
        # as transformers' RepetitionPenaltyLogitsProcessor over prompt + kept tokens;
        # free slots repeat the row's last prompt token (already penalised once).
        history = torch.cat([input_ids, input_ids[:, -1:].repeat(1, max_new_tokens)], dim=1)

    # the mask (steps.mask) has a column per step, for all rows at once
    position_ids = (mask.long().cumsum(-1) - 1).masked_fill(mask == 0, 1)
    steps = make_steps(model, graphs=graphs, max_new_tokens=max_new_tokens)
    live = list(rows)  # the rows still in the batch; row.index is the place of each
    row_keys = None if keys is None else torch.tensor(list(keys), dtype=torch.int64, device=device)
    stats: Dict[str, int] = {}
    with torch.inference_mode(), profiling.phase("prefill", sync=True):
        logits = steps.prefill(input_ids, mask, position_ids, prefix, stats)
    profiling.count("prefill_tokens", stats.get("tokens", 0))
    profiling.count("prompt_tokens", int(mask.sum()))
    profiling.count("rows", len(rows))
    with torch.inference_mode(), profiling.phase("decode", sync=True):
        n_cols = width
        while True:
            logits = logits.float()
            if history is not None:
                score = logits.gather(1, history)
                logits.scatter_(1, history, torch.where(score < 0, score * penalty, score / penalty))
            ban_rows, ban_ids = [], []
            for r, row in enumerate(live):
                for t in row.bans.get(len(row.ids), ()):
                    ban_rows.append(r)
                    ban_ids.append(t)
            if ban_rows:
                logits[ban_rows, ban_ids] = float("-inf")
            at = None if row_keys is None else torch.tensor([len(row.ids) for row in live], device=device)
            chosen = sample(logits, temperature, top_p, row_keys, at).tolist()

            feed = [tokenizer.pad_token_id] * len(live)
            pos = [0] * len(live)
            for r, row in enumerate(live):
                if row.done:
                    continue
                _advance(row, chosen[r], decode, stop, max_new_tokens, stop_strings, longest_stop)
                if history is not None:
                    history[r, width + len(row.ids) - 1] = chosen[r]
                if row.done and row.failed is None:
                    _final_check(row, tokenizer, max_rewinds, steps.mask)
                elif not row.done:
                    _check(row, max_rewinds, steps.mask)
                if row.done:
                    continue
                if history is not None and row.refeed:
                    history[r, width + len(row.ids) :] = row.prompt_last
                if row.refeed:
                    token = row.ids[-1] if row.ids else row.prompt_last
                    feed[r], pos[r] = token, row.prompt_len + len(row.ids) - 1
                else:
                    feed[r], pos[r] = row.ids[-1], row.prompt_len + len(row.ids) - 1
            active = [r for r, row in enumerate(live) if not row.done]
            if not active:
                break
            if len(active) <= len(live) // 2 and len(live) >= COMPACT_FROM:
                # finished rows leave the batch: every later step computes only the rest
                keep = torch.tensor(active, device=device)
                steps.select(keep)
                if history is not None:
                    history = history[keep]
                if row_keys is not None:
                    row_keys = row_keys[keep]
                live = [live[r] for r in active]
                feed, pos = [feed[r] for r in active], [pos[r] for r in active]
                for r, row in enumerate(live):
                    row.index = r
                active = list(range(len(live)))
            steps.room(n_cols)
            for r in active:
                row = live[r]
                if row.refeed:
                    if row.ids:
                        row.cols[-1] = n_cols
                    else:
                        row.prompt_col = n_cols
                    row.refeed = False
                else:
                    row.cols.append(n_cols)
            steps.mask[torch.tensor(active, device=device), n_cols] = 1  # one write for all rows that go on
            logits = steps.step(feed, pos, n_cols)
            n_cols += 1
            profiling.count("decode_steps")
            profiling.count("decode_row_steps", len(active))
    profiling.count("generated_tokens", sum(len(row.ids) for row in rows))
    profiling.count("rewinds", sum(row.rewinds for row in rows))
    return rows


def _advance(row: Row, token: int, decode, stop: set, max_new: int, stop_strings, longest_stop: int) -> None:
    """Append `token` to the row: its text (`decode`: token ids -> text, see
    `fast_decode`), and whether the row ended."""
    row.ids.append(token)
    before = len(row.text)
    if token in stop:
        row.ends.append(before)
        row.offsets.append(row.offsets[-1] if row.offsets else (0, 0))
        row.done = True
        return
    prefix, read = row.offsets[-1] if row.offsets else (0, 0)
    # incremental detokenization: a window of recent tokens decoded with and
    # without the new one (byte-level pieces of one character, and
    # tokenizers that change spacing by context, come out as in a full decode)
    old = decode(row.ids[prefix:read])
    new = decode(row.ids[prefix:])
    if len(new) > len(old) and not new.endswith("\ufffd"):
        row.text += new[len(old) :]
        prefix, read = read, len(row.ids)
    row.ends.append(len(row.text))
    row.offsets.append((prefix, read))
    if len(row.ids) >= max_new:
        row.done = True
    elif longest_stop and any(s in row.text[max(0, before - longest_stop) :] for s in stop_strings):
        row.done = True
    elif row.json is not None and row.json.feed(row.text[before:]):
        row.done = True


def fast_decode(tokenizer):
    """token ids -> text as `tokenizer.decode(ids, skip_special_tokens=True)`
    gives it: a fast tokenizer's Rust decoder called directly when the
    tokenizer cleans up no spaces afterwards (a fifth of the time a call;
    two calls a row at every step), else `tokenizer.decode`."""
    raw = getattr(tokenizer, "_tokenizer", None)
    if raw is not None and hasattr(raw, "decode") and not getattr(tokenizer, "clean_up_tokenization_spaces", True):
        return lambda ids: raw.decode(ids, skip_special_tokens=True)
    return lambda ids: tokenizer.decode(ids, skip_special_tokens=True)


def _check(row: Row, max_rewinds: int, mask) -> None:
    """Rewind the row when its text completes a banned phrase."""
    found = row.watcher.scan(row.text)
    if found is not None:
        _rewind(row, _token_at(row, found), max_rewinds, mask)


def _final_check(row: Row, tokenizer, max_rewinds: int, mask) -> None:
    """At the end of the reply: the whole final text (as the caller will decode
    it) must not contain a phrase; rewind (the row goes on) when it does."""
    final = tokenizer.decode(row.ids, skip_special_tokens=True)
    if final == row.text:
        found = row.watcher.scan(row.text, ended=True)
        k = None if found is None else _token_at(row, found)
    else:  # the decoder changed spacing across the windows: read the full text
        found = first_occurrence(final, row.phrases)
        k = None if found is None else _token_in_decode(row.ids, found, tokenizer)
    if k is not None:
        row.done = False
        _rewind(row, k, max_rewinds, mask)


def _token_at(row: Row, offset: int) -> int:
    """The generated token in which the text at `offset` began (a token that
    only started a character's bytes counts as where it began)."""
    k = bisect_right(row.ends, offset)
    while k > 0 and row.ends[k - 1] == (row.ends[k - 2] if k >= 2 else 0):
        k -= 1
    return k


def _token_in_decode(ids: List[int], offset: int, tokenizer) -> int:
    """The first k with len(decode(ids[:k + 1])) > offset (binary search)."""
    lo, hi = 0, len(ids) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if len(tokenizer.decode(ids[: mid + 1], skip_special_tokens=True)) > offset:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _rewind(row: Row, k: int, max_rewinds: int, mask) -> None:
    """Cut the row back to its first k generated tokens and ban token k there,
    or fail it when it has no rewind left."""
    if row.rewinds >= max_rewinds:
        row.failed, row.done = FAILED, True
        return
    row.rewinds += 1
    row.bans.setdefault(k, set()).add(row.ids[k])
    mask[row.index, row.cols[k:] + ([row.cols[k - 1]] if k > 0 else [row.prompt_col])] = 0
    del row.ids[k:], row.ends[k:], row.offsets[k:]
    del row.cols[k:]
    row.text = row.text[: row.ends[-1] if row.ends else 0]
    row.watcher.cut(len(row.text))
    if row.json is not None:
        from .stopping import JsonAnswerScanner

        row.json = JsonAnswerScanner(row.json.field)
        row.json.feed(row.text)
    row.refeed = True
    row.done = False
