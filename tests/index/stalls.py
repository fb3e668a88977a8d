"""Stand-ins for `tokens.segment_text` (module level, so that a fork server's
or spawned worker finds them by name). In the test's own process (named by
STALLS_PARENT) they tokenize as usual: the build tokenizes its first batch
there; in a tokenizer process they die or hang."""
import os
import time

from spacy_linkguard.index.tokens import segment_text


def _here() -> bool:
    return os.environ.get("STALLS_PARENT") == str(os.getpid())


def die(texts, *args):
    if _here():
        return segment_text(texts, *args)
    os._exit(3)  # as a process killed for its memory would: no exception, no result


def hang(texts, *args):
    if _here():
        return segment_text(texts, *args)
    time.sleep(3600)  # as a process stuck on a lock taken by a thread of its parent
