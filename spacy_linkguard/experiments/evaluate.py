"""Score every approach's outputs against the released documents d' (SPEC.md, "Metrics").

This module wires models and the index to the pure metric functions; the
`evaluate` command calls `run_evaluation` (the index, detectors and models,
then `evaluate_systems`) and writes its dict as JSON.

Document linkage is reported under both verdicts (SPEC.md, "Threat model"):
under **any** an output links when some search singles out fewer than k
documents; under **source** only when that result set holds one of the query's
sources (its "sources", else its id when the index holds it: `resolve_sources`
with "auto"). A query whose sources are unknown counts under any in the source
rate too (`n_without_sources` says how many).
"""
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..corpus import Record
from ..errors import LinkguardWarning, Warnings
from .metrics import (document_linkage_rate, document_paragraph_facts, document_ungrounded, edit_volume,
                      linkable_proportion, mean_defined, placeholders_added, ratio_to, similarity_pairs,
                      summarize_paragraphs)
from .ranking import rank_documents, ranking_row
from .systems import PAPER_ARITY, cost_of, get_system, read_output_objects, read_outputs, row_verdict, systems_for

SPAN_DOCS = 5  # documents per row whose remaining spans are kept: the report's displaCy pages (--max-doc-pages)

Sources = Optional[List[str]]


def flagged_span_texts(detection: Any, text: str) -> List[str]:
    """Texts of the spans a detection of `text` flags (NGRAM and COMBO)."""
    return [text[s.start_char : s.end_char] for s in detection.spans]


def query_sources(queries: Sequence[Record], has_document: Callable[[str], bool]) -> List[Sources]:
    """Each query's sources for the source verdict (`resolve_sources` with
    "auto"): its "sources", else [its id] when the index holds that id, else
    None (unknown: such a document counts under any)."""
    from ..detect import resolve_sources

    return [resolve_sources("auto", q.sources, q.id, has_document, what=f"query {q.id!r}") for q in queries]


def score_documents(
    inputs: Sequence[str],
    outputs: Sequence[str],
    input_spans: Dict[int, Sequence[Sequence[str]]],
    is_safe: Dict[int, Callable[[str, Sources], bool]],
    sources: Optional[Sequence[Sources]] = None,
    placeholder: Optional[str] = None,
) -> Dict[str, List[Any]]:
    """Per-document linkage metrics of one approach.

    inputs, outputs: released documents d' and their rewrites, aligned.
    input_spans: arity -> per input document, the texts flagged in it.
    is_safe: arity -> a function (text, sources) telling whether a text is
        safe at (k, arity) under the source verdict with those sources
        (None: under any).
    sources: per document, the query's sources (`query_sources`); None to
        leave the source verdict out.
    placeholder: the index's placeholder, to count `placeholders_added`.
    RETURNS (dict): lists aligned with the documents: linkable_prop_a<m>,
        safe_a<m> (the any verdict), safe_a<m>_source (the source verdict;
        a document without known sources takes its any value), edit_volume
        and placeholders_added.
    """
    out: Dict[str, List[Any]] = {}
    for m, spans in input_spans.items():
        out[f"linkable_prop_a{m}"] = [linkable_proportion(s, o) for s, o in zip(spans, outputs)]
    for m, fn in is_safe.items():
        safe_any = [bool(fn(o, None)) for o in outputs]
        out[f"safe_a{m}"] = safe_any
        if sources is not None:
            # A search that links under source links under any: safe under any
            # is safe under source, and only the other documents are detected again.
            out[f"safe_a{m}_source"] = [a or (src is not None and bool(fn(o, src)))
                                        for a, o, src in zip(safe_any, outputs, sources)]
    out["edit_volume"] = [edit_volume(i, o) for i, o in zip(inputs, outputs)]
    if placeholder:
        out["placeholders_added"] = [placeholders_added(i, o, placeholder) for i, o in zip(inputs, outputs)]
    return out


