"""How `banned_decoding.generate_banned` runs a batch's forward passes.

`EagerSteps`: each step calls the model as transformers does, over a KV cache
that grows in place (`kv_cache.py`) and a 2-D attention mask one column
longer each step.

`GraphSteps`: after the prompt, the keys and values move into buffers with a
fixed number of columns, the attention mask becomes a fixed (batch, columns)
boolean buffer handed to the model as a 4-D mask (unused columns are 0), and
the step's inputs (token ids, positions, the column to write) are fixed
tensors whose values change. On a GPU the step is then captured once as a
CUDA graph and replayed: a decode step of a 1.5B model is otherwise bound by
the Python and kernel launches of transformers' 28 layers (about 30 ms a
step on an H200 at any batch size, `benchmarks/gpu/bench_decode_step.py`),
not by the GPU. Rows leaving the batch, or a batch outgrowing its columns,
move the buffers and capture again. On a CPU the same buffers are run
eagerly (what the tests check against `EagerSteps`).

Both compute a prompt that the batch holds several times (the candidates of
one sentence) once, and copy its keys and values to its other rows; and,
given the keys and values of a prefix every row shares (the instruction and
examples of a prompt, `prefix_cache.py`), they copy those in and compute
only the columns after it.

Both give the loop the same surface: `mask` (rows x columns; the loop sets a
row's new column to 1 and a rewound row's columns to 0), `prefill` (with an
optional shared prefix), `room` (column n must exist), `select` (keep these
rows) and `step`.

torch and transformers only (no spaCy), so that the benchmark can load it on
a machine without the package's other dependencies.
"""
import inspect
from functools import lru_cache
from typing import Any, List, Sequence, Tuple

# columns of room a GraphSteps buffer has beyond the prompt and max_new_tokens
EXTRA_COLUMNS = 32
# attention implementations that take a boolean 4-D mask as GraphSteps passes it
# (the second is attention.NAME, spelled out: the benchmark loads this file alone)
BOOLEAN_MASK_ATTENTION = ("sdpa", "linkguard_grouped_sdpa")


@lru_cache(maxsize=None)
def cache_argument(model_class) -> str:
    """transformers 5 names the forward's cache argument `cache` (`past_key_values` is deprecated there)."""
    return "cache" if "cache" in inspect.signature(model_class.forward).parameters else "past_key_values"


def forward(model, ids, mask, position_ids, cache, first_col: int):
    """One forward pass; RETURNS the last position's logits (batch, vocab)."""
    import torch

    cache_position = torch.arange(first_col, first_col + ids.shape[1], device=ids.device)
    out = model(input_ids=ids, attention_mask=mask, position_ids=position_ids, use_cache=True,
                cache_position=cache_position, logits_to_keep=1, **{cache_argument(type(model)): cache})
    return out.logits[:, -1, :]


def unique_rows(input_ids, mask):
    """Rows of a batch that repeat an earlier row (the same prompt sampled n
    times): (first, inverse), where input_ids[first] are the distinct rows
    and input_ids[first][inverse] is the batch again; None when no row repeats."""
    import torch

    rows = torch.cat([input_ids, mask.to(input_ids.dtype)], dim=1)
    _, inverse = torch.unique(rows, dim=0, return_inverse=True)
    n = int(inverse.max()) + 1
    if n == rows.shape[0]:
        return None
    order = torch.arange(rows.shape[0], device=rows.device)
    first = torch.full((n,), rows.shape[0], dtype=order.dtype, device=rows.device)
    first = first.scatter_reduce(0, inverse, order, reduce="amin")
    return first, inverse


