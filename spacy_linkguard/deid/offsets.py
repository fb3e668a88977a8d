"""The offset map between an original text and its de-identified version.

Replacing spans changes lengths, so character offsets of the two texts differ.
`OffsetMap` records each replaced region as `(orig_start, orig_end, new_start,
new_end)` and converts offsets either way; characters outside the regions map
one to one.
"""
from bisect import bisect_right
from dataclasses import dataclass
from typing import List, Sequence, Tuple

Region = Tuple[int, int, int, int]


@dataclass(frozen=True)
class OffsetMap:
    """Replaced regions, sorted, non-overlapping: (orig_start, orig_end, new_start, new_end)."""

    regions: Tuple[Region, ...] = ()

    def to_new(self, offset: int) -> int:
        """Map an offset of the original text to the de-identified text.

        An offset inside a replaced region maps to the start of its replacement
        (the original characters no longer exist there).
        """
        return _map(self.regions, offset, 0, 2)

    def to_orig(self, offset: int) -> int:
        """Map an offset of the de-identified text back to the original text.

        An offset inside a replacement maps to the start of the original region.
        """
        return _map(self.regions, offset, 2, 0)

    def to_list(self) -> List[List[int]]:
        """JSON-friendly form: a list of [orig_start, orig_end, new_start, new_end]."""
        return [list(r) for r in self.regions]

    @classmethod
    def from_list(cls, data: Sequence[Sequence[int]]) -> "OffsetMap":
        return cls(tuple(tuple(int(v) for v in r) for r in data))  # type: ignore[misc]


def _map(regions: Sequence[Region], offset: int, src: int, dst: int) -> int:
    """Map `offset` between the two texts: a region's bounds in the source text
    are columns `src`, `src + 1`; in the destination, `dst`, `dst + 1`."""
    i = bisect_right([r[src] for r in regions], offset) - 1
    if i < 0:
        return offset
    region = regions[i]
    if offset < region[src + 1]:
        return region[dst]
    return offset - region[src + 1] + region[dst + 1]


def apply_replacements(text: str, replacements: Sequence[Tuple[int, int, str]]) -> Tuple[str, OffsetMap]:
    """Replace character ranges of `text` and return the new text with its offset map.

    text (str): The original text.
    replacements (Sequence[Tuple[int, int, str]]): (start, end, new_text),
        non-overlapping, in any order.
    RETURNS (Tuple[str, OffsetMap]): The new text and the map between the two.
    RAISES: ValueError when two ranges overlap or a range lies outside the text.
    """
    parts: List[str] = []
    regions: List[Region] = []
    pos = 0
    new_len = 0
    for start, end, new in sorted(replacements):
        if start < pos or end < start or end > len(text):
            raise ValueError(f"replacement ({start}, {end}) overlaps another or lies outside the text")
        parts.append(text[pos:start])
        new_len += start - pos
        parts.append(new)
        regions.append((start, end, new_len, new_len + len(new)))
        new_len += len(new)
        pos = end
    parts.append(text[pos:])
    return "".join(parts), OffsetMap(tuple(regions))
