"""Self-training: a LoRA adapter of the rewrite model, fitted on its own verified rewrites.

`rewrite --components.linkguard_rewrite.keep_verified true` writes, with each
document, the prompt and reply of every chunk edit that the index verified
(all flagged spans gone, no new linking N-gram; `rewrite/records.py`). The
`train-lora` command reads them from those output lines and fine-tunes a
LoRA adapter (peft) of the same model on them: the prompt formatted exactly
as `HFChatModel` sends it (chat template included), the loss on the reply
and its end-of-turn token only. The adapter is then merged into the weights
and saved as an ordinary transformers folder, which a rewrite config names
as its model (`[components.linkguard_rewrite.model] name`): generation is as
fast as the base model's.

Training pairs must come from documents other than those the fine-tuned
model will be evaluated on (the project uses TAB's train and dev documents).
"""
import json
import math
import random
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from ..errors import Errors, LinkguardError
from ..paths import portable_path

# Projections of a Llama/Qwen-style decoder block that get an adapter.
DEFAULT_TARGET_MODULES = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
IGNORE = -100  # label of the tokens without a loss (prompt, padding)


@dataclass
class LoraSettings:
    """How the adapter is fitted (the `train-lora` options).

    rank, alpha, dropout: the LoRA update W + (alpha / rank) * B A.
    epochs: passes over the pairs; learning_rate: AdamW's, after a linear
    warm-up over the first `warmup` fraction of steps and then constant.
    batch_size: pairs a step; max_length: longest prompt + reply (tokens) kept.
    seed: shuffling and adapter initialisation.
    """

    rank: int = 16
    alpha: int = 32
    dropout: float = 0.05
    epochs: int = 1
    learning_rate: float = 1e-4
    warmup: float = 0.05
    batch_size: int = 8
    max_length: int = 2048
    seed: int = 0
    target_modules: Tuple[str, ...] = field(default=DEFAULT_TARGET_MODULES)

    def check(self) -> "LoraSettings":
        """RAISES: LinkguardError E207 for a value out of range."""
        checks = (
            ("rank", self.rank, isinstance(self.rank, int) and self.rank >= 1, "an integer >= 1"),
            ("alpha", self.alpha, isinstance(self.alpha, int) and self.alpha >= 1, "an integer >= 1"),
            ("dropout", self.dropout, 0 <= self.dropout < 1, "a number in [0, 1)"),
            ("epochs", self.epochs, isinstance(self.epochs, int) and self.epochs >= 1, "an integer >= 1"),
            ("learning_rate", self.learning_rate, self.learning_rate > 0, "a number > 0"),
            ("warmup", self.warmup, 0 <= self.warmup < 1, "a number in [0, 1)"),
            ("batch_size", self.batch_size, isinstance(self.batch_size, int) and self.batch_size >= 1,
             "an integer >= 1"),
            ("max_length", self.max_length, isinstance(self.max_length, int) and self.max_length >= 16,
             "an integer >= 16"),
        )
        for name, value, ok, expected in checks:
            if not ok:
                raise LinkguardError(Errors.E207.format(name=name, expected=expected, value=value))
        return self


def read_verified(paths: Sequence[Union[str, Path]]) -> List[Tuple[str, str]]:
    """The (prompt, reply) pairs of `rewrite` output lines' "verified" lists, in
    file order, each distinct pair once.

    RAISES: LinkguardError E221 (no pair in any file), E223 (a malformed
        entry) and those of `iter_json_lines` (E006, E008, E010).
    """
    from ..corpus import iter_json_lines

    pairs: Dict[Tuple[str, str], None] = {}
    for path in paths:
        for line, obj in iter_json_lines(path):
            entries = obj.get("verified") if isinstance(obj, dict) else None
            if entries is None:
                continue
            if not isinstance(entries, list):
                raise LinkguardError(Errors.E223.format(line=line, path=path, detail="not a list"))
            for entry in entries:
                ok = isinstance(entry, dict) and all(isinstance(entry.get(k), str) for k in ("prompt", "reply"))
                if not ok or not entry["prompt"].strip() or not entry["reply"].strip():
                    raise LinkguardError(Errors.E223.format(line=line, path=path,
                                                            detail=f"{str(entry)[:80]!r}"))
                pairs[(entry["prompt"], entry["reply"])] = None
    if not pairs:
        raise LinkguardError(Errors.E221.format(path=", ".join(str(p) for p in paths)))
    return list(pairs)


def end_of_turn(tokenizer: Any) -> str:
    """The token that ends an assistant turn in the chat template (generation stops on it)."""
    from .models.hf import END_OF_TURN_TOKENS

    vocab = tokenizer.get_vocab()
    return next((t for t in END_OF_TURN_TOKENS if t in vocab), tokenizer.eos_token or "")


def encode_pair(chat: Any, prompt: str, reply: str) -> Tuple[List[int], List[int]]:
    """(input ids, labels) of one pair: the prompt as `chat` (an `HFChatModel`)
    formats it, then the reply and the end-of-turn token; labels are IGNORE on
    the prompt, so only the reply is learnt."""
    tok = chat.tokenizer
    head = tok(chat.format_prompt(prompt), add_special_tokens=False)["input_ids"]
    tail = tok(reply + end_of_turn(tok), add_special_tokens=False)["input_ids"]
    return head + tail, [IGNORE] * len(head) + tail


def batches(n: int, batch_size: int, epochs: int, seed: int) -> Iterable[List[int]]:
    """Indices 0..n-1 in batches, reshuffled each epoch (random.Random(seed))."""
    rng = random.Random(seed)
    for _ in range(epochs):
        order = list(range(n))
        rng.shuffle(order)
        for i in range(0, n, batch_size):
            yield order[i:i + batch_size]