def prefill_once(model, input_ids, mask, position_ids, cache, prefix=None, stats=None):
    """The prompts' forward pass with each distinct prompt computed once: the
    cache's rows and the logits are then repeated for the batch's copies.
    prefix: None, or the keys and values of the first P columns, the same in
        every row (each layer's (1, heads, P, dim)): they are written into
        the cache for each distinct row and only the columns after them are
        computed (`mask` and `position_ids` still cover every column).
    stats: None, or a dict that gets "tokens": the token positions computed.
    RETURNS the last position's logits (batch, vocab)."""
    start = 0 if not prefix else prefix[0][0].shape[-2]
    repeated = unique_rows(input_ids[:, start:], mask[:, start:])
    first, inverse = repeated if repeated is not None else (slice(None), None)
    if prefix:
        put_prefix(cache, prefix, input_ids.shape[0] if inverse is None else first.shape[0])
    logits = forward(model, input_ids[first, start:], mask[first], position_ids[first, start:], cache, start)
    if stats is not None:
        stats["tokens"] = int(logits.shape[0]) * (input_ids.shape[1] - start)
    if inverse is None:
        return logits
    cache.batch_select_indices(inverse)
    return logits[inverse]


def put_prefix(cache, prefix, n_rows: int) -> None:
    """Write the shared `prefix` (each layer's (1, heads, P, dim) keys and
    values) into the empty `cache` as the first P columns of `n_rows` rows."""
    for layer, (keys, values) in enumerate(prefix):
        cache.update(keys.expand(n_rows, -1, -1, -1).contiguous(), values.expand(n_rows, -1, -1, -1).contiguous(),
                     layer)


def prefix_states(model, ids):
    """The keys and values of the token ids `ids` (one sequence, from column 0):
    each layer's (keys, values), (1, heads, len(ids), dim)."""
    import torch
    from transformers import DynamicCache

    cache = DynamicCache(config=model.config)
    row = torch.tensor([list(ids)], device=model.device)
    positions = torch.arange(row.shape[1], device=row.device)[None]
    with torch.inference_mode():
        forward(model, row, torch.ones_like(row), positions, cache, 0)
    return _states(cache)


def make_steps(model, *, graphs: bool, max_new_tokens: int):
    """GraphSteps when asked for and the model's attention takes its mask, else EagerSteps."""
    attention = getattr(model.config, "_attn_implementation", None)
    if graphs and attention in BOOLEAN_MASK_ATTENTION:
        return GraphSteps(model, max_new_tokens=max_new_tokens)
    return EagerSteps(model)


class EagerSteps:
    """transformers' own forward at every step, over a cache that grows in place."""

    def __init__(self, model):
        from .kv_cache import growing_cache

        self.model = model
        self.cache = growing_cache(model)
        self.mask = None

    def prefill(self, input_ids, mask, position_ids, prefix=None, stats=None):
        import torch

        batch, width = input_ids.shape
        self.mask = torch.zeros(batch, width + 64, dtype=mask.dtype, device=mask.device)
        self.mask[:, :width] = mask
        return prefill_once(self.model, input_ids, self.mask[:, :width], position_ids, self.cache, prefix, stats)

    def room(self, n_cols: int) -> None:
        import torch

        if n_cols >= self.mask.shape[1]:
            self.mask = torch.cat([self.mask, torch.zeros_like(self.mask)], dim=1)

    def select(self, keep) -> None:
        self.cache.batch_select_indices(keep)
        self.mask = self.mask[keep]

    def step(self, feed: Sequence[int], pos: Sequence[int], n_cols: int):
        import torch

        device = self.mask.device
        ids = torch.tensor(feed, device=device).unsqueeze(1)
        positions = torch.tensor(pos, device=device).unsqueeze(1)
        return forward(self.model, ids, self.mask[:, : n_cols + 1], positions, self.cache, n_cols)


