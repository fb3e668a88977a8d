import os
import pickle
import re

import pytest

from spacy_linkguard.baselines.wordnet import DEFAULT_WORDNET_DIR, WordNet, resolve_wordnet_dir
from spacy_linkguard.errors import LinkguardError


def _grep_index(lemma: str, pos_name: str):
    """Oracle: the synset offsets of `lemma`, found by scanning the index file."""
    with (DEFAULT_WORDNET_DIR / f"index.{pos_name}").open(encoding="utf-8") as f:
        for line in f:
            if line.startswith(lemma + " "):
                fields = line.split()
                n = int(fields[2])
                return [int(x) for x in fields[-n:]]
    return []


@pytest.mark.parametrize("lemma,pos,pos_name", [("dog", "n", "noun"), ("court", "n", "noun"),
                                                 ("decide", "v", "verb"), ("happy", "a", "adj"),
                                                 ("quickly", "r", "adv"), ("post_office", "n", "noun")])
def test_synsets_match_index_file(wordnet, lemma, pos, pos_name):
    synsets = wordnet.synsets(lemma.replace("_", " "), pos)
    assert [s.offset for s in synsets] == _grep_index(lemma, pos_name)
    assert synsets, "known lemma has synsets"
    with (DEFAULT_WORDNET_DIR / f"data.{pos_name}").open("rb") as f:
        for s in synsets:
            f.seek(s.offset)
            line = f.readline().decode()
            # The data line at that offset starts with the offset itself and lists the lemma.
            assert line.startswith(f"{s.offset:08d} ")
            assert lemma.lower() in [w.lower() for w in re.findall(r"\S+", line.split("|")[0])]
            assert lemma.replace("_", " ").lower() in [x.lower() for x in s.lemmas]


def test_synonyms_share_a_synset_and_exclude_the_lemma(wordnet):
    syns = wordnet.synonyms("lawyer", "n")
    assert "attorney" in syns
    for word, pos in [("court", "n"), ("decide", "v"), ("quickly", "r"), ("happy", "a")]:
        own = {s.offset for s in wordnet.synsets(word, pos)}
        synonyms = wordnet.synonyms(word, pos)
        assert synonyms and word not in synonyms
        for syn in synonyms:
            assert own & {s.offset for s in wordnet.synsets(syn, pos)}, (word, syn)


def test_tagged_only_stops_at_tagged_senses(wordnet):
    # "dog": 7 senses, 1 tagged; the rare sense 2 gives "frump".
    assert "frump" in wordnet.synonyms("dog", "n", max_senses=3)
    assert "frump" not in wordnet.synonyms("dog", "n", max_senses=3, tagged_only=True)
    assert wordnet.tagged_sense_count("dog", "n") == 1


@pytest.mark.parametrize("word,pos,base", [("went", "v", "go"), ("postmen", "n", "postman"),
                                           ("happier", "a", "happy"), ("children", "n", "child"),
                                           ("boxes", "n", "box"), ("decided", "v", "decide"),
                                           ("running", "v", "run"), ("dogs", "n", "dog"),
                                           # collocations: the first or the last word inflected
                                           ("took part", "v", "take part"), ("looked_into", "v", "look into"),
                                           ("kicked the bucket", "v", "kick the bucket"),
                                           ("police officers", "n", "police officer")])
def test_morphy(wordnet, word, pos, base):
    assert base in wordnet.morphy(word, pos)


def test_morphy_of_a_collocation_finds_only_entries(wordnet):
    assert wordnet.morphy("took a walk", "v") == []  # "take a walk" is no entry
    assert wordnet.morphy("took_part", "n") == []


def test_unknown_pos_is_a_coded_error(wordnet):
    with pytest.raises(LinkguardError, match="E281"):
        wordnet.synsets("dog", "x")


def test_missing_database_says_how_to_install(tmp_path, monkeypatch):
    with pytest.raises(LinkguardError, match=r"E280.*apt-get install wordnet-base"):
        WordNet(tmp_path)
    monkeypatch.setenv("WNSEARCHDIR", str(tmp_path / "nowhere"))
    with pytest.raises(LinkguardError, match="E280"):
        WordNet()


def test_tiny_database_via_env(tmp_path, monkeypatch):
    # A hand-made two-synset database: offsets are byte positions we compute here.
    header = "  1 This is a licence line\n"
    line1 = "{off:08d} 05 n 02 cat 0 true_cat 0 000 | feline mammal\n"
    off1 = len(header)
    data = header + line1.format(off=off1)
    off2 = len(data.encode())
    data += "{off:08d} 05 n 02 cat 1 guy 0 000 | a man\n".format(off=off2)
    for pos in ("noun", "verb", "adj", "adv"):
        (tmp_path / f"index.{pos}").write_text(header if pos != "noun" else
                                               header + f"cat n 2 0 2 1 {off1:08d} {off2:08d}  \n")
        (tmp_path / f"data.{pos}").write_text(data if pos == "noun" else header)
    monkeypatch.setenv("WNSEARCHDIR", str(tmp_path))
    wn = WordNet()
    assert wn.path == tmp_path == resolve_wordnet_dir()
    assert [s.lemmas for s in wn.synsets("Cat", "n")] == [("cat", "true cat"), ("cat", "guy")]
    assert wn.synonyms("cat", "n") == ["true cat", "guy"]
    assert wn.synonyms("cat", "n", tagged_only=True) == ["true cat"]
    assert wn.morphy("cats", "n") == ["cat"]  # no noun.exc: rules only
    assert wn.synsets("dog", "n") == []
    clone = pickle.loads(pickle.dumps(wn))
    assert clone.synonyms("cat", "n") == wn.synonyms("cat", "n")
