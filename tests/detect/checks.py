"""Compare a Detection with the brute-force oracle (soundness, completeness, verdict)."""
from collections import Counter
from typing import Optional, Sequence, Set

from spacy_linkguard.detect import COMBO, NGRAM, Detector
from spacy_linkguard.ngrams import NgramSettings

from .oracle import linkable_among_all_frequent, oracle


def check_against_oracle(det: Detector, text: str, doc_keys: Sequence[Set[str]], all_frequent: bool = False,
                         sources: Optional[Sequence[str]] = None) -> dict:
    """Assert every SPEC.md property of `det.detect(text, sources)`; return some counts.

    all_frequent: also enumerate every combination of ANY frequent N-grams of
    the text (exponential: small texts only) and check that each linkable one
    is broken by the flagged spans.
    sources: collection ids: the source verdict (None: the any verdict)."""
    settings: NgramSettings = det.settings
    k, m = det.k, det.max_arity
    res = det.detect(text, sources)
    ids = [str(d) for d in det.index.doc_ids]
    numbers = None if sources is None else {ids.index(s) for s in sources}
    ora = oracle(text, doc_keys, settings, k, m, sources=numbers)
    verdict = "any" if sources is None else "source"
    assert res.verdict == res.report["verdict"] == verdict
    assert all(s.verdict == verdict for s in res.spans)
    assert res.report["sources"] == (None if sources is None else list(dict.fromkeys(sources)))
    chars_of = ora.occ_chars

    ngram = [s for s in res.spans if s.label == NGRAM]
    combo = [s for s in res.spans if s.label == COMBO]
    # Soundness, arity 1: every NGRAM span is a minimal rare occurrence, with its df.
    minimal_rare_chars = {chars_of[o]: ora.occ_key[o] for o in ora.minimal_rare}
    for s in ngram:
        assert minimal_rare_chars.get((s.start_char, s.end_char)) == s.key, s
        assert s.df == ora.df[s.key] and 1 <= s.df < k
        assert len(s.linked_ids) == s.df
        assert sources is None or set(s.linked_ids) & set(sources), (s, sources)
    # NGRAM spans do not overlap.
    ordered = sorted((s.start_char, s.end_char) for s in ngram)
    assert all(a[1] <= b[0] for a, b in zip(ordered, ordered[1:])), ordered
    # Completeness, arity 1: every minimal rare occurrence overlaps an NGRAM span.
    for o in ora.minimal_rare:
        a, b = chars_of[o]
        assert any(s.start_char < b and a < s.end_char for s in ngram), (o, ora.occ_key[o])
    combo_keys = {s.key for s in combo}
    linkable_members = set().union(*ora.linkable) if ora.linkable else set()
    # Soundness, arity >= 2: every COMBO key is a closed candidate in a linkable
    # combination, and every occurrence of it in the text is flagged.
    for key in combo_keys:
        assert key in ora.candidates and key in linkable_members, key
        flagged = {(s.start_char, s.end_char) for s in combo if s.key == key}
        assert flagged == {chars_of[o] for o in ora.candidate_occs[key]}
    n_min = Counter(g for c in ora.minimal for g in c)
    exact = res.report["counts_exact"]
    for s in combo:
        # Streamed (Detector max_combos exceeded): counts of the combinations enumerated.
        assert (s.n_broken == n_min[s.key] > 0) if exact else (0 < s.n_broken <= n_min[s.key])
        assert s.df == ora.df[s.key] >= k
        for ex in s.examples:
            assert 1 <= ex["size"] < k and len(ex["linked_ids"]) == ex["size"]
            assert sources is None or set(ex["linked_ids"]) & set(sources), (ex, sources)
            assert frozenset([s.key] + [p["key"] for p in ex["partners"]]) in set(ora.minimal)
    # Completeness, arity >= 2: every linkable combination of x-maximal N-grams
    # contains a COMBO key (whose occurrences are then all flagged).
    if m >= 2:
        for c in ora.linkable:
            assert c & combo_keys, sorted(c)
    else:
        assert not combo
    if all_frequent and m >= 2:
        # The adversary's whole choice: every linkable combination of ANY frequent
        # N-grams loses a member, i.e. each of its occurrences overlaps a flagged span.
        flagged_spans = [(s.start_char, s.end_char) for s in res.spans]
        occs_of: dict = {}
        for o, key in ora.occ_key.items():
            occs_of.setdefault(key, []).append(chars_of[o])

        def broken(key: str) -> bool:
            return all(any(a < e and s_ < b for s_, e in flagged_spans) for a, b in occs_of[key])

        for c in linkable_among_all_frequent(text, doc_keys, settings, k, m, sources=numbers):
            assert any(broken(g) for g in c), sorted(c)
    # Counts of minimal linkable combinations by arity.
    by_arity = Counter(len(c) for c in ora.minimal)
    for arity in range(2, m + 1):
        got = res.report["minimal_linkable"][str(arity)]
        assert got == by_arity[arity] if exact else got <= by_arity[arity], (arity, res.report)
    if m >= 2:  # a streamed count is 0 only when there is nothing to count
        assert (sum(res.report["minimal_linkable"][str(a)] for a in range(2, m + 1)) == 0) == (not ora.minimal)
    assert res.report["minimal_linkable"]["1"] == len({ora.occ_key[o] for o in ora.minimal_rare})
    if m >= 2:
        assert res.report["candidates"] == len(ora.candidates)
    # The verdict.
    assert res.safe == ora.safe
    return {
        "minimal_rare": len(ora.minimal_rare),
        "linkable": len(ora.linkable),
        "minimal": dict(by_arity),
        "candidates": len(ora.candidates),
        "safe": ora.safe,
    }
