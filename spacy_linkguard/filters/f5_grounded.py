"""The grounded-words guard: a candidate adds no word its input does not ground.

The guards before this one check a candidate's form, its facts (numbers,
negations, references) and opposites. None of them sees a sentence that
reads well and says something else: "declared admissible" -> "determined
the application to be valid", a silver medal -> "a bronze medal", a company
that "captivated the market" where the input praised nobody. Here every
content word of the candidate must be grounded in the input
(`grounding/grounder.py`: in the input's sentence or its neighbours, a
WordNet synonym or hypernym of one of their content words, or a generic
word); a candidate with more than `max_ungrounded` ungrounded words (default
0) is rejected as ``ungrounded_word``. The input is the sentence as the
input document had it (`Chunk.original`), not an earlier pass's rewrite, so
that hypernym steps do not add up over passes.
"""
from typing import Dict, List, Optional, Tuple

from ..errors import Errors, LinkguardError
from ..grounding import Grounder
from ..grounding.grounder import Basis
from ..llm.chunking import Chunk
from .reasons import UNGROUNDED_WORD


def check_max_ungrounded(value: object) -> int:
    """RETURNS `value` when an integer >= 0. RAISES: LinkguardError E207 otherwise."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise LinkguardError(Errors.E207.format(name="max_ungrounded", expected="an integer >= 0", value=value))
    return value


class GroundedGuard:
    """Reject candidates with more than `max_ungrounded` ungrounded words.

    grounder (Grounder): The rule (default: WordNet at its default place).
    max_ungrounded (int): Ungrounded words a candidate may hold.
    RAISES: LinkguardError E207 for a bad `max_ungrounded`, E280 when WordNet is missing.
    """

    def __init__(self, grounder: Optional[Grounder] = None, max_ungrounded: int = 0) -> None:
        self.max_ungrounded = check_max_ungrounded(max_ungrounded)
        self.grounder = grounder if grounder is not None else Grounder()
        self._bases: Dict[Tuple[str, str, str], Basis] = {}

    def ungrounded(self, chunk: Chunk, edited: str) -> List[str]:
        """The ungrounded words of `edited`, as written, against the chunk's input."""
        before, after = chunk.context
        key = (chunk.original, before, after)
        basis = self._bases.get(key)
        if basis is None:
            if len(self._bases) > 4096:
                self._bases.clear()
            basis = self._bases[key] = self.grounder.basis(chunk.original, before, after)
        return [edited[w.start : w.end] for w in self.grounder.ungrounded(edited, basis)]

    def __call__(self, chunk: Chunk, edited: str) -> Optional[str]:
        """None when `edited` passes, else ``ungrounded_word``."""
        return UNGROUNDED_WORD if len(self.ungrounded(chunk, edited)) > self.max_ungrounded else None
