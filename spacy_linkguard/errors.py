"""Every error and warning message of spacy-linkguard, each with a code.

A message says what was expected, what was received, and how to fix it.
Raise them as `LinkguardError(Errors.E001.format(...))`; warn with
`warnings.warn(Warnings.W001.format(...), LinkguardWarning)`.

Code ranges, one per area, so a newcomer knows where an error comes from:
E001-E049 tokens, settings, CLI and input files; E050-E099 the N-gram index;
E100-E149 linkage detection; E150-E199 de-identification (Presidio);
E200-E249 LLM rewriting; E250-E299 evaluation, baselines and the project.
"""


class ErrorsWithCodes(type):
    def __getattribute__(self, code: str) -> str:
        msg = super().__getattribute__(code)
        if code.startswith("__"):  # python system attributes like __class__
            return msg
        return f"[{code}] {msg}"


class LinkguardError(ValueError):
    """An error in the use of spacy-linkguard (bad input, config or files)."""


class LinkguardWarning(UserWarning):
    """A warning of spacy-linkguard (something was skipped or degraded)."""


# fmt: off
class Warnings(metaclass=ErrorsWithCodes):
    # --- W001-W049: tokens, settings, CLI and input files -----------------
    W001 = ("Skipped {n} empty document(s) in {path} (first at line {line}). "
            "Empty documents contain no N-gram; remove them to silence this warning.")

    # --- W050-W099: the N-gram index ----------------------------------------

    # --- W100-W149: linkage detection ---------------------------------------

    # --- W150-W199: de-identification -------------------------------------

    # --- W200-W249: LLM rewriting -------------------------------------------

    # --- W250-W299: evaluation, baselines and the project -----------------


class Errors(metaclass=ErrorsWithCodes):
    # --- E001-E049: tokens, settings, CLI and input files ------------------
    E001 = ("max_n must be an integer from 1 to 32, got {value}. Pass e.g. "
            "max_n=8 (the default).")
    E002 = ("The placeholder must be a non-empty string without whitespace, got "
            "{value}. Use e.g. '[REDACTED]' (the default).")
    E003 = ("The N-gram settings differ from those of {where}: {detail}. An index "
            "only answers for the tokenization it was built with: rebuild the index "
            "with these settings, or configure the same settings as the index.")
    E004 = ("A query phrase must be exactly one segment (no punctuation, line "
            "break or placeholder inside), got {text} with {n} segments. Query "
            "each part separately.")
    E005 = ("A query phrase has {n} tokens, more than the index's max_n = {max_n}: "
            "{text}. Query a shorter phrase or rebuild the index with a larger max_n.")
    E006 = ("Cannot read {path}: line {line} is not valid JSON ({detail}). Each "
            "line must be one JSON object like {{\"id\": \"doc1\", \"text\": \"...\"}}.")
    E007 = ("Cannot read {path}: line {line} has no {field!r} field of type {kind}. "
            "Each line must be one JSON object like {{\"id\": \"doc1\", \"text\": \"...\"}}.")
    E008 = ("Cannot read {path}: it is not valid UTF-8 (first bad byte at offset "
            "{offset}). Re-encode the file as UTF-8.")
    E009 = ("Document id {doc_id!r} occurs twice in {path} (lines {first} and "
            "{line}). Document ids must be unique: rename or drop one of them.")
    E010 = ("File not found: {path}. Check the path{hint}.")
    E011 = ("{path} holds no documents. Give a JSONL file with at least one "
            "{{\"id\", \"text\"}} line.")

    # --- E050-E099: the N-gram index ----------------------------------------

    # --- E100-E149: linkage detection ---------------------------------------

    # --- E150-E199: de-identification -------------------------------------

    # --- E200-E249: LLM rewriting -------------------------------------------

    # --- E250-E299: evaluation, baselines and the project -----------------
# fmt: on
