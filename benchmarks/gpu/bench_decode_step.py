"""Time one decode step of the banned-phrase loop's shapes on a GPU, per variant.

A Qwen2.5-Coder-1.5B-shaped model with random weights (the same layers and
sizes, so the same kernels and memory traffic; no weights to bring), a batch
of left-padded prompts, then decode steps as `banned_decoding.generate_banned`
runs them (explicit positions, a growing 2-D mask, `logits_to_keep=1`). For
each variant: milliseconds a step (wall, the GPU synchronized at the end of
every step as the loop's `.tolist()` does), and the sampling step alone.

    python3 benchmarks/gpu/bench_decode_step.py --batch 128 --prompt 1200 --steps 40

Variants: KV cache `dynamic` (transformers' DynamicCache: concatenation every
step) or `growing` (`llm/models/kv_cache.py`); attention `sdpa` or
`grouped_sdpa` (`llm/models/attention.py`); `graph`: fixed buffers and a
CUDA graph replayed every step (`llm/models/decode_steps.GraphSteps`), with
grouped_sdpa, checked against `growing+grouped_sdpa` (the greedy tokens of
every step, and the largest logit difference); sampling (`llm/models/sampling.py`):
the nucleus alone, and with the draw. Loads those modules
from their files, so it needs torch and transformers only. Prints one JSON
object.
"""
import argparse
import importlib.util
import inspect
import json
import sys
import time
from pathlib import Path

MODELS = Path(__file__).resolve().parents[2] / "spacy_linkguard" / "llm" / "models"
# Qwen2.5-Coder-1.5B-Instruct's config.json (the sizes that set the cost)
QWEN25_1P5B = dict(hidden_size=1536, intermediate_size=8960, num_hidden_layers=28, num_attention_heads=12,
                   num_key_value_heads=2, vocab_size=151936, max_position_embeddings=32768, rms_norm_eps=1e-6,
                   tie_word_embeddings=False, rope_theta=1000000.0)


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", MODELS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--prompt", type=int, default=1200, help="prompt width (tokens, left-padded)")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--layers", type=int, default=None, help="fewer layers (a CPU smoke run)")
    ap.add_argument("--vocab", type=int, default=None, help="a smaller vocabulary (a CPU smoke run)")
    args = ap.parse_args()

    import torch
    import transformers
    from transformers import Qwen2Config, Qwen2ForCausalLM

    kv_cache, attention, sampling = load("kv_cache"), load("attention"), load("sampling")
    decode_steps = load("decode_steps")
    sizes = dict(QWEN25_1P5B)
    if args.layers:
        sizes["num_hidden_layers"] = args.layers
    if args.vocab:
        sizes["vocab_size"] = args.vocab
    torch.manual_seed(0)
    dtype = torch.bfloat16 if args.device.startswith("cuda") else torch.float32
    with torch.device(args.device):
        model = Qwen2ForCausalLM(Qwen2Config(**sizes)).to(dtype).eval()
    sync = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)
    batch, width = args.batch, args.prompt
    ids = torch.randint(0, sizes["vocab_size"], (batch, width), device=args.device)
    mask = torch.ones(batch, width, dtype=torch.long, device=args.device)
    for r in range(batch):  # left padding: prompts of 60-100 % of the width
        mask[r, : int(width * 0.4 * (r % 5) / 5)] = 0
    grouped = attention.register()
    result = {"torch": torch.__version__, "transformers": transformers.__version__, "batch": batch,
              "prompt": width, "steps": args.steps, "device": torch.cuda.get_device_name(0)
              if args.device.startswith("cuda") else "cpu", "decode_ms": {}, "sample_ms": {}}
    for impl in ("sdpa", grouped):
        model.config._attn_implementation = impl
        for layer in model.model.layers:
            layer.self_attn.config._attn_implementation = impl
        for kind in ("dynamic", "growing"):
            ms, tokens, first = _decode(model, ids, mask, kind, kv_cache, args.steps, sync)
            result["decode_ms"][f"{kind}+{'grouped_sdpa' if impl == grouped else impl}"] = ms
    # the last loop ran growing + grouped_sdpa: the graph's oracle
    ms, graph_tokens, graph_first = _decode_graph(model, ids, mask, decode_steps, args.steps, sync)
    result["decode_ms"]["graph+grouped_sdpa"] = ms
    result["graph_check"] = {
        "steps_with_same_tokens": sum(a == b for a, b in zip(graph_tokens, tokens)), "steps": len(tokens),
        "first_step_max_abs_logit_diff": round(float((graph_first - first).abs().max()), 4),
        "first_step_max_abs_logit": round(float(first.abs().max()), 2)}
    logits = torch.randn(batch, sizes["vocab_size"], device=args.device) * 3
    for name, fn in (("nucleus", lambda x: sampling.nucleus(x / 0.7, 0.9)),
                     ("sample", lambda x: sampling.sample(x, 0.7, 0.9))):
        fn(logits)
        sync()
        t0 = time.perf_counter()
        for _ in range(args.steps):
            fn(logits)
        sync()
        result["sample_ms"][name] = round(1000 * (time.perf_counter() - t0) / args.steps, 3)
    print(json.dumps(result))


