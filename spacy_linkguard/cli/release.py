"""What a command that writes text meant for release says about it: per
document, whether it is safe and under which verdict (or that it was not
checked); at the end one summary line; and the coded warnings for an empty
input (W004), for output written without a linkage check (W003), and for
answers that say little: an index of at most k documents (W300), text mostly
rare on its own (W301) or mostly redacted by guarantee mode (W302).
"""
import warnings
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Optional

from ..errors import LinkguardWarning, Warnings


# Where an answer says little: most of a document's tokens rare on their own
# (W301: in the bundled masked ECHR queries at most 46% of the text is; the
# combinations may cover 90% of it, rightly), or guarantee mode's redactions a
# large share of a rewritten text's words (W302); texts shorter than MIN_WORDS
# are left out (a few rare words are most of them).
MOSTLY_RARE, MOSTLY_REDACTED, MIN_WORDS = 0.75, 0.25, 10


def warn_empty(path: Path, command: str, wrote: str) -> None:
    """W004: the input held no documents, so the command had nothing to do."""
    warnings.warn(Warnings.W004.format(path=path, command=command, wrote=wrote), LinkguardWarning)


def warn_small_index(index: Any, n_docs: int, k: Optional[int]) -> None:
    """W300: an index of at most k documents, where nearly every phrase links."""
    if k is not None and n_docs <= k:
        warnings.warn(Warnings.W300.format(index=index, n_docs=n_docs, k=k), LinkguardWarning)


class FlaggedTally:
    """Counts the documents whose text is mostly rare on its own (`detect`, `show`): W301."""

    def __init__(self, *, k: int, max_arity: int):
        self.k, self.max_arity = k, max_arity
        self.n = self.n_mostly = 0
        self.first: Optional[tuple] = None

    def add(self, doc_id: str, report: Dict[str, Any]) -> None:
        """Count one document from its detection report (tokens, rare_tokens)."""
        self.n += 1
        tokens, flagged = int(report.get("tokens") or 0), int(report.get("rare_tokens") or 0)
        if tokens >= MIN_WORDS and flagged > MOSTLY_RARE * tokens:
            self.n_mostly += 1
            self.first = self.first or (doc_id, flagged, tokens)

    def warn(self) -> None:
        if self.first is not None:
            doc_id, flagged, tokens = self.first
            warnings.warn(Warnings.W301.format(n=self.n_mostly, total=self.n, doc_id=doc_id, flagged=flagged,
                                               tokens=tokens, k=self.k, max_arity=self.max_arity),
                          LinkguardWarning)


class ReleaseTally:
    """Counts the documents a command writes: safe, unsafe, by verdict, unchecked.

    k, max_arity: the detection settings, for the summary (None when nothing is detected).
    """

    def __init__(self, *, k: Optional[int] = None, max_arity: Optional[int] = None):
        self.k, self.max_arity = k, max_arity
        self.n = self.n_safe = self.n_unchecked = 0
        self.forced = 0  # spans guarantee mode redacted (`rewrite`)
        self.n_redacted = 0  # documents mostly redacted by guarantee mode (W302)
        self.first_redacted: Optional[tuple] = None
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
        forced = int(obj.get("forced_redactions") or 0)
        self.forced += forced
        words = len(str(obj.get("text") or "").split())
        if words >= MIN_WORDS and forced > MOSTLY_REDACTED * words:
            self.n_redacted += 1
            self.first_redacted = self.first_redacted or (obj.get("id"), forced, words)

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
        """W004 when there was no document, W003 when some were written unchecked,
        W302 when guarantee mode redacted much of some."""
        if self.n == 0:
            warn_empty(path, command, wrote)
        elif self.n_unchecked:
            warnings.warn(Warnings.W003.format(n=self.n_unchecked, command=command), LinkguardWarning)
        if self.first_redacted is not None:
            doc_id, forced, words = self.first_redacted
            warnings.warn(Warnings.W302.format(n=self.n_redacted, total=self.n, doc_id=doc_id, forced=forced,
                                               words=words, k=self.k), LinkguardWarning)


class RankTally:
    """Counts the documents whose source a search engine ranks first (`--rank`):
    a document can be safe under the exact verdict and still come out first."""

    def __init__(self) -> None:
        self.n_first = self.n_safe_first = 0
        self.by = Counter()  # type: Counter

    def add(self, safe: bool, rank: Optional[Dict[str, Any]]) -> None:
        """Count one document from its rank ({"bm25", "embedding"}; None: sources unknown)."""
        firsts = [name for name in ("bm25", "embedding") if (rank or {}).get(name) == 1]
        self.by.update(firsts)
        if firsts:
            self.n_first += 1
            self.n_safe_first += bool(safe)

    def summary(self) -> str:
        """"source ranked first for 4 (BM25 1, embedding 4), 4 of them safe"."""
        return (f"source ranked first for {self.n_first} (BM25 {self.by['bm25']}, embedding "
                f"{self.by['embedding']}), {self.n_safe_first} of them safe")


def verdict_summary(counts: "dict") -> str:
    """"verdict source for 3, any for 1" from {"source": 3, "any": 1}; "no verdict" when empty."""
    parts = [f"{v} for {n}" for v, n in sorted(counts.items()) if n]
    return "verdict " + ", ".join(parts) if parts else "no verdict"