def collate(encoded: Sequence[Tuple[List[int], List[int]]], pad_id: int):
    """Right-padded tensors (input_ids, attention_mask, labels) of a batch."""
    import torch

    width = max(len(ids) for ids, _ in encoded)
    ids = torch.full((len(encoded), width), pad_id, dtype=torch.long)
    labels = torch.full((len(encoded), width), IGNORE, dtype=torch.long)
    mask = torch.zeros((len(encoded), width), dtype=torch.long)
    for row, (x, y) in enumerate(encoded):
        ids[row, :len(x)] = torch.tensor(x)
        labels[row, :len(y)] = torch.tensor(y)
        mask[row, :len(x)] = 1
    return ids, mask, labels


def train_lora(model: str, pairs: Sequence[Tuple[str, str]], output: Union[str, Path], *,
               settings: Optional[LoraSettings] = None, device: str = "auto", dtype: str = "float32",
               progress: bool = True) -> Dict[str, Any]:
    """Fit a LoRA adapter of `model` on `pairs` and save it, and the model with
    it merged, under `output`: `adapter/` (peft), `model/` (a transformers
    folder for a rewrite config) and `training.json` (what was done: pairs,
    settings, loss per epoch, seconds). The folder appears complete or not at
    all (written beside it, then renamed).

    model (str): The base model folder (as `linkguard.HF.v1` takes it).
    pairs: (prompt, reply) pairs (`read_verified`).
    dtype (str): The weights' dtype while fitting (and of the merged model):
        float32 by default, as a bfloat16 fit of Qwen2.5-Coder-1.5B diverged.
    RETURNS (Dict[str, Any]): The contents of training.json.
    RAISES: LinkguardError E222 (no peft), E224 (output not empty), E225
        (no pair fits max_length), E226 (the loss diverged: nothing is
        saved), E207 (settings), and the model's own
        (E200 not loadable, E202 no such device).
    """
    settings = (settings or LoraSettings()).check()
    output = Path(output)
    if output.exists() and (not output.is_dir() or any(output.iterdir())):
        raise LinkguardError(Errors.E224.format(path=output))
    try:
        import peft
    except ImportError:
        raise LinkguardError(Errors.E222) from None
    import torch
    from tqdm import tqdm

    from .models.hf import HFChatModel

    start = time.perf_counter()
    chat = HFChatModel(model, device=device, dtype=dtype)
    tok, base = chat.tokenizer, chat.model
    encoded = [encode_pair(chat, p, r) for p, r in pairs]
    kept = [e for e in encoded if len(e[0]) <= settings.max_length]
    if not kept:
        raise LinkguardError(Errors.E225.format(n=len(encoded), max_length=settings.max_length,
                                                shortest=min(len(e[0]) for e in encoded)))
    torch.manual_seed(settings.seed)
    lora = peft.LoraConfig(r=settings.rank, lora_alpha=settings.alpha, lora_dropout=settings.dropout,
                           target_modules=list(settings.target_modules), task_type="CAUSAL_LM")
    net = peft.get_peft_model(base, lora)
    net.train()
    params = [p for p in net.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=settings.learning_rate, weight_decay=0.0)
    steps_per_epoch = math.ceil(len(kept) / settings.batch_size)
    total = steps_per_epoch * settings.epochs
    warm = max(1, int(settings.warmup * total))
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / warm))
    epoch_loss: List[List[float]] = [[] for _ in range(settings.epochs)]
    bar = tqdm(total=total, desc="train-lora", unit="step", disable=not progress)
    for step, idx in enumerate(batches(len(kept), settings.batch_size, settings.epochs, settings.seed)):
        ids, mask, labels = (t.to(chat.device) for t in collate([kept[i] for i in idx], tok.pad_token_id))
        loss = net(input_ids=ids, attention_mask=mask, labels=labels).loss
        value = loss.item()
        if not math.isfinite(value):
            raise LinkguardError(Errors.E226.format(loss=value, step=step + 1, dtype=dtype))
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=True)
        epoch_loss[step // steps_per_epoch].append(value)
        bar.update(1)
        bar.set_postfix(loss=f"{value:.3f}")
    bar.close()
    net.eval()
    summary = {
        "base_model": portable_path(model),  # no machine's absolute prefix in a file that may be committed
        "pairs": len(encoded),
        "pairs_trained": len(kept),
        "pairs_too_long": len(encoded) - len(kept),
        "reply_tokens": sum(sum(1 for y in labels if y != IGNORE) for _, labels in kept),
        "settings": {**asdict(settings), "target_modules": list(settings.target_modules)},
        "steps": total,
        "loss_per_epoch": [round(sum(v) / len(v), 4) for v in epoch_loss if v],
        "loss_first_step": round(epoch_loss[0][0], 4),
        "loss_last_step": round(next(v for v in reversed(epoch_loss) if v)[-1], 4),
        "device": str(chat.device),
        "dtype": dtype,
        "peft": peft.__version__,
        "torch": torch.__version__,
    }
    partial = output.with_name(output.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    try:
        net.save_pretrained(str(partial / "adapter"))
        merged = net.merge_and_unload()
        merged.save_pretrained(str(partial / "model"))
        tok.padding_side = "left"
        tok.save_pretrained(str(partial / "model"))
        summary["seconds"] = round(time.perf_counter() - start, 1)
        (partial / "training.json").write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        if output.exists():
            output.rmdir()  # empty (checked above)
        partial.rename(output)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    return summary
