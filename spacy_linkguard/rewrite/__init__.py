"""The detect -> rewrite -> re-detect loop and guarantee mode, on plain text.

`RewriteLoop(detector, rewriter).run(texts)` returns one `RewriteResult` per
text; the rewriter is a backend of `backends.py` (`RewriteLoop(detector, task,
model)` builds the LLM one). The `linkguard_rewrite` component, the `rewrite`,
`rewrite-nospans` and `paraphrase --spans-only` commands all run this loop.
"""
from .backends import LLMRewriter, Rewriter
from .guarantee import redact_until_safe
from .loop import RewriteLoop, occurs
from .records import ChunkOutcome, PassRecord, RewriteResult

__all__ = ["ChunkOutcome", "LLMRewriter", "PassRecord", "RewriteLoop", "RewriteResult", "Rewriter", "occurs",
           "redact_until_safe"]
