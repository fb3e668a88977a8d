"""Temperature and nucleus (top-p) sampling of one next token per row, as
transformers' TemperatureLogitsWarper + TopPLogitsWarper do it.

Two sources of randomness. Without `keys`, a draw from torch's generator
(`torch.multinomial`; seeding is the caller's): a row's token then depends on
which rows share its batch and in what order. With `keys` (one 63-bit integer
a row) and `steps` (the position of the token in the row's reply), each row
draws by the Gumbel-max trick from noise that is a hash of (key, step, token
id) (`row_noise`): the argmax of logits / temperature + Gumbel noise over
the nucleus is a draw from the nucleus's distribution, and it is the same
whatever the batch, its size or order, and on any device. A row rewound to
a step draws there again from the same noise with the banned token removed:
the next token of the same perturbed order, a draw from the distribution
without it.

(A top-k first, the full sort only for rows whose nucleus is wider, was
slower on an H200: 3.6 ms against 2.8 ms a step at 128 rows,
`benchmarks/gpu/bench_decode_step.py`.) torch only, so that the benchmark can
load it on a machine without spaCy.
"""
import hashlib

# splitmix64's constants (Steele, Lea and Flood 2014), as signed 64-bit integers
_GOLDEN = 0x9E3779B97F4A7C15 - (1 << 64)
_MIX1 = 0xBF58476D1CE4E5B9 - (1 << 64)
_MIX2 = 0x94D049BB133111EB - (1 << 64)
_STEP = 0xD1B54A32D192ED03 - (1 << 64)


def sample(logits, temperature: float, top_p: float, keys=None, steps=None):
    """Next token id per row of `logits` (batch, vocab): argmax at temperature 0,
    else a draw from the nucleus: from torch's generator, or, with `keys` and
    `steps` (int64 tensors, one per row), from each row's own noise (module).
    The noise is computed for the nucleus's tokens only (a few a row), not
    for the whole vocabulary."""
    import torch

    if temperature == 0:
        return logits.argmax(dim=-1)
    kept = nucleus(logits / temperature, top_p)
    if keys is None:
        return torch.multinomial(kept.softmax(dim=-1), num_samples=1).squeeze(1)
    rows, tokens = torch.isfinite(kept).nonzero(as_tuple=True)
    scores = kept[rows, tokens].double() + gumbel(uniform(keys[rows], steps[rows], tokens))
    n = kept.shape[0]
    best = torch.full((n,), float("-inf"), dtype=scores.dtype, device=scores.device)
    best = best.scatter_reduce(0, rows, scores, "amax")
    hit = scores == best[rows]
    chosen = torch.full((n,), kept.shape[1], dtype=tokens.dtype, device=tokens.device)
    return chosen.scatter_reduce(0, rows[hit], tokens[hit], "amin")


def row_key(seed: int, prompt: str, occurrence: int) -> int:
    """A row's key: a 63-bit hash of the model's seed, its prompt and how often
    that prompt was asked before (so that the n candidates of a prompt, and a
    retry of it, draw differently)."""
    digest = hashlib.blake2b(f"{seed}\x00{occurrence}\x00{prompt}".encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> 1


def row_noise(keys, steps, vocab: int):
    """Uniform numbers in (0, 1), (rows, vocab) float64: `uniform` of every
    (row's key, row's step, token id)."""
    import torch

    tokens = torch.arange(vocab, dtype=torch.int64, device=keys.device)
    return uniform(keys[:, None], steps[:, None], tokens[None, :])


def uniform(keys, steps, tokens):
    """A uniform number in (0, 1) per (key, step, token id) (broadcast int64
    tensors), float64: splitmix64 of the three; int64 arithmetic wraps as
    unsigned would."""
    import torch

    x = keys.to(torch.int64) * _GOLDEN + steps.to(torch.int64) * _STEP + tokens.to(torch.int64) * _GOLDEN
    x = (x ^ _shr(x, 30)) * _MIX1
    x = (x ^ _shr(x, 27)) * _MIX2
    x = x ^ _shr(x, 31)
    return (_shr(x, 11).double() + 0.5) / float(1 << 53)


def gumbel(uniform):
    """Standard Gumbel noise from uniform numbers in (0, 1)."""
    return -(-uniform.log()).log()


def _shr(x, bits: int):
    """The logical right shift of int64 `x` (torch's >> is arithmetic)."""
    return (x >> bits) & ((1 << (64 - bits)) - 1)


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
