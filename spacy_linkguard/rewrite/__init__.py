"""The detect -> rewrite -> re-detect loop and guarantee mode, on plain text.

`RewriteLoop(detector, task, model).run(texts)` returns one `RewriteResult`
per text; the `linkguard_rewrite` component and the `rewrite` command wrap it.
"""
from .guarantee import redact_until_safe
from .loop import ChunkOutcome, RewriteLoop, occurs
from .records import PassRecord, RewriteResult

__all__ = ["ChunkOutcome", "PassRecord", "RewriteLoop", "RewriteResult", "occurs", "redact_until_safe"]
