"""A canned-reply model for the loop's logic tests (no real LLM).

Registered for spacy-llm as `linkguard_test.Canned.v1` when imported, the way
spacy-llm's own tests register a fake model. It reads the chunk and spans from
the prompt's last `Input:` JSON object and answers by a fixed rule, so every
behaviour of a real model that the loop must survive can be produced on demand.
A prompt of the sentence task (`linkguard.RewriteSentences.v1`: "sentence"
and "phrases") is answered the same way, in that task's reply format.
These replies are canned; they say nothing about a real model's quality.
"""
import json
import re
from typing import Dict, Iterable, List, Sequence

from spacy_llm.registry import registry

from spacy_linkguard.llm.models.base import Generation

INJECTED = "PWNED. The applicant was acquitted of all charges and released."


def input_of(prompt: str) -> dict:
    """The prompt's last `Input:` JSON object."""
    line = [ln for ln in prompt.splitlines() if ln.startswith("Input: ")][-1]
    return json.loads(line[len("Input: ") :])


def chunk_of(prompt: str):
    """The (text, spans) the prompt asks to edit (the sentence task's
    "sentence" and "phrases" too)."""
    obj = input_of(prompt)
    if "sentence" in obj:
        return obj["sentence"], obj["phrases"]
    return obj["text"], obj["spans"]


def reword(text: str, spans: Sequence[str]) -> str:
    """A small edit per span: its last word gets a suffix that makes a token
    no document has (df = 0), wherever the span still occurs verbatim."""
    for span in sorted(spans, key=len, reverse=True):
        words = span.split()
        new = " ".join(words[:-1] + [words[-1] + "q"])
        text = re.sub(r"(?<!\w)" + re.escape(span) + r"(?!\w)", new, text, flags=re.IGNORECASE)
    return text


def redact(text: str, spans: Sequence[str]) -> str:
    """What a model that redacts instead of rephrasing writes: the placeholder."""
    for span in sorted(spans, key=len, reverse=True):
        text = re.sub(r"(?<!\w)" + re.escape(span) + r"(?!\w)", "[REDACTED]", text, flags=re.IGNORECASE)
    return text


def answer(text: str, field: str = "text") -> str:
    return "I replace each span with a reworded phrase.\n" + json.dumps({field: text})


class CannedModel:
    """behaviour: good | fenced | malformed_then_good | partial | drop |
    obey_injection | echo | unchanged | redact | exit (ends the process) | varied (the n-th reply to
    the same prompt: partial, redact, good, partial, ...: for best-of-n) | interrupt (good, but
    Ctrl-C, i.e. KeyboardInterrupt, at a chunk holding the word STOPHERE: for --checkpoint)."""

    def __init__(self, behaviour: str = "good"):
        self.behaviour = behaviour
        self.seen: Dict[str, int] = {}
        self.prompts: List[str] = []

    def reply(self, prompt: str) -> str:
        text, spans = chunk_of(prompt)
        field = "sentence" if "sentence" in input_of(prompt) else "text"

        def ans(edited: str) -> str:
            return answer(edited, field)

        attempt = self.seen.get(prompt, 0)
        self.seen[prompt] = attempt + 1
        b = self.behaviour
        if b == "good":
            return ans(reword(text, spans))
        if b == "fenced":
            return "Reasoning: easy.\n```json\n" + json.dumps({field: reword(text, spans)}) + "\n```\nDone!"
        if b == "malformed_then_good":
            return '{"text": "' + text[:20] if attempt == 0 else ans(reword(text, spans))
        if b == "partial":
            return ans(reword(text, spans[:1]))
        if b == "drop":
            words = reword(text, spans).split()
            return ans(" ".join(words[: len(words) // 3]))
        if b == "obey_injection":
            return ans(INJECTED)
        if b == "echo":
            rule = next(ln for ln in prompt.splitlines() if ln.startswith("1."))
            return ans(reword(text, spans) + " " + " ".join(rule.split()[1:9]))
        if b == "unchanged":
            return ans(text)
        if b == "redact":
            return ans(redact(text, spans))
        if b == "exit":  # the process ends, as one killed for its memory (for `--workers` tests)
            import os

            os._exit(3)
        if b == "interrupt":
            if "STOPHERE" in text:
                raise KeyboardInterrupt
            return ans(reword(text, spans))
        if b == "varied":
            return ans([reword(text, spans[:1]), redact(text, spans), reword(text, spans)][attempt % 3])
        raise ValueError(b)

    def generate(self, prompts: Sequence[str]) -> List[Generation]:
        self.prompts.extend(prompts)
        out = []
        for p in prompts:
            r = self.reply(p)
            out.append(Generation(r, len(p.split()), len(r.split())))
        return out

    def __call__(self, prompts: Iterable[Iterable[str]]) -> Iterable[List[str]]:
        return [[self.reply(p) if p else "" for p in ps] for ps in prompts]


if "linkguard_test.Canned.v1" not in registry.llm_models.get_all():

    @registry.llm_models("linkguard_test.Canned.v1")
    def make_canned(behaviour: str = "good") -> CannedModel:
        return CannedModel(behaviour)
