"""Splitting a text longer than `nlp.max_length` into pieces, offsets kept."""
from typing import List, Tuple


def split_pieces(text: str, max_length: int) -> List[Tuple[int, int]]:
    """Cut `text` into consecutive pieces of at most `max_length` characters.

    Each cut is made at the last paragraph break ("\\n\\n"), else the last line
    break, else the last whitespace inside the window, so that entities are
    rarely cut in two; a window without any whitespace is cut hard.

    text (str): The text.
    max_length (int): The largest piece, >= 1.
    RETURNS (List[Tuple[int, int]]): (start, end) of each piece; together they
        cover the text exactly, in order (an empty text gives no piece).
    RAISES: ValueError when max_length < 1.
    """
    if max_length < 1:
        raise ValueError("max_length must be >= 1")
    pieces: List[Tuple[int, int]] = []
    start, n = 0, len(text)
    while start < n:
        end = min(start + max_length, n)
        if end < n:
            window = text[start:end]
            cut = -1
            for sep in ("\n\n", "\n"):
                i = window.rfind(sep)
                if i > 0:
                    cut = i + len(sep)
                    break
            if cut <= 0:
                i = max(window.rfind(" "), window.rfind("\t"))
                cut = i + 1 if i > 0 else len(window)
            end = start + cut
        pieces.append((start, end))
        start = end
    return pieces
