"""The perplexity cache: a score is reused only for the same model, window and
text, a cached run never loads the model, and `evaluate`'s perplexity comes out
the same whether it was computed there or read from the `perplexity` command's cache.

The fast tests score with a counting subclass (no language model); the slow
one uses the real Gemma 3 270M."""
import json
import math

import pytest
from typer.testing import CliRunner

from spacy_linkguard.cli import app
from spacy_linkguard.experiments.perplexity import PerplexityCache, PerplexityScorer, model_fingerprint


class CountingScorer(PerplexityScorer):
    """Scores a text by its length (nll = number of characters, one token per word);
    counts how often it really scores."""

    calls = 0

    def token_nll(self, text):
        type(self).calls += 1
        return float(len(text)), len(text.split())


@pytest.fixture
def model_dir(tmp_path):
    d = tmp_path / "lm"
    d.mkdir()
    (d / "config.json").write_text('{"architectures": ["X"]}')
    return d


def test_cache_round_trip_and_keys(tmp_path):
    path = tmp_path / "c.jsonl"
    cache = PerplexityCache(path)
    key = PerplexityCache.key("fp", 1024, 512, "some text")
    assert cache.get(key) is None
    cache.add(key, 12.5, 3, "cpu")
    with path.open("a") as f:
        f.write('{"key": "half-writ')  # an interrupted run's last line
    again = PerplexityCache(path)
    assert again.get(key) == (12.5, 3)
    assert len(again.entries) == 1
    # Any change of model, window or text is another key.
    others = {PerplexityCache.key("fp2", 1024, 512, "some text"), PerplexityCache.key("fp", 512, 512, "some text"),
              PerplexityCache.key("fp", 1024, 256, "some text"), PerplexityCache.key("fp", 1024, 512, "some text ")}
    assert key not in others and len(others) == 4


def test_cached_scores_equal_computed_and_skip_the_model(tmp_path, model_dir):
    texts = ["The Court held that there had been a violation.", "A short one.", "The Court held that there had been a violation."]
    plain = CountingScorer(str(model_dir))
    expected = plain.perplexities(texts)
    CountingScorer.calls = 0
    cache = tmp_path / "cache.jsonl"
    first = CountingScorer(str(model_dir), cache=cache)
    assert first.perplexities(texts) == expected
    assert (first.n_computed, first.n_cached) == (2, 1)  # the repeated text is scored once
    assert CountingScorer.calls == 2
    second = CountingScorer(str(model_dir), cache=cache)
    assert second.perplexities(texts) == expected
    assert (second.n_computed, second.n_cached) == (0, 3) and CountingScorer.calls == 2
    assert second._model is None  # never loaded
    assert expected[0] == pytest.approx(math.exp(len(texts[0]) / len(texts[0].split())))
    # Another window size does not reuse the scores.
    other = CountingScorer(str(model_dir), cache=cache, max_length=64, stride=32)
    other.perplexities(texts[:1])
    assert other.n_computed == 1


def test_fingerprint_follows_the_weights_not_the_path(tmp_path, model_dir):
    marker = {"source": "m.gguf", "sha256": "ab" * 32, "dtype": "float32"}
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        (d / "config.json").write_text("{}")
        (d / "linkguard-converted.json").write_text(json.dumps(marker))
    assert model_fingerprint(a, None) == model_fingerprint(b, None)
    (b / "linkguard-converted.json").write_text(json.dumps({**marker, "dtype": "bfloat16"}))
    assert model_fingerprint(a, None) != model_fingerprint(b, None)
    assert model_fingerprint(model_dir, None) != model_fingerprint(a, None)
    (a / "tokenizer.json").write_text('{"model": "one"}')
    (b / "linkguard-converted.json").write_text(json.dumps(marker))
    (b / "tokenizer.json").write_text('{"model": "another"}')
    assert model_fingerprint(a, None) != model_fingerprint(b, None)  # same weights, another tokenizer


