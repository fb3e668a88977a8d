"""`Detector`: exact linkage detection on plain text against an N-gram index."""
import time
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import Errors, LinkguardError
from ..ngrams import NgramSettings
from .closed import Closure, closed_candidates, rich_witnesses
from .combos import Incidence, incidence_from_bits, minimal_triples, scan_pairs
from .docbits import DocBits
from .hitting import ComboHits, greedy_hitting_set
from .occurrences import Frequent, Occurrence, Occurrences, find_occurrences
from .singles import choose_rare_spans
from .streamed import streamed_hits
from .types import ANY, COMBO, NGRAM, SOURCE, Detection, FlaggedSpan

MAX_ARITY = 3  # combinations of up to 3 N-grams (SPEC.md, m = 3)
MAX_COMBOS = 5_000_000  # default memory budget: combinations held at once (~600 MB)
# The streamed path hits blocks of at most this many (and at most max_combos):
# the blocks, and so the memory and the output on long texts, are those of the
# former default budget (SPEC.md "Bounded memory").
STREAM_BLOCK = 2_000_000
# The in-memory path also needs (documents x live candidates) float32 matrices
# and an n x n bit matrix of frequent pairs: beyond these sizes it streams.
_IN_MEMORY_MAX_LIVE = 4096
_IN_MEMORY_MAX_CELLS = 1 << 24
_INDEX_API = ("settings", "doc_ids", "key_doc_freqs", "key_postings")
UNIFORM = "uniform"  # span_cost: every candidate costs the same (SPEC.md's greedy)
WEIGHTED = "weighted"  # span_cost: occurrences in the text x log1p(df) (`candidate_costs`)
SPAN_COSTS = (UNIFORM, WEIGHTED)


@dataclass
class Analysis:
    """Everything `Detector.analyze` finds in one text (for tests, benchmarks, reports).

    linking_rare: the minimal rare occurrences that link under the verdict:
        all of `occurrences.minimal_rare` under "any"; under "source" those
        whose N-gram occurs in a source document.
    chosen_rare: the non-overlapping ones of them to flag (`choose_rare_spans`).
    sources: the source documents' numbers (sorted), or None for the "any"
        verdict. Under "source" only source documents are witnesses, so the
        candidates are the x-maximal N-grams for x in the sources.
    candidates: the closed candidate keys (x-maximal for some document x,
        SPEC.md "Combinations"), numbered by first occurrence in the text;
        computed only when max_arity >= 2.
    candidate_occurrences: for each live candidate (below), every occurrence
        of its key in the text (all of them are flagged when the candidate is
        chosen); empty for the others, which no combination holds.
    closure: D(g) and the witnesses W(g) (documents for which g is x-maximal)
        of every candidate, as bitsets.
    live: the candidates with a witness x whose x-maximal set could be
        linkable (`closed.rich_witnesses`); only they can be in a combination.
    hits: the candidates chosen to break every minimal linkable combination,
        with counts and examples (`hitting.ComboHits`).
    streamed: True when the combinations were too many to hold (more than
        the detector's max_combos) and were hit in bounded memory
        (`streamed.py`); then `hits.counts` and `hits.n_broken` are lower
        bounds and the fields below stay empty.
    incidence: documents x live candidates (column j is candidate live[j]).
    pairs / pair_sizes: minimal linkable pairs (candidate numbers) and |intersection|.
    triples / triple_sizes: minimal linkable triples (int32 candidate numbers)
        and |intersection|.
    Only combinations whose members share a witness are listed: every
    linkable combination of frequent N-grams can be cut down to one.
    """

    occurrences: Occurrences
    linking_rare: List[Occurrence]
    chosen_rare: List[Occurrence]
    sources: Optional[np.ndarray] = None
    candidates: List[str] = field(default_factory=list)
    candidate_df: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    candidate_occurrences: List[List[Occurrence]] = field(default_factory=list)
    closure: Optional[Closure] = None
    live: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    postings: List[np.ndarray] = field(default_factory=list)  # each candidate's documents, sorted
    incidence: Optional[Incidence] = None
    pairs: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    pair_sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    triples: np.ndarray = field(default_factory=lambda: np.zeros((0, 3), dtype=np.int64))
    triple_sizes: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    hits: Optional[ComboHits] = None
    streamed: bool = False

    @property
    def safe(self) -> bool:
        return not self.linking_rare and not (self.hits is not None and self.hits.n_combinations)

    @property
    def verdict(self) -> str:
        return ANY if self.sources is None else SOURCE


