import random

import pytest

from spacy_linkguard.deid.offsets import OffsetMap, apply_replacements


def test_apply_replacements_example():
    text = "Mr A met Mr B."
    new, omap = apply_replacements(text, [(9, 13, "[X]"), (0, 4, "[REDACTED]")])
    assert new == "[REDACTED] met [X]."
    assert omap.regions == ((0, 4, 0, 10), (9, 13, 15, 18))
    assert omap.to_new(5) == 11 and new[omap.to_new(5)] == "m"
    assert omap.to_new(13) == 18 and new[18] == "."
    assert omap.to_new(2) == 0  # inside a replaced region -> start of its replacement
    assert omap.to_orig(16) == 9
    assert omap.to_orig(18) == 13


def test_offset_map_agrees_with_character_walk():
    """Oracle: walk both texts character by character outside replaced regions."""
    rng = random.Random(3)
    for _ in range(200):
        text = "".join(rng.choice("ab c") for _ in range(rng.randint(0, 40)))
        reps, pos = [], 0
        while pos < len(text):
            start = pos + rng.randint(0, 6)
            end = start + rng.randint(0, 5)
            if end > len(text):
                break
            reps.append((start, end, "#" * rng.randint(0, 4)))
            pos = end + 1
        new, omap = apply_replacements(text, reps)
        regions = {r[0]: r for r in omap.regions}
        i = j = 0
        while i <= len(text):
            if i in regions and regions[i][1] > i:
                o_s, o_e, n_s, n_e = regions[i]
                assert omap.to_new(i) == n_s == j
                i, j = o_e, n_e
                continue
            if i in regions:  # empty original range: an insertion
                j = regions[i][3]
            assert omap.to_new(i) == j
            if i < len(text):
                assert new[j] == text[i]
            i += 1
            j += 1
        assert OffsetMap.from_list(omap.to_list()) == omap


def test_apply_replacements_rejects_overlap():
    with pytest.raises(ValueError):
        apply_replacements("abcdef", [(0, 3, "x"), (2, 4, "y")])
