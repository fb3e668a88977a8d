"""What a command that writes text meant for release says about it: per
document, whether it is safe and under which verdict (or that it was not
checked); at the end one summary line; and the coded warnings for an empty
input (W004) and for output written without a linkage check (W003).
"""
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Optional

from ..errors import LinkguardWarning, Warnings


def warn_empty(path: Path, command: str, wrote: str) -> None:
    """W004: the input held no documents, so the command had nothing to do."""
    warnings.warn(Warnings.W004.format(path=path, command=command, wrote=wrote), LinkguardWarning)


class ReleaseTally:
    """Counts the documents a command writes: safe, unsafe, by verdict, unchecked.

    k, max_arity: the detection settings, for the summary (None when nothing is detected).
    """

    def __init__(self, *, k: Optional[int] = None, max_arity: Optional[int] = None):
        self.k, self.max_arity = k, max_arity
        self.n = self.n_safe = self.n_unchecked = 0
        self.forced = 0  # spans guarantee mode redacted (`rewrite`)
        self.verdicts: Counter = Counter()

    def check(self, detector: Any, verdict: str, rec: Any, text: str) -> Dict[str, Any]:
        """Detect the released `text` of corpus record `rec` under `verdict`.

        RETURNS: {"safe", "verdict", "sources"} for its output line ("safe" None: no detector, not checked).
        RAISES: LinkguardError E107/E108 (verdict), as `detect` does.
        """
        if detector is None:
            self.add(None, None)
            return {"safe": None, "verdict": None}
        from ..jobs.sources import line_sources

        sources = line_sources(detector, verdict, rec)
        res = detector.detect(text, sources)
        self.add(bool(res.safe), res.verdict)
        return {"safe": bool(res.safe), "verdict": res.verdict,
                "sources": sources if res.verdict == "source" else None}

    def add_line(self, line: str) -> None:
        """Count one output line of `rewrite` (JSON with safe, verdict, forced_redactions)."""
        import json

        obj = json.loads(line)
        self.add(bool(obj.get("safe")), obj.get("verdict"))
        self.forced += int(obj.get("forced_redactions") or 0)

    def add(self, safe: Optional[bool], verdict: Optional[str]) -> None:
        """Count one document (safe None: not checked)."""
        self.n += 1
        if safe is None:
            self.n_unchecked += 1
        else:
            self.n_safe += bool(safe)
            self.verdicts[verdict] += 1

    def summary(self) -> str:
        """"3 of 4 safe at k=2, max_arity=3, verdict source for 4", "4 not checked for linkage", or both."""
        checked = self.n - self.n_unchecked
        parts = []
        if checked:
            parts.append(f"{self.n_safe} of {checked} safe at k={self.k}, max_arity={self.max_arity}, "
                         f"{verdict_summary(self.verdicts)}")
        if self.n_unchecked:
            parts.append(f"{self.n_unchecked} not checked for linkage")
        return "; ".join(parts) or "no document"

    def warn(self, path: Path, command: str, *, wrote: str) -> None:
        """W004 when there was no document, W003 when some were written unchecked."""
        if self.n == 0:
            warn_empty(path, command, wrote)
        elif self.n_unchecked:
            warnings.warn(Warnings.W003.format(n=self.n_unchecked, command=command), LinkguardWarning)


def verdict_summary(counts: "dict") -> str:
    """"verdict source for 3, any for 1" from {"source": 3, "any": 1}; "no verdict" when empty."""
    parts = [f"{v} for {n}" for v, n in sorted(counts.items()) if n]
    return "verdict " + ", ".join(parts) if parts else "no verdict"
