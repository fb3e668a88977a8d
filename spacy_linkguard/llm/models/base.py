"""What every model backend of spacy-linkguard returns and implements.

`Generation` is one completion; `ChatModel` is the interface the rewrite loop
(`rewrite/loop.py`) and spacy-llm call on a backend. `HFChatModel` (`hf.py`)
and `OpenAIChatModel` (`openai.py`) implement it; a new backend does too, and
is registered in `registry.py`.
"""
from dataclasses import dataclass
from typing import Any, Iterable, List, Optional, Protocol, Sequence, Tuple, runtime_checkable

from ...errors import Errors, LinkguardError


@dataclass
class Generation:
    """One completion: its text and token counts.

    text (str): The reply.
    prompt_tokens (int): Tokens of the prompt as the model saw it (0: unknown).
    completion_tokens (int): Tokens of the reply (0: unknown).
    seconds (float): This completion's share of the wall time of its batch.
    rewinds (int): Times decoding was cut back because a banned phrase
        occurred (`HFChatModel.generate(..., banned=...)`; 0 elsewhere).
    failed (Optional[str]): None, or why the reply must be rejected:
        "banned_phrase" when a banned phrase still occurred after the
        allowed rewinds (the text is then what was produced).
    """

    text: str
    prompt_tokens: int
    completion_tokens: int
    seconds: float = 0.0
    rewinds: int = 0
    failed: Optional[str] = None


@runtime_checkable
class ChatModel(Protocol):
    """A chat model backend.

    name (str): What the backend serves (a folder, hub id or served model
        name); recorded with the outputs.
    generate: One `Generation` per prompt, in the order of `prompts`; an
        empty (blank) prompt gets an empty Generation without running the
        model. Calls follow each other with new seeds (`seed + i`), so
        retries differ and runs repeat.
    __call__: spacy-llm's model protocol: replies per document to prompts per
        document (the texts of `generate`).
    """

    name: str

    def generate(self, prompts: Sequence[str]) -> List[Generation]:
        ...

    def __call__(self, prompts: Iterable[Iterable[str]]) -> Iterable[List[str]]:
        ...


def replies_per_document(model: ChatModel, prompts: Iterable[Iterable[str]]) -> List[List[str]]:
    """spacy-llm's model protocol (`ChatModel.__call__`) on top of `generate`:
    every document's prompts completed in one `generate` call, the replies
    handed back per document in order."""
    nested = [list(p) for p in prompts]
    flat = [p for ps in nested for p in ps]
    replies = iter(g.text for g in model.generate(flat))
    return [[next(replies) for _ in ps] for ps in nested]


def check_settings(checks: Iterable[Tuple[str, Any, bool]]) -> None:
    """A backend's numeric settings: (name, value, ok) for each.

    RAISES: LinkguardError E207 for the first one that is not ok.
    """
    for name, value, ok in checks:
        if not ok:
            raise LinkguardError(Errors.E207.format(name=name, expected="a positive number", value=value))
