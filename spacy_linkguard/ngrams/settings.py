"""The settings that decide which N-gram keys a text has.

An index records them in its meta.json; every reader (detector, metrics)
compares its own settings with the index's and refuses a mismatch.
"""
from dataclasses import asdict, dataclass, fields
from importlib.metadata import version
from typing import Any, Dict

from ..errors import Errors, LinkguardError
from .normalize import NORMALIZATION_VERSION

DEFAULT_PLACEHOLDER = "[REDACTED]"
DEFAULT_MAX_N = 8
TOKENIZER_NAME = "spacy.blank(en)"
CASE_FOLDING = "str.casefold"


@dataclass(frozen=True)
class NgramSettings:
    """Tokenization and normalization settings shared by index and detector."""

    max_n: int = DEFAULT_MAX_N
    placeholder: str = DEFAULT_PLACEHOLDER
    normalization: str = NORMALIZATION_VERSION
    case_folding: str = CASE_FOLDING
    tokenizer: str = TOKENIZER_NAME
    # spaCy's tokenizer rules can change between minor versions. Read from the
    # installed distribution: importing spaCy (and thinc, torch) takes seconds.
    spacy_minor: str = ".".join(version("spacy").split(".")[:2])

    def __post_init__(self) -> None:
        if not isinstance(self.max_n, int) or not 1 <= self.max_n <= 32:
            raise LinkguardError(Errors.E001.format(value=self.max_n))
        if not isinstance(self.placeholder, str) or not self.placeholder.strip():
            raise LinkguardError(Errors.E002.format(value=repr(self.placeholder)))
        if any(c.isspace() for c in self.placeholder):
            raise LinkguardError(Errors.E002.format(value=repr(self.placeholder)))

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "NgramSettings":
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})

    def differences(self, other: "NgramSettings") -> Dict[str, Any]:
        """Settings that differ, as {name: (self_value, other_value)}."""
        mine, theirs = self.to_dict(), other.to_dict()
        return {k: (mine[k], theirs[k]) for k in mine if mine[k] != theirs[k]}

    def check_compatible(self, other: "NgramSettings", *, where: str) -> None:
        """Raise E003 when `other` (e.g. an index's settings) differs from ours."""
        diff = self.differences(other)
        if diff:
            detail = ", ".join(f"{k}: {a!r} here vs {b!r} in {where}" for k, (a, b) in diff.items())
            raise LinkguardError(Errors.E003.format(where=where, detail=detail))
