"""Temperature and nucleus (top-p) sampling of one next token per row.

As transformers' TemperatureLogitsWarper + TopPLogitsWarper, without sorting
the whole vocabulary at every step: the nucleus is looked for among each
row's NUCLEUS_FIRST most likely tokens (a top-k), and only a batch in which
some row's nucleus is wider than that is sorted in full. The kept tokens and
their probabilities are the same either way (tested against a brute-force
nucleus). torch only, so that `benchmarks/gpu/bench_decode_step.py` can load
it on a machine without spaCy.
"""
# the nucleus is looked for among this many most likely tokens first
NUCLEUS_FIRST = 256


def sample(logits, temperature: float, top_p: float):
    """Next token id per row of `logits` (batch, vocab): argmax at temperature 0,
    else a draw from the nucleus (module docstring). Seeding is the caller's."""
    import torch

    if temperature == 0:
        return logits.argmax(dim=-1)
    kept, order = _nucleus(logits / temperature, top_p)
    pick = torch.multinomial(kept.softmax(dim=-1), num_samples=1)
    return (pick if order is None else order.gather(1, pick)).squeeze(1)


def _nucleus(logits, top_p: float):
    """The logits `sample` draws from (those outside the nucleus at -inf), and
    the token ids of their columns: (kept, order), where order is None when
    kept spans the whole vocabulary."""
    if top_p >= 1.0:
        return logits, None
    k = min(NUCLEUS_FIRST, logits.shape[-1])
    top, order = logits.topk(k, dim=-1)  # descending
    probs = (top - logits.logsumexp(dim=-1, keepdim=True)).exp()
    before = probs.cumsum(dim=-1) - probs  # mass of the more likely tokens
    if bool((before[:, -1] + probs[:, -1] < top_p).any()):  # some row's nucleus is wider than k
        return _nucleus_sorted(logits, top_p), None
    return top.masked_fill(before >= top_p, float("-inf")), order


def _nucleus_sorted(logits, top_p: float):
    """transformers' TopPLogitsWarper: the vocabulary sorted, the least likely
    tokens whose mass stays within 1 - top_p set to -inf."""
    import torch

    sorted_logits, order = torch.sort(logits, descending=False)
    cum = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
    remove = cum <= (1 - top_p)
    remove[..., -1:] = False
    return logits.masked_fill(remove.scatter(1, order, remove), float("-inf"))
