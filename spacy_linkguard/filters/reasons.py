"""Why a candidate was rejected: one stable name a filter, as pass records
count them (`passes[].rejected`), in the order the filters run (`__init__`)."""

# f1_reply.py: the reply as a whole (every task)
NO_JSON = "no_json"
EMPTY = "empty"
LENGTH = "length"
ECHO = "echo"
DISSIMILAR = "dissimilar"
DUPLICATION = "duplication"
ADDITION = "addition"
NO_CHANGE = "no_change"
INVENTED = "invented"
REDACTED = "redacted"
# f2_facts.py: numbers, ordinals, negations, legal references
FACT_DROPPED = "fact_dropped"
FACT_INVENTED = "fact_invented"
NEGATION_CHANGED = "negation_changed"
# f3_polarity.py: a word turned into its opposite
POLARITY_CHANGED = "polarity_changed"
# f4_kept_words.py (the words form): a word it was not told to change is gone
OTHER_WORDS_CHANGED = "other_words_changed"
# f5_grounded.py: a content word the input does not ground
UNGROUNDED_WORD = "ungrounded_word"
# f6_banned.py: a flagged phrase or a linking N-gram of the document written again
BANNED_PHRASE = "banned_phrase"
# f7_linkage.py: the index finds a flagged span left or a new linking N-gram
STILL_LINKING = "still_linking"
# f8_vocabulary.py: a word neither the collection nor the document has
UNKNOWN_WORD = "unknown_word"
# f9_fluency.py: the rewriting model finds the candidate far less natural than its input
UNGRAMMATICAL = "ungrammatical"

REASONS = (NO_JSON, EMPTY, LENGTH, ECHO, DISSIMILAR, DUPLICATION, ADDITION, NO_CHANGE, INVENTED, REDACTED,
           FACT_DROPPED, FACT_INVENTED, NEGATION_CHANGED, POLARITY_CHANGED, OTHER_WORDS_CHANGED, UNGROUNDED_WORD,
           BANNED_PHRASE, STILL_LINKING, UNKNOWN_WORD, UNGRAMMATICAL)
