"""What docs/detection.md says a small collection does, checked: plain words
that are rare together in 40 documents are flagged as a combination, not on
their own (arity 1 flags none of them), and indexing the larger collection an
adversary searches makes them common again."""
import random
from pathlib import Path

from spacy_linkguard.detect import Detector
from spacy_linkguard.index import NgramIndex

DOC = Path(__file__).resolve().parents[2] / "docs" / "detection.md"
FILLER = ["ward", "nurse", "report", "river", "council", "market", "school", "visit", "road", "meeting",
          "doctor", "bridge", "storm", "garden", "office", "train", "museum", "harbour", "clinic", "festival"]


def note(rng, words):
    body = rng.sample(FILLER, 6)
    for w in words:
        body.insert(rng.randrange(len(body) + 1), w)
    return " . ".join(body)


def collection(n, seed):
    """n notes; each of "he", "his", "while" is in many notes, all three in note 0 only."""
    rng = random.Random(seed)
    plain = ["he", "his", "while"]
    docs = [{"id": "target", "text": note(rng, plain)}]
    for i in range(1, n):
        docs.append({"id": f"d{i}", "text": note(rng, [plain[i % 3]] + ([plain[(i + 1) % 3]] if i % 2 else []))})
    return docs


def flagged_words(index, text, max_arity):
    res = Detector(index, k=2, max_arity=max_arity).detect(text)
    return {text[s.start_char:s.end_char] for s in res.spans if s.label == "COMBO"}, res


def test_small_collection_flags_plain_words_in_combination_and_a_larger_one_does_not(tmp_path):
    docs = collection(40, seed=3)
    idx = NgramIndex.build(docs, tmp_path / "small", progress=False, n_process=1)
    query = "he wrote while his train waited"
    for w in ("he", "his", "while"):
        assert idx.doc_freq(w) >= 2  # common alone ...
    combos, _ = flagged_words(idx, query, 3)
    assert {"he", "his", "while"} & combos  # ... yet flagged together
    _, single = flagged_words(idx, query, 1)
    assert not {"he", "his", "while"} & {query[s.start_char:s.end_char] for s in single.spans}
    # The adversary's larger collection: the same kinds of notes, many holding all three words.
    rng = random.Random(4)
    more = [{"id": f"p{i}", "text": note(rng, ["he", "his", "while"])} for i in range(40)]
    bigger = idx.add_documents(more, progress=False, n_process=1)
    combos, _ = flagged_words(bigger, query, 3)
    assert not {"he", "his", "while"} & combos
    text = DOC.read_text(encoding="utf-8")
    assert "## Choosing k and the arity, and what a small collection does" in text
    assert '"he", "his" or "while"' in text and "add-docs" in text
