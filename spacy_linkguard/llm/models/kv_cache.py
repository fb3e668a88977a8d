"""A KV cache that grows in place, for the banned-phrase decoding loop.

transformers' `DynamicLayer.update` concatenates: every decode step allocates
a new key and value tensor one column longer and copies the whole cache into
it, in every layer. At the rewrite's batches (128 rows of ~1,000-token
prompts, Qwen2.5-1.5B: about 5 GB of keys and values) that copy moves more
memory per generated token than the forward pass itself reads.

`GrowingLayer` keeps a buffer with room to spare, writes each step's keys and
values into the next free columns and hands attention a view of the columns
written so far; the buffer is reallocated (doubled) only when full. The
attention sees the same tensors, so the logits are the same as with the
dynamic cache (tested).
"""
from functools import lru_cache
from typing import Any

# columns of room added beyond the prompt when the buffer is first allocated
FIRST_ROOM = 256


def growing_cache(model) -> Any:
    """A transformers DynamicCache for `model` whose full-attention layers grow in place."""
    from transformers import DynamicCache
    from transformers.cache_utils import DynamicLayer

    try:
        cache = DynamicCache(config=model.config)
    except TypeError:  # transformers < 4.56: no layers to swap
        return DynamicCache()
    layers = getattr(cache, "layers", None)
    if layers is None:
        return cache
    layer_class = _layer_class(DynamicLayer)
    for i, layer in enumerate(layers):
        if type(layer) is DynamicLayer:  # sliding-window layers keep their own update
            layers[i] = layer_class()
    return cache


@lru_cache(maxsize=None)
def _layer_class(base):
    import torch

    class GrowingLayer(base):
        """A DynamicLayer whose keys and values are views of a buffer with spare columns."""

        def lazy_initialization(self, key_states, value_states) -> None:
            super().lazy_initialization(key_states, value_states)
            self._k = self._v = None
            self._n = 0

        def update(self, key_states, value_states, *args, **kwargs):
            if not self.is_initialized:
                self.lazy_initialization(key_states, value_states)
            add = key_states.shape[-2]
            need = self._n + add
            if self._k is None or need > self._k.shape[-2]:
                room = max(need + FIRST_ROOM, 2 * (self._k.shape[-2] if self._k is not None else 0))
                self._k = self._grow(self._k, key_states, room)
                self._v = self._grow(self._v, value_states, room)
            self._k[:, :, self._n : need] = key_states
            self._v[:, :, self._n : need] = value_states
            self._n = need
            self.keys, self.values = self._k[:, :, :need], self._v[:, :, :need]
            return self.keys, self.values

        def _grow(self, old, new, room: int):
            shape = list(new.shape)
            shape[-2] = room
            buf = torch.empty(shape, dtype=new.dtype, device=new.device)
            if old is not None and self._n:
                buf[:, :, : self._n] = old[:, :, : self._n]
            return buf

        def get_seq_length(self) -> int:
            return self._n if self.is_initialized else 0

        def crop(self, tokens_to_remove: int) -> None:
            if tokens_to_remove > 0:
                raise ValueError("crop takes a negative number of columns to remove")
            if tokens_to_remove == 0 or not self.is_initialized:
                return
            self._n = max(0, self._n + tokens_to_remove)
            self.keys, self.values = self._k[:, :, : self._n], self._v[:, :, : self._n]

        def batch_select_indices(self, indices) -> None:
            if self.get_seq_length() > 0:
                self._k, self._v = self._k[indices, ...], self._v[indices, ...]
                self.keys, self.values = self._k[:, :, : self._n], self._v[:, :, : self._n]

        def batch_repeat_interleave(self, repeats: int) -> None:
            if self.get_seq_length() > 0:
                self._k = self._k.repeat_interleave(repeats, dim=0)
                self._v = self._v.repeat_interleave(repeats, dim=0)
                self.keys, self.values = self._k[:, :, : self._n], self._v[:, :, : self._n]

        def reset(self) -> None:
            self._k = self._v = None
            self._n = 0
            super().reset()

    return GrowingLayer