def before_guarantee(objs: Sequence[Dict[str, Any]], input_spans: Dict[int, Sequence[Sequence[str]]]) -> Dict[str, List[Any]]:
    """Metrics of the text the LLM passes left, before guarantee mode redacted
    anything (the output line's `text_before_guarantee`; its `text` where absent).

    RETURNS (dict): per document, linkable_prop_a<m>_before, and
        unsafe_before_guarantee: whether guarantee mode had to redact
        (forced_redactions > 0), i.e. whether the LLM passes left the document
        linkable at the loop's own (k, max_arity).
    """
    before = [o.get("text_before_guarantee", o["text"]) for o in objs]
    out: Dict[str, List[Any]] = {}
    for m, spans in input_spans.items():
        out[f"linkable_prop_a{m}_before"] = [linkable_proportion(s, b) for s, b in zip(spans, before)]
    out["unsafe_before_guarantee"] = [
        None if o.get("forced_redactions") is None else float(o["forced_redactions"] > 0) for o in objs
    ]
    return out


def aggregate(per_doc: Dict[str, List[Any]], costs: List[Dict[str, Optional[float]]]) -> Dict[str, Any]:
    """Average per-document values into one table row (None where undefined):
    safe_a<m>[_source] flags become linkage_rate_a<m>[_source] (the share not
    safe), "paragraphs" the paragraph metrics (`summarize_paragraphs`, pooled
    over the row's paragraphs), the other lists their means, and the costs
    their means per document."""
    row: Dict[str, Any] = {}
    for name, vals in per_doc.items():
        if name.startswith("remaining_spans"):
            continue
        if name.startswith("rank_"):  # ranks are not averaged: `ranking_row` gives their top-k rates
            continue
        if name.startswith("safe_a"):
            row["linkage_rate_a" + name[len("safe_a"):]] = document_linkage_rate(vals)
        elif name in ("similarity", "paragraphs"):
            continue
        else:
            row[name] = mean_defined(vals)
    sims = per_doc.get("similarity") or {}
    row["similarity"] = {model: mean_defined(vals) for model, vals in sims.items()}  # type: ignore[union-attr]
    if "paragraphs" in per_doc:
        row.update(summarize_paragraphs(per_doc["paragraphs"]))
    for field in ("llm_calls", "prompt_tokens", "completion_tokens", "seconds", "passes", "forced_redactions"):
        row[field] = mean_defined([c.get(field) for c in costs])
    row["seconds_per_doc"] = row.pop("seconds")
    row["seconds_per_pass"] = mean_defined(
        [c["seconds"] / c["passes"] if c.get("seconds") is not None and c.get("passes") else None for c in costs]
    )
    return row