def _decode(model, ids, mask, kind: str, kv_cache, steps: int, sync):
    """ms a decode step after the prefill (the first 3 steps not timed), the
    greedy tokens of every step (a list of lists), the first step's logits."""
    import torch
    from transformers import DynamicCache

    batch, width = ids.shape
    name = "cache" if "cache" in inspect.signature(type(model).forward).parameters else "past_key_values"
    cache = kv_cache.growing_cache(model) if kind == "growing" else DynamicCache(config=model.config)
    buf = torch.zeros(batch, width + steps + 8, dtype=mask.dtype, device=ids.device)
    buf[:, :width] = mask
    position_ids = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 1)
    lengths = mask.sum(dim=1)

    def step(i: int, token):
        col = width + i
        buf[:, col] = 1
        out = model(input_ids=torch.tensor(token, device=ids.device).unsqueeze(1), attention_mask=buf[:, : col + 1],
                    position_ids=(lengths + i).unsqueeze(1), **{name: cache}, use_cache=True,
                    cache_position=torch.arange(col, col + 1, device=ids.device), logits_to_keep=1)
        return out.logits[:, -1]

    with torch.inference_mode():
        out = model(input_ids=ids, attention_mask=buf[:, :width], position_ids=position_ids, **{name: cache},
                    use_cache=True, cache_position=torch.arange(width, device=ids.device), logits_to_keep=1)
        result = _timed_steps(step, out.logits[:, -1], steps, sync)
    cache = None  # its buffers go before the next variant's
    if ids.is_cuda:
        torch.cuda.empty_cache()
    return result


def _decode_graph(model, ids, mask, decode_steps, steps: int, sync):
    """As `_decode`, through GraphSteps (captured on the first step)."""
    import torch

    width = ids.shape[1]
    position_ids = (mask.cumsum(-1) - 1).masked_fill(mask == 0, 1)
    lengths = mask.sum(dim=1).tolist()
    graph = decode_steps.GraphSteps(model, max_new_tokens=steps + 8)

    def step(i: int, token):
        col = width + i
        graph.room(col)
        graph.mask[:, col] = True
        return graph.step(token, [n + i for n in lengths], col)

    with torch.inference_mode():
        return _timed_steps(step, graph.prefill(ids, mask, position_ids), steps, sync)


def _timed_steps(step, logits, steps: int, sync):
    """Greedy decoding from the prefill's `logits`: steps + 3 calls of
    step(i, token ids) -> logits, the last `steps` timed; the tokens go through
    the CPU every step, as the loop's do. RETURNS (ms a step, tokens a step,
    the first step's logits)."""
    token = logits.float().argmax(-1).tolist()
    sync()
    t0, tokens, first = None, [], None
    for i in range(steps + 3):
        if i == 3:
            sync()
            t0 = time.perf_counter()
        logits = step(i, token).float()
        if first is None:
            first = logits.clone()
        token = logits.argmax(-1).tolist()
        tokens.append(token)
    sync()
    return round(1000 * (time.perf_counter() - t0) / steps, 3), tokens, first

if __name__ == "__main__":
    sys.exit(main())
