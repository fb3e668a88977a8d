"""Stop a completion as soon as its JSON answer is complete.

The rewrite prompt asks for a short reasoning and then `{"text": "..."}`, "and
nothing after it"; models still add a closing remark, a code fence or a
second answer before their end token, and in a batch every such token costs a
full decode step for the whole batch until the last sequence ends. The reply
parser reads the last complete answer object, so nothing it uses comes after
the first one: we stop there.

Each step decodes only the newest token of each sequence (cached per id), so
it costs O(batch) in Python, not a decode of the whole completion. Only an
object whose sole key is `field` ends the reply: the reasoning may quote the
input object (`{"text": ..., "spans": [...]}`). The value is a string (the
whole-chunk answer of linkguard.Rewrite.v1, field "text") or a list (the
replacements of linkguard.RewriteSpans.v1, field "replacements").
"""
import json
from typing import Dict, List, Optional

_DECODER = json.JSONDecoder(strict=False)  # like the reply parser: raw line breaks inside strings


def is_answer(candidate: str, field: str) -> bool:
    """True when `candidate` is one JSON object whose only key is `field`,
    holding a string or a list."""
    try:
        obj, end = _DECODER.raw_decode(candidate)
    except ValueError:
        return False
    if end != len(candidate) or not isinstance(obj, dict):
        return False
    return list(obj) == [field] and isinstance(obj[field], (str, list))


class JsonAnswerScanner:
    """Incremental: `feed` text pieces; `done` once an answer object has closed.

    At each closing brace, every opening brace so far is tried as the start of
    an answer ending there (as the reply parser tries every "{"), so a stray
    brace in the reasoning cannot hide the answer. Braces are rare, so this
    costs next to nothing per step.
    """

    def __init__(self, field: str):
        self.field = field
        self.done = False
        self._chars: List[str] = []
        self._opens: List[int] = []

    def feed(self, piece: str) -> bool:
        """Scan `piece`; RETURNS whether the answer is complete (then stays True)."""
        for ch in piece:
            if self.done:
                break
            self._chars.append(ch)
            if ch == "{":
                self._opens.append(len(self._chars) - 1)
            elif ch == "}" and self._opens:
                text = "".join(self._chars)
                self.done = any(is_answer(text[i:], self.field) for i in reversed(self._opens))
        return self.done


class JsonAnswerStop:
    """A transformers stopping criterion: per sequence, stop after its JSON answer.

    tokenizer: decodes one token id at a time (cached per id).
    batch_size (int): Sequences in the batch.
    field (str): The answer object's only key.
    `lengths[row]` is the number of tokens generated up to and including the
    answer's closing brace, or None while the sequence has not stopped here.
    """

    def __init__(self, tokenizer, batch_size: int, field: str):
        self.tokenizer = tokenizer
        self.scanners = [JsonAnswerScanner(field) for _ in range(batch_size)]
        self.lengths: List[Optional[int]] = [None] * batch_size
        self.steps = 0
        self._pieces: Dict[int, str] = {}

    def __call__(self, input_ids, scores, **kwargs):
        import torch

        self.steps += 1
        done = []
        for row, token in enumerate(input_ids[:, -1].tolist()):
            scanner = self.scanners[row]
            if not scanner.done:
                piece = self._pieces.get(token)
                if piece is None:
                    piece = self._pieces[token] = self.tokenizer.decode([token])
                if scanner.feed(piece):
                    self.lengths[row] = self.steps
            done.append(scanner.done)
        return torch.tensor(done, dtype=torch.bool, device=input_ids.device)