class GraphSteps:
    """Fixed buffers, and on a GPU one CUDA graph a batch shape (module docstring)."""

    def __init__(self, model, *, max_new_tokens: int):
        self.model = model
        self.max_new_tokens = max_new_tokens
        self.graph = None
        self.captures = 0  # how often a step was captured (tests, benchmarks)

    def prefill(self, input_ids, mask, position_ids, prefix=None, stats=None):
        from transformers import DynamicCache

        cache = DynamicCache(config=self.model.config)
        logits = prefill_once(self.model, input_ids, mask, position_ids, cache, prefix, stats)
        width = input_ids.shape[1]
        self._place(_states(cache), mask.bool(), width, width + self.max_new_tokens + EXTRA_COLUMNS)
        return logits

    def room(self, n_cols: int) -> None:
        columns = self.mask.shape[1]
        if n_cols >= columns:
            self._place(_states(self.cache), self.mask, columns, 2 * columns)

    def select(self, keep) -> None:
        self._place([(k[keep], v[keep]) for k, v in _states(self.cache)], self.mask[keep],
                    self.mask.shape[1], self.mask.shape[1])

    def step(self, feed: Sequence[int], pos: Sequence[int], n_cols: int):
        import torch

        device = self.mask.device
        self.ids.copy_(torch.tensor(feed, device=device).unsqueeze(1))
        self.positions.copy_(torch.tensor(pos, device=device).unsqueeze(1))
        self.column.fill_(n_cols)
        if device.type != "cuda":
            return self._run()
        if self.graph is None:
            self._capture()
        self.graph.replay()
        return self.logits

    def _place(self, states: List[Tuple[Any, Any]], mask, used: int, columns: int) -> None:
        """(Re)allocate the buffers with `columns` columns, the first `used` of
        each layer's (keys, values) and of `mask` copied."""
        import torch

        from transformers import DynamicCache

        self.graph = self.logits = None
        device = mask.device
        batch = mask.shape[0]
        self.mask = torch.zeros(batch, columns, dtype=torch.bool, device=device)
        self.mask[:, :used] = mask[:, :used]
        self.column = torch.zeros(1, dtype=torch.long, device=device)
        self.ids = torch.zeros(batch, 1, dtype=torch.long, device=device)
        self.positions = torch.zeros(batch, 1, dtype=torch.long, device=device)
        layer_class = _fixed_layer_class()
        self.cache = DynamicCache(config=self.model.config)
        self.cache.layers = [layer_class(k, v, used, columns, self.column) for k, v in states]

    def _run(self):
        out = self.model(input_ids=self.ids, attention_mask=self.mask[:, None, None, :], position_ids=self.positions,
                         use_cache=True, cache_position=self.column, logits_to_keep=1,
                         **{cache_argument(type(self.model)): self.cache})
        return out.logits[:, -1, :]

    def _capture(self) -> None:
        """Warm up on a side stream (kernels choose their workspaces), then capture.
        Both write this step's keys and values into its column: the replay that
        follows writes the same values there again."""
        import torch

        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            self._run()
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            self.logits = self._run()
        self.graph = graph
        self.captures += 1


def _states(cache) -> List[Tuple[Any, Any]]:
    """Each layer's (keys, values) tensors."""
    return [(layer.keys, layer.values) for layer in cache.layers]


@lru_cache(maxsize=None)
def _fixed_layer_class():
    import torch
    from transformers.cache_utils import DynamicLayer

    class FixedLayer(DynamicLayer):
        """Keys and values in buffers of a fixed number of columns; each update
        writes its one new column where `column` (a shared 1-element tensor)
        points, and attention reads every column (the mask hides the unused)."""

        def __init__(self, keys, values, used: int, columns: int, column):
            super().__init__()
            shape = list(keys.shape)
            shape[-2] = columns
            self.keys = torch.zeros(shape, dtype=keys.dtype, device=keys.device)
            self.values = torch.zeros(shape, dtype=values.dtype, device=values.device)
            self.keys[:, :, :used] = keys[:, :, :used]
            self.values[:, :, :used] = values[:, :, :used]
            self.column = column
            self.device = keys.device
            self.is_initialized = True

        def update(self, key_states, value_states, *args, **kwargs):
            self.keys.index_copy_(2, self.column, key_states)
            self.values.index_copy_(2, self.column, value_states)
            return self.keys, self.values

        def get_seq_length(self) -> int:
            return self.keys.shape[-2]

    return FixedLayer