def evaluate_systems(
    queries: Sequence[Record],
    system_files: Sequence[Tuple[str, Path]],
    *,
    detectors: Dict[int, Any],
    embedders: Sequence[Any] = (),
    unavailable_models: Optional[Dict[str, str]] = None,
    scorer: Optional[Any] = None,
    row_models: Optional[Dict[str, str]] = None,
    queries_path: Any = "queries",
    progress: bool = True,
    max_arity: Optional[int] = None,
    provenance: Optional[Dict[str, Dict[str, Any]]] = None,
    span_docs: int = SPAN_DOCS,
    attackers: Optional[Dict[str, Any]] = None,
    grounder: Optional[Any] = None,
) -> Dict[str, Any]:
    """Score each approach's output file; the input d' itself is the first row.

    queries: the released documents d' (the rewrite steps' input).
    system_files: (system key, JSONL path) pairs, in table order.
    detectors: arity -> Detector(index, k, arity); flags input spans and
        decides whether outputs are safe (`Detector.is_safe`, which stops at
        the first linking rare N-gram), under both verdicts: each output is
        judged once per (arity, verdict), and under source only when it is
        not safe under any (a source linkage is an any linkage).
    span_docs: the first documents of each row whose remaining spans (the
        widest detector's, any verdict) are stored for the report's displaCy
        pages: `remaining_spans_a<m>` lists them for those documents only.
    attackers: name ("bm25", "embedding") -> a ranking attacker
        (`experiments/ranking.py`): each output's sources' best rank is
        `rank_<name>` per document, and the row's `ranking` their top-1 and
        top-10 rates with Wilson intervals (documents with known sources only).
    embedders: loaded `Embedder`s; `unavailable_models` maps the names of
        configured models that are not installed to the reason.
    scorer: a `PerplexityScorer`, or None to leave perplexity out.
    grounder: the `grounding.Grounder` of the ungrounded-words metric; None
        makes one here, before any row is scored (WordNet is read lazily
        and once for every row).
    row_models: system key -> the model named in its row (default: the
        `model` its output lines record).
    max_arity: the rows' span-list arity (`systems_for`); default the widest detector's.
    provenance: system key -> what produced its committed output file
        (`partial_rows`), stated in the row as `provenance` (None: this run).
        A smoke row (`System.smoke`) and a row from committed outputs are
        scored over the documents their file covers (`n_docs` says how many);
        their perplexity_vs_input is over the input's on those documents.
    RETURNS (dict): {"systems": [row, ...], "per_doc": {key: {...}},
        "n_without_sources": int}. A row holds the means of the per-document
        metrics (`score_documents`, `before_guarantee`, similarity,
        perplexity) and costs (`aggregate`), and:
        - linkage_rate_a<m>: document linkage rate under **any** (the key
          results.json always had); linkage_rate_a<m>_source: under
          **source**, where a query without known sources counts under any;
        - verdict: what the row's rewrite detected with (`row_verdict`:
          "source", "any" -- also for lines written before lines stated it --,
          "mixed", or None for the input and rows nothing detected, e.g. the
          LLM without span list and WordNet), verdict_counts: lines per verdict;
        - n_without_sources: queries whose sources are unknown;
        - placeholders_added: mean placeholders per document, output count
          minus input count (by the model or guarantee mode), placeholder: which;
        - perplexity_vs_input: the row's mean perplexity over the input row's;
        - para_sim_mean, para_sim_p10, para_sim_below_0_8, para_sim_n: cosine
          of aligned paragraphs of 8+ words under the first embedder (None
          without one; "paragraph_model" names it), pooled over the row's
          paragraphs; facts_kept, new_facts_per_para; ungrounded_per_changed_para,
          share_changed_paras_ungrounded_ge3, n_changed_paras: ungrounded words
          of changed paragraphs of 8+ words (`paragraph_metrics`,
          `summarize_paragraphs`).
    RAISES: LinkguardError E253 (missing output), E255 (unknown system),
        E280 (no WordNet database, for the ungrounded words).
    """
    from tqdm import tqdm

    from ..ngrams import NgramSettings

    inputs = [q.text for q in queries]
    ids = [q.id for q in queries]
    # The widest detector also gives the spans still linkable in the outputs
    # shown on the displaCy pages.
    top = max(detectors) if detectors else None
    rows_arity = max_arity or (max(detectors) if detectors else None) or PAPER_ARITY
    for key, path in system_files:  # every row known before any row is scored (E255 now, not after an hour)
        get_system(key, path, rows_arity)
    placeholder = detectors[top].settings.placeholder if top is not None else NgramSettings().placeholder
    if grounder is None:  # E280 now, not after the first row
        from ..grounding import Grounder

        grounder = Grounder(placeholder=placeholder)
    # The widest detector's detection (any verdict) of a text, made once: the
    # input's spans and the spans still linkable in the first outputs of each
    # row (the input row's outputs are the inputs).
    top_detections: Dict[str, Any] = {}

    def detect_top(text: str) -> Any:
        if text not in top_detections:
            top_detections[text] = detectors[top].detect(text)
        return top_detections[text]

    input_spans: Dict[int, List[List[str]]] = {}
    for m, det in detectors.items():
        texts = tqdm(inputs, desc=f"detect input (arity {m})", disable=not progress)
        detect = detect_top if m == top else det.detect
        input_spans[m] = [flagged_span_texts(detect(t), t) for t in texts]
        n_empty = sum(1 for s in input_spans[m] if not s)
        if n_empty:
            warnings.warn(Warnings.W251.format(n=n_empty, path=queries_path, arity=m, m=len(inputs) - n_empty), LinkguardWarning)
    sources: Optional[List[Sources]] = None
    if top is not None:
        sources = query_sources(queries, detectors[top].has_document)
        for src in sources:
            detectors[top].source_numbers(src)  # E105/E106 now, not only for the outputs that link under any
    # None without detectors: no linkage rate is computed, under either verdict.
    n_without_sources = None if sources is None else sum(1 for src in sources if src is None)
    source_nums = _source_numbers(detectors[top], sources) if attackers and top is not None else None
    safe_cache: Dict[Tuple[int, Optional[Tuple[str, ...]], str], bool] = {}

    def safe_at(m: int, text: str, src: Sources) -> bool:
        """Safe at (k, m) under source with `src` (None: any); each (arity, verdict, text) judged once."""
        key = (m, None if src is None else tuple(src), text)
        if key not in safe_cache:
            safe_cache[key] = bool(detectors[m].is_safe(text, src))
        return safe_cache[key]

    is_safe = {m: (lambda text, src, m=m: safe_at(m, text, src)) for m in detectors}

    rows: List[Dict[str, Any]] = []
    per_doc_all: Dict[str, Any] = {}
    input_vecs: Dict[str, Any] = {}  # model -> embeddings of the inputs, made once for every row
    para_vecs: Dict[str, Any] = {}  # paragraph text -> its embedding (the input's paragraphs are embedded once)
    bases: Dict[str, Any] = {}  # input paragraph -> what it grounds (read once for every row)
    entries: List[Tuple[str, Optional[Path]]] = [("input", None)] + [(k, Path(p)) for k, p in system_files]
    for key, path in tqdm(entries, desc="approaches", disable=not progress):
        system = get_system(key, path or "--system", rows_arity)
        keep = list(range(len(queries)))
        if path is None:
            objs = [{"id": q.id, "text": q.text} for q in queries]
            verdict, verdict_counts = None, {}
        else:
            if system.smoke or key in (provenance or {}):  # a smoke run or a committed run may cover some documents only
                by_id = read_output_objects(path)
                keep = [i for i, doc_id in enumerate(ids) if doc_id in by_id]
                objs = [by_id[ids[i]] for i in keep]
            else:
                objs = read_outputs(path, queries, queries_path)
            verdict, verdict_counts = row_verdict(objs)
        line_model = next((o["model"] for o in objs if o.get("model")), "")
        outputs = [o["text"] for o in objs]
        row_inputs = [inputs[i] for i in keep]
        row_spans = {m: [spans[i] for i in keep] for m, spans in input_spans.items()}
        row_sources = None if sources is None else [sources[i] for i in keep]
        t0 = time.perf_counter()
        per_doc = score_documents(row_inputs, outputs, row_spans, is_safe, row_sources, placeholder)
        if any("text_before_guarantee" in o for o in objs):
            per_doc.update(before_guarantee(objs, row_spans))
        per_doc["similarity"] = {e.name: _sims(e, inputs, input_vecs, keep, outputs) for e in embedders}  # type: ignore[assignment]
        per_doc["paragraphs"] = paragraph_metrics(  # type: ignore[assignment]
            row_inputs, outputs, embedders[0] if embedders else None, para_vecs, grounder, bases)
        if scorer is not None:
            values = scorer.perplexities(outputs, progress=progress)
            # Cache only (`--ppl-missing skip`): a row is scored in full or not at
            # all, never as a mean over the documents that happened to be cached.
            if getattr(scorer, "cache_only", False) and any(v is None for v in values):
                values = [None] * len(values)
            per_doc["perplexity"] = values
        if source_nums is not None:
            per_doc.update(rank_documents(attackers, outputs, [source_nums[i] for i in keep]))  # type: ignore[arg-type]
        if top is not None:
            per_doc[f"remaining_spans_a{top}"] = [
                [[sp.start_char, sp.end_char, sp.label] for sp in detect_top(o).spans]
                for o in outputs[:span_docs]
            ]
        costs = [cost_of(o) for o in objs] if path is not None else [{} for _ in objs]
        row = aggregate(per_doc, costs)
        if source_nums is not None:
            row["ranking"] = ranking_row(per_doc)
        for name in unavailable_models or {}:
            row["similarity"][name] = None
        row.update(
            key=key,
            label=system.label,
            paper_key=system.paper_key,
            model=(row_models or {}).get(key, line_model),
            file=str(path) if path else str(queries_path),
            provenance=(provenance or {}).get(key),
            smoke=system.smoke,
            n_docs=len(objs),
            n_flagged={f"a{m}": sum(len(s) for s in input_spans[m]) for m in input_spans},
            verdict=verdict,
            verdict_counts=verdict_counts,
            n_without_sources=n_without_sources,
            placeholder=placeholder,
            eval_seconds=time.perf_counter() - t0,
        )
        rows.append(row)
        per_doc_all[key] = {"ids": [ids[i] for i in keep], "sources": row_sources or [None] * len(keep),
                            **per_doc, "cost": costs}
    base = rows[0].get("perplexity") if rows else None  # the input d' (first row)
    input_ppl = per_doc_all.get("input", {}).get("perplexity")
    for row in rows:
        ref = base
        if row["n_docs"] < len(ids) and input_ppl is not None:  # the input's mean over the same documents
            where = set(per_doc_all[row["key"]]["ids"])
            ref = mean_defined([p for doc_id, p in zip(ids, input_ppl) if doc_id in where])
        row["perplexity_vs_input"] = ratio_to(row.get("perplexity"), ref)
    return {"systems": rows, "per_doc": per_doc_all, "n_without_sources": n_without_sources,
            "paragraph_model": embedders[0].name if embedders else None}