def test_perplexity_command_reads_the_cache(tmp_path, model_dir):
    texts = ["The applicant complained under Article 6.", "The Government contested that argument."]
    data = tmp_path / "out.jsonl"
    data.write_text("".join(json.dumps({"id": str(i), "text": t}) + "\n" for i, t in enumerate(texts)))
    cache = tmp_path / "cache.jsonl"
    CountingScorer(str(model_dir), cache=cache).perplexities(texts)
    result = CliRunner().invoke(app, ["perplexity", str(data), "--cache", str(cache), "--ppl-model", str(model_dir), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "2 texts: 2 from the cache, 0 computed" in result.output
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "x"}\n')
    result = CliRunner().invoke(app, ["perplexity", str(bad), "--cache", str(cache), "--ppl-model", str(model_dir)])
    assert result.exit_code == 1 and "E007" in result.output and "Traceback" not in result.output


@pytest.mark.slow
def test_gemma_cached_perplexity_is_the_computed_one(tmp_path, gemma_dir):
    texts = ["The Court held that there had been a violation of Article 6 of the Convention.",
             "The applicant was born in 1960 and lives in [REDACTED]."]
    cache = tmp_path / "cache.jsonl"
    fresh = PerplexityScorer(str(gemma_dir), cache=cache)
    computed = fresh.perplexities(texts)
    reread = PerplexityScorer(str(gemma_dir), cache=cache)
    assert reread.perplexities(texts) == computed
    assert reread.n_cached == 2 and reread._model is None
    assert computed == pytest.approx(PerplexityScorer(str(gemma_dir)).perplexities(texts), rel=1e-6)


def test_cache_only_reads_and_never_computes(tmp_path, model_dir):
    texts = ["The Court held that there had been a violation.", "A short one."]
    cache = tmp_path / "cache.jsonl"
    CountingScorer(str(model_dir), cache=cache).perplexities(texts[:1])  # the first is cached
    CountingScorer.calls = 0
    only = CountingScorer(str(model_dir), cache=cache, cache_only=True)
    got = only.perplexities(texts + texts[:1])
    assert CountingScorer.calls == 0 and only._model is None
    assert got[0] == got[2] == math.exp(len(texts[0]) / len(texts[0].split())) and got[1] is None
    assert (only.n_cached, only.n_missing, only.n_computed) == (2, 1, 0)
    assert len(cache.read_text().splitlines()) == 1  # nothing added
    assert CountingScorer(str(model_dir), cache_only=True).perplexities(texts) == [None, None]  # no cache at all


def test_evaluate_cache_only_leaves_a_partly_cached_row_out():
    """A row is scored in full or not at all: no mean over the documents that happened to be cached."""
    from spacy_linkguard.corpus import Record
    from spacy_linkguard.experiments.evaluate import evaluate_systems

    class HalfCached:
        cache_only = True

        def perplexities(self, texts, progress=False):
            return [10.0 if t.startswith("cached") else None for t in texts]

    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.jsonl"
        out.write_text(json.dumps({"id": "a", "text": "cached a"}) + "\n" + json.dumps({"id": "b", "text": "new b"}) + "\n")
        queries = [Record(id="a", text="cached input a"), Record(id="b", text="cached input b")]
        res = evaluate_systems(queries, [("wordnet", out)], detectors={}, scorer=HalfCached(), progress=False)
    rows = {r["key"]: r for r in res["systems"]}
    assert rows["input"]["perplexity"] == 10.0
    assert rows["wordnet"]["perplexity"] is None and res["per_doc"]["wordnet"]["perplexity"] == [None, None]
    assert rows["wordnet"]["perplexity_vs_input"] is None


def test_evaluate_ppl_missing_takes_compute_or_skip(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", str(tmp_path / "q.jsonl"), str(tmp_path / "r.json"),
                                   "--index", str(tmp_path / "idx"), "--ppl-missing", "maybe"])
    assert res.exit_code == 2 and "expected compute or skip" in res.output
    assert not (tmp_path / "r.json").exists()
