"""A canned-reply model for the sentence task (no real LLM).

It reads the sentence and the phrases from the prompt and answers by a rule
the test gives, so that each filter of `SentenceRewriter` can be hit on
demand. These replies are canned; they say nothing about a real model's
quality. `loss` answers from a table (default 1.0), standing in for the
rewriting model's own loss.
"""
import json
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from spacy_linkguard.llm.models.base import Generation


def input_of(prompt: str) -> dict:
    """The input object of a prompt of linkguard.RewriteSentences.v1 (its last `Input:` line)."""
    line = [ln for ln in prompt.splitlines() if ln.startswith("Input: ")][-1]
    return json.loads(line[len("Input: "):])


def sentence_of(prompt: str) -> Tuple[str, List[str]]:
    """The (sentence, phrases) a prompt of linkguard.RewriteSentences.v1 asks to
    rewrite; with `words_to_change`, (sentence, the words to change)."""
    obj = input_of(prompt)
    return obj["sentence"], obj["phrases"] if "phrases" in obj else obj["change"]


def answer(sentence: str) -> str:
    """A reply in the task's format."""
    return json.dumps({"sentence": sentence})


def reverse_phrases(sentence: str, phrases: Sequence[str]) -> str:
    """Each phrase of several words written in reverse word order; a one-word phrase dropped."""
    for p in sorted(phrases, key=len, reverse=True):
        words = p.split()
        new = " ".join(reversed(words)) if len(words) > 1 else ""
        at = sentence.casefold().find(p.casefold())
        if at >= 0:
            sentence = (sentence[:at] + new + sentence[at + len(p):]).replace("  ", " ")
    return sentence


class CannedSentenceModel:
    """rule(sentence, phrases, prompt, attempt) -> the sentence it replies (as
    `{"sentence": ...}`); `attempt` counts the
    replies to the same prompt. `banned_seen` keeps what each call was given."""

    name = "canned-sentences"

    def __init__(self, rule: Callable[[str, List[str], str, int], str],
                 losses: Optional[Dict[str, float]] = None, takes_banned: bool = True):
        self.rule = rule
        self.losses = dict(losses or {})
        self.seen: Dict[str, int] = {}
        self.prompts: List[str] = []
        self.banned_seen: List[Optional[List[str]]] = []
        if not takes_banned:
            self.generate = self._generate_plain  # type: ignore[method-assign]

    def _reply(self, prompt: str) -> str:
        sentence, phrases = sentence_of(prompt)
        attempt = self.seen.get(prompt, 0)
        self.seen[prompt] = attempt + 1
        self.prompts.append(prompt)
        return answer(self.rule(sentence, phrases, prompt, attempt))

    def generate(self, prompts: Sequence[str], banned=None, settings=None) -> List[Generation]:
        self.banned_seen.extend(list(b) for b in (banned or [None] * len(prompts)))
        return [Generation(self._reply(p), 10, 5) for p in prompts]

    def _generate_plain(self, prompts: Sequence[str]) -> List[Generation]:
        return [Generation(self._reply(p), 10, 5) for p in prompts]

    def loss(self, prompts: Sequence[str], completions: Sequence[str]) -> List[float]:
        return [self.losses.get(c, 1.0) for c in completions]
