"""Grouped-query attention for the decode step without copying the KV cache.

transformers' SDPA attention hands `enable_gqa` to PyTorch only when there is
no attention mask. A left-padded batch always has one, so for every decode
step and every layer it first copies each key/value head once per query head
that shares it (`repeat_kv`: 4x the KV cache for Qwen3-4B's 32 query / 8 KV
heads). At batch 64 with prompts of ~1,000 tokens that is tens of gigabytes
of copies per generated token, most of a step's time on an H100/H200.

A decode step has one query position, so the query heads that share a KV head
can stand in as that many query *positions* of one head: (B, 32, 1, d) ->
(B, 8, 4, d). One SDPA call over the un-copied cache then gives exactly the
same result. Prefill (several positions) and unmasked calls keep the stock
implementation.

Both run with PyTorch's cuDNN attention kernel excluded (flash, memory
efficient and math remain): on an H200 (torch's bundled cuDNN) the cuDNN
kernel failed on a masked decode step of this call ("Expected
mha_graph.execute(...).is_good()"), after hundreds of good ones, and took the
whole rewrite process down with it; the memory-efficient kernel takes the
same masks.
"""
from typing import Any, Optional

NAME = "linkguard_grouped_sdpa"
_registered = False


def grouped_sdpa_attention(
    module: Any,
    query: Any,
    key: Any,
    value: Any,
    attention_mask: Optional[Any],
    dropout: float = 0.0,
    scaling: Optional[float] = None,
    is_causal: Optional[bool] = None,
    **kwargs: Any,
):
    """transformers attention function (the `AttentionInterface` signature).

    query: (batch, heads, q_len, head_dim); key, value: (batch, kv_heads, kv_len, head_dim).
    RETURNS: (attention output (batch, q_len, heads, head_dim), None).
    """
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from transformers.integrations.sdpa_attention import sdpa_attention_forward

    # every kernel but cuDNN's (module docstring)
    with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):
        groups = getattr(module, "num_key_value_groups", 1)
        if groups == 1 or query.shape[2] != 1 or attention_mask is None or dropout:
            return sdpa_attention_forward(
                module, query, key, value, attention_mask, dropout=dropout, scaling=scaling, is_causal=is_causal,
                **kwargs
            )
        batch, heads, _, head_dim = query.shape
        kv_heads = key.shape[1]
        # repeat_kv maps query head h to KV head h // groups: heads are grouped contiguously.
        grouped = query.reshape(batch, kv_heads, groups, head_dim)
        mask = attention_mask[:, :, -1:, : key.shape[2]]  # (batch, 1, 1, kv_len): the same row for every group
        out = torch.nn.functional.scaled_dot_product_attention(grouped, key, value, attn_mask=mask, scale=scaling)
    return out.reshape(batch, heads, 1, head_dim).transpose(1, 2).contiguous(), None


def register() -> str:
    """Register the function with transformers (once); RETURNS its implementation name."""
    global _registered
    if not _registered:
        from transformers import AttentionInterface
        from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

        AttentionInterface.register(NAME, grouped_sdpa_attention)
        AttentionMaskInterface.register(NAME, sdpa_mask)  # the masks SDPA gets
        _registered = True
    return NAME