def check_max_combos(value: Any) -> None:
    """RAISES: LinkguardError E104 unless value is an int >= 1 (bools refused)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise LinkguardError(Errors.E104.format(value=repr(value), default=MAX_COMBOS))


def check_span_cost(value: Any) -> None:
    """RAISES: LinkguardError E330 unless value is one of SPAN_COSTS."""
    if not isinstance(value, str) or value not in SPAN_COSTS:
        raise LinkguardError(Errors.E330.format(value=repr(value), expected=", ".join(map(repr, SPAN_COSTS))))


def candidate_costs(n_occurrences: np.ndarray, df: np.ndarray) -> np.ndarray:
    """The cost of rephrasing each candidate under span_cost="weighted": its
    occurrences in the text (each one is flagged and rewritten) times its
    commonness log1p(df).

    Why log1p(df) and not df / documents: measured on the 127 ECHR queries
    (k = 2, source verdict, arity 3; benchmarks/README.md "Weighted hitting
    set"), a linear commonness makes the greedy trade one common phrase for
    many rare ones: 22% more phrases and 18% more characters flagged a
    document, and no fewer occurrences of phrases with df >= 20 (53.5 against
    50.3). log1p(df) flags 6% more phrases and 5% more characters and 9% fewer
    common occurrences (45.9): the same drop of the common share (23% to 20%)
    for a third of the extra edits. Only ratios matter to the greedy.

    n_occurrences, df (np.ndarray): per candidate (both >= 1).
    RETURNS (np.ndarray): float64 costs, all > 0.
    """
    return np.asarray(n_occurrences, dtype=np.float64) * np.log1p(np.asarray(df, dtype=np.float64))


def check_k_and_arity(k: Any, max_arity: Any) -> None:
    """RAISES: LinkguardError E100 unless k is an int >= 2, E101 unless
    max_arity is an int in 1..MAX_ARITY (bools are refused for both)."""
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise LinkguardError(Errors.E100.format(value=repr(k)))
    if isinstance(max_arity, bool) or not isinstance(max_arity, int) or not 1 <= max_arity <= MAX_ARITY:
        raise LinkguardError(Errors.E101.format(value=repr(max_arity), max=MAX_ARITY))


class Detector:
    """Finds the spans of a text that link it to few documents of a collection.

    index: an `NgramIndex` (or any object with `settings`, `doc_ids`,
        `key_doc_freqs(keys)` and `key_postings(keys)`).
    k (int): a phrase set singles out when it matches 1..k-1 documents (k >= 2).
    max_arity (int): 1 = single N-grams only; 2 or 3 = also combinations of
        up to that many candidates.
    settings (NgramSettings): optional; when given it must equal the index's
        settings (E003), e.g. a pipeline's configured max_n and placeholder.
    n_examples (int): combinations given as examples per COMBO span.
    cache_size (int): document frequencies remembered across texts (0: none),
        and up to 8x as many document numbers of frequent N-grams' postings.
        The rewrite loop re-detects mostly unchanged text; answering those
        lookups from a dict saves ~25% CPU per pass on ECHR documents.
    max_combos (int): memory budget, in combinations held at once. A text
        with at most this many minimal linkable combinations gets them all in
        memory and the greedy hitting set over all of them; beyond it they
        are hit in blocks of about this many (at most STREAM_BLOCK), one
        witness document at a time (`streamed.py`): still every one is hit,
        but the counts are lower bounds and the set may be larger. Memory
        grows ~120 bytes per unit on the in-memory path.
    span_cost (str): how the hitting set weighs the candidates: "uniform"
        (the default): the candidate in most unbroken combinations first;
        "weighted": most per unit of cost, the candidate's occurrences in the
        text times log1p(df) (`candidate_costs`), so rarer phrases are
        preferred to common ones. Both hit every minimal linkable combination.
    RAISES: LinkguardError E100 (k), E101 (max_arity), E102 (not an index),
        E104 (max_combos), E330 (span_cost), E003.
    """

    def __init__(
        self,
        index: Any,
        k: int = 2,
        max_arity: int = MAX_ARITY,
        *,
        settings: Optional[NgramSettings] = None,
        n_examples: int = 3,
        cache_size: int = 500_000,
        max_combos: int = MAX_COMBOS,
        span_cost: str = UNIFORM,
    ) -> None:
        missing = [name for name in _INDEX_API if not hasattr(index, name)]
        if missing:
            raise LinkguardError(Errors.E102.format(kind=type(index).__name__, missing=", ".join(missing)))
        check_k_and_arity(k, max_arity)
        check_max_combos(max_combos)
        check_span_cost(span_cost)
        if settings is not None:
            settings.check_compatible(index.settings, where="the index")
        self.index = index
        self.settings: NgramSettings = index.settings
        self.k = k
        self.max_arity = max_arity
        self.n_examples = n_examples
        self.max_combos = max_combos
        self.span_cost = span_cost
        self._doc_numbers: Optional[Tuple[Any, Dict[str, int]]] = None  # (index checksum, id -> number)
        self._doc_freqs = _DocFreqCache(index, cache_size)
        self._postings = _PostingCache(index, cache_size * 8)

    def analyze(self, text: str, sources: Optional[Sequence[str]] = None) -> Analysis:
        """Find minimal rare N-grams, closed candidates and minimal linkable combinations.

        text (str): The released document's text.
        sources (Sequence[str]): collection ids of the documents the text was
            made from: the "source" verdict (a search links only when its
            result set holds one of them). None: the "any" verdict (SPEC.md).
        RETURNS (Analysis): see the class; `detect` turns it into spans.
        RAISES: LinkguardError E103 when `text` is not a str, E105/E106 for bad sources.
        """
        return self._analyze(text, sources)

    def is_safe(self, text: str, sources: Optional[Sequence[str]] = None) -> bool:
        """Whether `text` is safe at (k, max_arity) under the verdict of `sources`:
        `analyze(text, sources).safe`, exactly, but it stops at the first
        linking rare N-gram, where no combination needs to be looked for (a
        rewritten text that is unsafe under the any verdict nearly always has
        one). For a safe-or-not count; `detect` gives the spans to rephrase.

        RAISES: as `analyze`.
        """
        return self._analyze(text, sources, stop_at_rare=True).safe

    def _analyze(self, text: str, sources: Optional[Sequence[str]], *, stop_at_rare: bool = False) -> Analysis:
        if not isinstance(text, str):
            raise LinkguardError(Errors.E103.format(kind=type(text).__name__))
        src = self.source_numbers(sources)
        k = self.k
        occ = find_occurrences(text, self.settings, self._doc_freqs, k, with_frequent=self.max_arity >= 2)
        rare = occ.minimal_rare if src is None else self._rare_in(occ.minimal_rare, src)
        if stop_at_rare and rare:
            return Analysis(occurrences=occ, linking_rare=rare, chosen_rare=[], sources=src)  # unsafe already
        res = Analysis(occurrences=occ, linking_rare=rare, chosen_rare=choose_rare_spans(rare, occ.n_tokens),
                       sources=src)
        freq = occ.frequent
        if self.max_arity < 2 or not freq.keys:
            return res
        postings = self._postings(freq.keys)
        closure = closed_candidates(freq, postings, within=src)
        numbers = closure.candidates.tolist()
        res.candidates = [freq.keys[c] for c in numbers]
        res.candidate_df = freq.df[closure.candidates]
        res.postings = [postings[c] for c in numbers]
        res.closure = closure
        n = len(res.candidates)
        res.candidate_occurrences = [[] for _ in range(n)]
        if n < 2:
            return res
        rich = rich_witnesses(closure, k)
        live = np.nonzero(rich.sizes() > 0)[0].astype(np.int64)
        res.live = live
        for j, occs in zip(live.tolist(), _occurrences_of(freq, closure.candidates[live])):
            res.candidate_occurrences[j] = occs
        if len(live) < 2:
            return res
        post, wit = closure.postings.take(live), rich.take(live)
        if len(live) <= _IN_MEMORY_MAX_LIVE and len(live) * len(post.doc_numbers) <= _IN_MEMORY_MAX_CELLS:
            res.hits = self._in_memory(res, post, wit)
        if res.hits is None:
            hits = streamed_hits(post, wit, k, self.max_arity, block=min(self.max_combos, STREAM_BLOCK),
                                 n_examples=self.n_examples, costs=self._live_costs(res))
            res.hits = _renumber(hits, live)
            res.streamed = True
        return res

    def _in_memory(self, res: Analysis, post: DocBits, wit: DocBits) -> Optional[ComboHits]:
        """Every minimal linkable combination of the live candidates, and the
        greedy hitting set over all of them; None when they are more than
        `max_combos` (`analyze` then streams)."""
        k, live, budget = self.k, res.live, self.max_combos
        inc = incidence_from_bits(post, wit, min_members=2)
        scan = scan_pairs(inc, k, limit=budget)
        if scan is None:
            return None
        combos, sizes = [scan.pairs], [scan.sizes]
        if self.max_arity >= 3:
            found = minimal_triples(inc.restrict(3), scan, k, limit=budget - len(scan.pairs)) if len(live) >= 3 else (
                np.zeros((0, 3), dtype=np.int64), np.zeros(0, dtype=np.int64))
            if found is None:
                return None
            combos.append(found[0])
            sizes.append(found[1])
            res.triples, res.triple_sizes = live.astype(found[0].dtype)[found[0]], found[1]
        res.incidence = inc
        res.pairs, res.pair_sizes = live[scan.pairs], scan.sizes
        # Greedy over the live candidates only (numbered in the same order: same picks).
        hs = greedy_hitting_set(len(live), combos, costs=self._live_costs(res))
        return hs.evidence(combos, sizes, self.n_examples, numbers=live)

    def _live_costs(self, res: Analysis) -> Optional[np.ndarray]:
        """The costs of the live candidates under span_cost; None for "uniform"."""
        if self.span_cost == UNIFORM:
            return None
        occurrences = np.fromiter((len(res.candidate_occurrences[j]) for j in res.live.tolist()), dtype=np.int64,
                                  count=len(res.live))
        return candidate_costs(occurrences, res.candidate_df[res.live])

    def source_numbers(self, sources: Optional[Sequence[str]]) -> Optional[np.ndarray]:
        """The sorted document numbers of `sources` (collection ids); None for None.

        RAISES: LinkguardError E105 unless a non-empty list of str, E106 when
            an id is not in the index.
        """
        if sources is None:
            return None
        if isinstance(sources, (str, bytes)) or not isinstance(sources, (list, tuple)) or not sources or not all(
                isinstance(s, str) for s in sources):
            raise LinkguardError(Errors.E105.format(value=repr(sources)[:200]))
        numbers = self._ids()
        unknown = [s for s in sources if s not in numbers]
        if unknown:
            raise LinkguardError(Errors.E106.format(unknown=", ".join(map(repr, unknown[:5])), n=len(unknown),
                                                    n_docs=len(numbers)))
        return np.unique(np.fromiter((numbers[s] for s in sources), dtype=np.int64, count=len(sources)))

    def has_document(self, doc_id: str) -> bool:
        """Whether the index holds a document of this corpus id."""
        return doc_id in self._ids()

    def _ids(self) -> Dict[str, int]:
        """Corpus id -> document number, made once per index (checksum)."""
        checksum = getattr(self.index, "checksum", None)
        if self._doc_numbers is None or self._doc_numbers[0] != checksum:
            self._doc_numbers = (checksum, {str(d): i for i, d in enumerate(self.index.doc_ids)})
        return self._doc_numbers[1]

    def _rare_in(self, rare: List[Occurrence], src: np.ndarray) -> List[Occurrence]:
        """The occurrences of `rare` whose N-gram occurs in a source document."""
        keys = list(dict.fromkeys(o[2] for o in rare))
        if not keys:
            return []
        held = {key for key, p in zip(keys, _posting_arrays(self.index, keys))
                if len(np.intersect1d(p, src, assume_unique=True))}
        return [o for o in rare if o[2] in held]

    def detect(self, text: str, sources: Optional[Sequence[str]] = None) -> Detection:
        """Flag the spans to rephrase so that `text` no longer singles out a document.

        text (str): The released document's text.
        sources (Sequence[str]): the text's source documents (collection ids):
            the "source" verdict; None (the default): the "any" verdict.
        RETURNS (Detection): spans (NGRAM and COMBO, char offsets into `text`),
            the safe verdict and a report (with `verdict` and `sources`).
        """
        start = time.perf_counter()
        res = self.analyze(text, sources)
        spans = self._ngram_spans(res) + self._combo_spans(res)
        spans.sort(key=lambda s: (s.start_char, s.end_char, s.label))
        occ = res.occurrences
        minimal = {"1": len({o[2] for o in res.linking_rare})}
        counts = res.hits.counts if res.hits is not None else {}
        for arity in range(2, self.max_arity + 1):
            minimal[str(arity)] = int(counts.get(arity, 0))
        report: Dict[str, Any] = {
            "verdict": res.verdict,
            "sources": None if sources is None else list(dict.fromkeys(sources)),
            "k": self.k,
            "max_arity": self.max_arity,
            "tokens": occ.n_tokens,
            # Tokens inside a flagged span, and inside a span rare on its own: when
            # nearly every token is rare on its own, the answer says little (W301).
            "flagged_tokens": occ.n_covered([(s.start_char, s.end_char) for s in spans]),
            "rare_tokens": occ.n_covered([(s.start_char, s.end_char) for s in spans if s.label == NGRAM]),
            "segments": occ.n_segments,
            "lookups": occ.n_lookups,
            "rare_minimal": len(res.linking_rare),
            "candidates": len(res.candidates),
            "minimal_linkable": minimal,
            "spans": {NGRAM: sum(s.label == NGRAM for s in spans), COMBO: sum(s.label == COMBO for s in spans)},
            "combo_keys": len(res.hits.chosen) if res.hits else 0,
            # False when the combinations were streamed (Detector max_combos):
            # minimal_linkable and n_broken then count those enumerated.
            "counts_exact": res.hits.exact if res.hits else True,
            "seconds": round(time.perf_counter() - start, 6),
        }
        return Detection(spans=spans, safe=res.safe, report=report)

    def _doc_ids(self, numbers: Iterable[int]) -> List[str]:
        """Corpus ids of document numbers (a BitMap, array or list)."""
        ids = self.index.doc_ids
        if isinstance(numbers, np.ndarray):
            numbers = numbers.tolist()  # Python ints: no numpy scalar per document
        return [str(ids[int(d)]) for d in numbers]

    def _ngram_spans(self, res: Analysis) -> List[FlaggedSpan]:
        if not res.chosen_rare:
            return []
        keys = list(dict.fromkeys(o[2] for o in res.chosen_rare))
        linked: Dict[str, List[str]] = {}
        rest = keys
        with_docs = getattr(self.index, "key_doc_freqs_and_docs", None)
        if with_docs is not None:  # df-1 keys (all of them at k=2): the document, without reading postings
            ids = self.index.doc_ids
            rest = []
            for key, d in zip(keys, np.asarray(with_docs(keys)[1]).tolist()):
                if d >= 0:
                    linked[key] = [str(ids[d])]
                else:
                    rest.append(key)
        if rest:
            linked.update(zip(rest, (self._doc_ids(p) for p in _posting_arrays(self.index, rest))))
        occ = res.occurrences
        firsts = np.fromiter((o[0] for o in res.chosen_rare), dtype=np.int64, count=len(res.chosen_rare))
        lasts = firsts + np.fromiter((o[1] for o in res.chosen_rare), dtype=np.int64,
                                     count=len(res.chosen_rare)) - 1
        verdict = res.verdict
        return [FlaggedSpan(start, end, NGRAM, key, df, linked_ids=linked[key], verdict=verdict)
                for (_, _, key, df), start, end in zip(res.chosen_rare, occ.starts[firsts].tolist(),
                                                        occ.ends[lasts].tolist())]

    def _combo_spans(self, res: Analysis) -> List[FlaggedSpan]:
        hits = res.hits
        if hits is None or not hits.chosen:
            return []
        linked = self._linked_ids(res, [members for combos in hits.examples for members, _ in combos])
        at = 0
        out = []
        for c, n_broken, combos in zip(hits.chosen, hits.n_broken, hits.examples):
            examples = []
            for members, size in combos:
                examples.append({"partners": [self._partner(res, m) for m in members if m != c], "size": int(size),
                                 "linked_ids": linked[at]})
                at += 1
            for first, n, key, df in res.candidate_occurrences[c]:
                start, end = res.occurrences.char_span(first, n)
                out.append(FlaggedSpan(start, end, COMBO, key, df, n_broken=n_broken, examples=examples,
                                       verdict=res.verdict))
        return out

    def _partner(self, res: Analysis, m: int) -> Dict[str, Any]:
        first, n, key, _ = res.candidate_occurrences[m][0]
        start, end = res.occurrences.char_span(first, n)
        return {"key": key, "start_char": start, "end_char": end}

    def _linked_ids(self, res: Analysis, combos: List[Sequence[int]]) -> List[List[str]]:
        """Ids of the documents holding every member, for each combination (one
        AND of bitset rows per combination, all at once)."""
        post = res.closure.postings  # type: ignore[union-attr]  # row j: candidate j
        width = max((len(c) for c in combos), default=1)
        table = np.vstack([post.bits, np.full((1, post.n_words), np.iinfo(np.uint64).max, dtype=np.uint64)])
        members = np.full((len(combos), width), len(post.bits), dtype=np.int64)  # padding: all documents
        for i, c in enumerate(combos):
            members[i, : len(c)] = c
        common = table[members[:, 0]]
        for col in range(1, width):
            common = common & table[members[:, col]]
        flags = np.unpackbits(common.view(np.uint8), axis=1, bitorder="little")[:, : len(post.doc_numbers)]
        row, col = np.nonzero(flags)
        docs = self._doc_ids(post.doc_numbers[col])
        out: List[List[str]] = [[] for _ in combos]
        for r, d in zip(row.tolist(), docs):
            out[r].append(d)
        return out


def _renumber(hits: ComboHits, numbers: np.ndarray) -> ComboHits:
    """`hits` with candidate numbers mapped through `numbers`."""
    hits.chosen = [int(numbers[c]) for c in hits.chosen]
    hits.examples = [[(tuple(int(numbers[m]) for m in members), size) for members, size in combos]
                     for combos in hits.examples]
    return hits


def _occurrences_of(freq: Frequent, keys: np.ndarray) -> List[List[Occurrence]]:
    """Every occurrence (in text order) of each of `keys` (key ids of `freq`)."""
    slot = np.full(len(freq.keys), -1, dtype=np.int64)
    slot[keys] = np.arange(len(keys))
    out: List[List[Occurrence]] = [[] for _ in range(len(keys))]
    mine = slot[freq.key_ids]
    rows = np.nonzero(mine >= 0)[0]
    names, dfs = freq.keys, freq.df.tolist()
    for j, first, n, c in zip(mine[rows].tolist(), freq.first[rows].tolist(), freq.length[rows].tolist(),
                              freq.key_ids[rows].tolist()):
        out[j].append((first, n, names[c], dfs[c]))
    return out


class _DocFreqCache:
    """`index.key_doc_freqs` with a bounded memo (emptied when full or when the
    index's checksum changes, so answers are always the index's)."""

    def __init__(self, index: Any, max_size: int) -> None:
        self.index = index
        self.max_size = max_size
        self.memo: Dict[str, int] = {}
        self.checksum = getattr(index, "checksum", None)

    def __call__(self, keys: Sequence[str]) -> np.ndarray:
        if self.max_size <= 0:
            distinct = list(dict.fromkeys(keys))
            dfs = dict(zip(distinct, np.asarray(self.index.key_doc_freqs(distinct)).tolist()))
            return np.asarray([dfs[key] for key in keys], dtype=np.int64)
        checksum = getattr(self.index, "checksum", None)
        if checksum != self.checksum:
            self.memo, self.checksum = {}, checksum
        memo = self.memo
        missing = set(keys).difference(memo)  # distinct keys not remembered (set and dict lookups in C)
        if missing:
            if len(memo) + len(missing) > self.max_size:
                memo = self.memo = {}
                missing = set(keys)
            asked = list(missing)
            memo.update(zip(asked, np.asarray(self.index.key_doc_freqs(asked)).tolist()))
        return np.fromiter(map(memo.__getitem__, keys), dtype=np.int64, count=len(keys))


class _PostingCache:
    """Posting arrays of frequent keys with a bounded memo (at most `max_numbers`
    document numbers held; emptied when full or when the index's checksum
    changes). Frequent N-grams recur from text to text ("the applicant",
    "the court held") and from pass to pass of the rewrite loop; reading and
    decoding their posting lists was the detector's third-largest cost."""

    def __init__(self, index: Any, max_numbers: int) -> None:
        self.index = index
        self.max_numbers = max_numbers
        self.memo: Dict[str, np.ndarray] = {}
        self.held = 0
        self.checksum = getattr(index, "checksum", None)

    def __call__(self, keys: Sequence[str]) -> List[np.ndarray]:
        if self.max_numbers <= 0:
            return _posting_arrays(self.index, keys)
        checksum = getattr(self.index, "checksum", None)
        if checksum != self.checksum:
            self.memo, self.held, self.checksum = {}, 0, checksum
        get = self.memo.get
        found = [get(key) for key in keys]
        missing = [key for key, p in zip(keys, found) if p is None]
        if missing:
            new = dict(zip(missing, _posting_arrays(self.index, missing)))
            found = [new[key] if p is None else p for key, p in zip(keys, found)]
            size = sum(len(p) for p in new.values())
            if self.held + size > self.max_numbers:
                self.memo, self.held = {}, 0
            if size <= self.max_numbers:
                for array in new.values():
                    array.flags.writeable = False  # shared between texts: never modified
                self.memo.update(new)
                self.held += size
        return found


def _posting_arrays(index: Any, keys: Sequence[str]) -> List[np.ndarray]:
    """Sorted document numbers of each key (the index's batch path when it has one)."""
    if hasattr(index, "key_posting_arrays"):
        return index.key_posting_arrays(keys)
    return [_as_array(p) for p in index.key_postings(keys)]


def _as_array(postings: Any) -> np.ndarray:
    """Document numbers of one posting list (a pyroaring BitMap or any int sequence)."""
    if isinstance(postings, np.ndarray):
        return postings
    if hasattr(postings, "to_array"):
        return np.frombuffer(postings.to_array(), dtype=np.uint32).astype(np.int64)
    return np.asarray(list(postings), dtype=np.int64)
