"""A rewrite pipeline built from its config, with the index named where the config reads it."""
from pathlib import Path
from typing import Any, Optional


def load_rewrite_pipeline(config: Path, overrides: Optional[dict] = None, *, index: Optional[Path] = None,
                          component: str = "linkguard_rewrite"):
    """Build the pipeline of a rewrite config (the model loads on first use).

    index: the index folder, written where the config reads it: [paths] index
        (when the config has it) and [initialize.components.<component>] index,
        for `nlp.initialize()` to hand to the component.

    RAISES: LinkguardError E010 when the config file does not exist, E218 when
        it cannot be parsed or validated (spaCy's and confection's errors,
        re-raised with a code); a component's own coded error passes as it is.
    """
    from configparser import Error as ConfigParserError

    from confection import ConfigValidationError
    from spacy import util

    from ..errors import Errors, LinkguardError

    if not Path(config).is_file():
        raise LinkguardError(Errors.E010.format(path=config, hint=" (or name a shipped config: --config rewrite_cpu)"))
    try:
        cfg = util.load_config(config, overrides=overrides or {}, interpolate=False)
        if index is not None:
            name_index(cfg, component, index)
        return util.load_model_from_config(cfg, auto_fill=True, validate=True)
    except LinkguardError:
        raise
    except ConfigValidationError as e:
        raise LinkguardError(Errors.E218.format(path=config, detail=validation_detail(e))) from None
    except (ConfigParserError, ValueError, KeyError) as e:  # syntax, unknown factory or registered name
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise LinkguardError(Errors.E218.format(path=config, detail=f"{type(e).__name__}: {first}")) from None


def name_index(cfg, component: str, index: Path) -> None:
    """Name the index folder in `cfg` (a Config) where it is read: [paths] index
    when the config declares it (a component block may refer to it), and the
    component's [initialize] block, so a config without either still gets it."""
    if isinstance(cfg.get("paths"), dict) and "index" in cfg["paths"]:
        cfg["paths"]["index"] = str(index)
    init = cfg.setdefault("initialize", {}).setdefault("components", {})
    init.setdefault(component, {})["index"] = str(index)


def validation_detail(e) -> str:
    """confection's per-field errors as one line ("section.key: problem; ..."),
    instead of its multi-line dump of the whole config."""
    errors = getattr(e, "errors", None) or []
    parts = [f"{'.'.join(str(x) for x in err.get('loc', ()))}: {err.get('msg', '')}" for err in errors]
    if parts:
        return "; ".join(parts)
    text = " ".join(str(getattr(e, "desc", "") or e).split())
    return text[:300]