def paragraph_metrics(inputs: Sequence[str], outputs: Sequence[str], embedder: Optional[Any],
                      vecs: Dict[str, Any], grounder: Optional[Any] = None,
                      bases: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
    """Per document, the paragraph similarities, fact counts and ungrounded
    words (SPEC.md "Metrics"; `similarity_pairs`, `document_paragraph_facts`,
    `document_ungrounded`).

    The paragraphs of every document are embedded in one call (`embedder.embed`),
    skipping texts already in `vecs` (text -> embedding, filled here), so a
    paragraph the rewrite left unchanged, or the input's, is embedded once.
    embedder: None leaves the similarities out ("sims": None).
    grounder: a `Grounder`, None leaves the ungrounded words out
        ("ungrounded": None); bases: its bases of the input paragraphs
        (`document_ungrounded`), filled here.
    RETURNS (List[dict]): per document {"sims": [cosine of each measured
        paragraph pair, 4 decimals] or None, "facts_in", "facts_kept",
        "facts_new", "n_paras", "ungrounded": [ungrounded words of each
        changed paragraph] or None}.
    """
    docs: List[Dict[str, Any]] = [document_paragraph_facts(i, o) for i, o in zip(inputs, outputs)]
    for d, i, o in zip(docs, inputs, outputs):
        d["ungrounded"] = None if grounder is None else document_ungrounded(i, o, grounder, bases)
    if embedder is None:
        for d in docs:
            d["sims"] = None
        return docs
    pairs = [similarity_pairs(i, o) for i, o in zip(inputs, outputs)]
    todo = list(dict.fromkeys(t for doc in pairs for pair in doc for t in pair if t not in vecs))
    if todo:
        for text, vec in zip(todo, embedder.embed(todo)):
            vecs[text] = vec
    from .similarity import paired_cosine

    for d, doc in zip(docs, pairs):
        if not doc:
            d["sims"] = []
            continue
        cos = paired_cosine([vecs[a] for a, _ in doc], [vecs[b] for _, b in doc])
        d["sims"] = [round(float(c), 4) for c in cos]
    return docs


def _sims(embedder: Any, inputs: Sequence[str], input_vecs: Dict[str, Any], keep: Sequence[int],
          outputs: Sequence[str]) -> List[float]:
    """Cosine of each output with its input, inputs[keep[i]] (`document_similarities`);
    the inputs are embedded once, into `input_vecs[embedder.name]`, for every row."""
    from .similarity import paired_cosine

    if embedder.name not in input_vecs:
        input_vecs[embedder.name] = embedder.embed(inputs)
    if not outputs:
        return []
    mine = input_vecs[embedder.name][list(keep)]
    same = list(outputs) == [inputs[i] for i in keep]  # the input row, or nothing changed
    return [float(x) for x in paired_cosine(mine, mine if same else embedder.embed(outputs))]


def _source_numbers(detector: Any, sources: Sequence[Sources]) -> List[Optional[List[int]]]:
    """Each query's sources as document numbers of the detector's index (None: unknown)."""
    return [None if src is None else [int(n) for n in detector.source_numbers(src)] for src in sources]


def known_system_keys(max_arity: int = PAPER_ARITY) -> List[str]:
    return [s.key for s in systems_for(max_arity)]


def run_evaluation(
    queries: Path,
    index: Path,
    system_specs: Sequence[str],
    *,
    k: Optional[int] = None,
    max_arity: Optional[int] = None,
    sim_models: Sequence[str] = (),
    ppl_model: Optional[str] = None,
    models_dir: Path = Path("models"),
    ppl_max_length: int = 1024,
    ppl_cache: Optional[Path] = None,
    row_models: Optional[Dict[str, str]] = None,
    settings: Optional[Dict[str, Any]] = None,
    dataset: str = "",
    progress: bool = True,
    committed: Optional[Path] = None,
    ppl_cache_only: bool = False,
    span_docs: int = SPAN_DOCS,
    rank_model: Optional[str] = None,
    collection: Optional[Path] = None,
    rank_cache: Optional[Path] = None,
) -> Dict[str, Any]:
    """The `evaluate` step: load the index, detectors and models, score every
    approach (`evaluate_systems`) and add what the report shows of the run.

    queries: JSONL of the released documents d'. index: the n-gram index folder.
    system_specs: `--system` values, OUTPUT.jsonl or KEY=OUTPUT.jsonl (`system_files`).
    k, max_arity: default to what the output lines record, else 2 and `PAPER_ARITY`.
    sim_models: sentence-transformers models; those not installed are recorded
        as unavailable (W250). ppl_model: the perplexity LM (`PerplexityScorer`),
        None or "none" to leave perplexity out; its window is `ppl_max_length`
        tokens, its score cache `ppl_cache`; with `ppl_cache_only` nothing
        is computed, and a row with a text not in the cache has no perplexity.
    row_models: system key -> model named in its row (the input row names "–").
    settings: NAME -> VALUE for the report's settings table.
    committed: folder of a full run's LLM outputs: an LLM output covering only
        some queries is scored from the file of the same name there, and
        shown as a smoke row beside it (`partial_rows`).
    span_docs: documents per row whose remaining spans are kept (`evaluate_systems`).
    rank_model: the ranking attackers (`experiments/ranking.load_attackers`):
        None leaves them out, "none" keeps BM25 only, a model name adds the
        embedding attacker; `collection` (the JSONL the index was built from)
        gives it the texts to embed, cached in `rank_cache`.
    RETURNS (dict): the results JSON that `report` reads.
    RAISES: LinkguardError E283 (max_arity not 1..3), E280 (no WordNet
        database: the ungrounded words need it) and those of the index, the
        output files and the models.
    """
    import datetime

    from ..about import __version__
    from ..corpus import iter_records
    from ..detect import Detector
    from ..errors import Errors, LinkguardError
    from ..grounding import Grounder
    from ..index import open_index
    from ..paths import portable_path
    from .similarity import Embedder, locate_model
    from .systems import lines_setting, partial_rows
    from .systems import system_files as read_system_files

    files = read_system_files(system_specs)
    queries_list = list(iter_records(queries))
    tags = [t for _, _, t in files]
    k = k if k is not None else (lines_setting(tags, "k") or 2)
    max_arity = max_arity if max_arity is not None else (lines_setting(tags, "max_arity") or PAPER_ARITY)
    if max_arity not in (1, 2, 3):
        raise LinkguardError(Errors.E283.format(name="--max-arity", expected="1, 2 or 3", value=max_arity))
    files, provenance = partial_rows(files, [q.id for q in queries_list], committed, max_arity)
    systems = [(key, path) for key, path, _ in files]
    idx = open_index(index)
    detectors = {m: Detector(idx, k=k, max_arity=m) for m in sorted({1, max_arity})}
    # WordNet (the ungrounded words) is required like the perplexity model: a
    # missing database stops the run here (E280), before any model is loaded
    # or row scored, rather than leaving a column empty. Its files are read on
    # first use, once for every row.
    grounder = Grounder(placeholder=detectors[max_arity].settings.placeholder)
    embedders, model_info, unavailable = [], [], {}
    for name in sim_models:
        avail = locate_model(name)
        if avail.available:
            embedders.append(Embedder(name))
            model_info.append({"name": name, "available": True, "path": portable_path(avail.path)})
        else:
            warnings.warn(Warnings.W250.format(name=name, reason=avail.reason), LinkguardWarning)
            unavailable[name] = avail.reason
            model_info.append({"name": name, "available": False, "reason": avail.reason})
    scorer = None
    if ppl_model is not None and ppl_model.lower() != "none":
        from .perplexity import PerplexityScorer

        scorer = PerplexityScorer(ppl_model, models_dir=models_dir, max_length=ppl_max_length,
                                  stride=ppl_max_length // 2, cache=ppl_cache, cache_only=ppl_cache_only)
    attackers = None
    if rank_model is not None:
        from .ranking import load_attackers

        # The similarity metric's model when it is the same: loaded once.
        same = next((e for e in embedders if e.name == rank_model), None)
        attackers = load_attackers(idx, rank_model=rank_model, collection=collection, cache_dir=rank_cache,
                                   progress=progress, embedder=same)
    results = evaluate_systems(
        queries_list, systems, detectors=detectors, attackers=attackers, embedders=embedders, unavailable_models=unavailable,
        scorer=scorer, row_models={"input": "\u2013", **(row_models or {})}, queries_path=str(queries),
        progress=progress, max_arity=max_arity, provenance=provenance, span_docs=span_docs, grounder=grounder,
    )
    stats = idx.stats()
    results.update(
        dataset=dataset,
        version=__version__,
        created=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        n_docs=len(queries_list),
        ranking_attackers=sorted(attackers or {}),
        ranking_model=rank_model if attackers and "embedding" in attackers else None,
        similarity_models=model_info,
        perplexity_model=({"name": ppl_model, "file": portable_path(scorer.file),
                           "cached": scorer.n_cached, "computed": scorer.n_computed,
                           "cache_only": scorer.cache_only, "missing": scorer.n_missing} if scorer else None),
        index={"path": portable_path(index), "n_docs": stats.get("n_docs"), "checksum": stats.get("checksum"),
               "n_ngrams": stats.get("n_ngrams"), "mean_postings": stats.get("mean_postings")},
        settings={"dataset": dataset, "queries": portable_path(queries), "k": k, "max_arity": max_arity,
                  **({"committed": portable_path(committed)} if committed else {}), **(settings or {})},
    )
    return results
