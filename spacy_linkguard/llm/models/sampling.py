"""Temperature and nucleus (top-p) sampling of one next token per row, as
transformers' TemperatureLogitsWarper + TopPLogitsWarper do it.

(A top-k first, the full sort only for rows whose nucleus is wider, was
slower on an H200: 3.6 ms against 2.8 ms a step at 128 rows,
`benchmarks/gpu/bench_decode_step.py`.) torch only, so that the benchmark can
load it on a machine without spaCy.
"""


def sample(logits, temperature: float, top_p: float):
    """Next token id per row of `logits` (batch, vocab): argmax at temperature 0,
    else a draw from the nucleus. Seeding is the caller's."""
    import torch

    if temperature == 0:
        return logits.argmax(dim=-1)
    kept = nucleus(logits / temperature, top_p)
    return torch.multinomial(kept.softmax(dim=-1), num_samples=1).squeeze(1)


def nucleus(logits, top_p: float):
    """`logits` with the tokens outside the nucleus at -inf: the vocabulary
    sorted, the least likely tokens whose mass stays within 1 - top_p removed
    (the most likely token always kept)."""
    import torch

    if top_p >= 1.0:
        return logits
    sorted_logits, order = torch.sort(logits, descending=False)
    cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove = cum <= (1 - top_p)
    remove[..., -1:] = False
    return logits.masked_fill(remove.scatter(1, order, remove), float("-inf"))
