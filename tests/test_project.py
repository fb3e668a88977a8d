"""project.yml: every path a step reads or writes is declared, steps come in an
order that makes their inputs, and `spacy project run all` works end to end on
tiny vars (canned LLM replies for the rewrite steps, the real SmolLM2 in one step)."""
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PATH_EXTENSIONS = (".jsonl", ".json", ".cfg", ".png", ".html", ".md", ".py", ".jinja")


def load_project(overrides=None):
    from weasel.util import load_project_config

    return load_project_config(REPO, overrides=overrides or {})


def norm(path: str) -> str:
    return os.path.normpath(path)


def covered(path: str, declared) -> bool:
    """True when `path` is a declared path or lies under a declared folder."""
    p = norm(path)
    return any(p == d or p.startswith(d + os.sep) for d in declared)


def script_paths(script_line: str):
    """Path-like arguments of one script line (KEY=PATH values included)."""
    out = []
    for tok in shlex.split(script_line)[1:]:
        if tok.startswith("-"):
            continue
        if "=" in tok:
            tok = tok.split("=", 1)[1]
        if "/" in tok or tok.endswith(PATH_EXTENSIONS):
            if tok.startswith("spacy_linkguard") and "/" not in tok:
                continue  # the module name after `python -m`
            out.append(tok)
    return out


@pytest.fixture(params=[{}, {"vars.dataset": "wiki"}], ids=["echr", "wiki"])
def project(request):
    return load_project(request.param)


def test_commands_have_help_script_deps_outputs(project):
    names = [c["name"] for c in project["commands"]]
    assert project["workflows"]["all"] == [n for n in project["workflows"]["all"] if n in names]
    for cmd in project["commands"]:
        for key in ("help", "script", "deps", "outputs"):
            assert cmd.get(key), f"{cmd['name']} has no {key}"


def test_every_path_a_step_touches_is_declared(project):
    for cmd in project["commands"]:
        declared = [norm(p) for p in cmd["deps"] + cmd["outputs"] + cmd.get("outputs_no_cache", [])]
        tokens = []
        for line in cmd["script"]:
            for path in script_paths(line):
                tokens.append(norm(path))
                # A folder argument (the report's OUT_DIR, evaluate's --committed DIR) is
                # fine when what the step writes or reads inside it is declared.
                is_out_dir = any(norm(o).startswith(norm(path) + os.sep) for o in cmd["outputs"] + cmd["deps"])
                assert covered(path, declared) or is_out_dir, f"{cmd['name']}: {path} is read or written but not declared"
        # The other way round: a declared output must be written by the script
        # (catches outputs pointing at a misspelled folder).
        for out in cmd["outputs"] + cmd.get("outputs_no_cache", []):
            assert covered(out, tokens) or norm(out) in [norm(t) for line in cmd["script"] for t in shlex.split(line)], (
                f"{cmd['name']}: output {out} is not written by its script")


def test_steps_come_after_the_steps_that_make_their_inputs(project):
    commands = {c["name"]: c for c in project["commands"]}
    made = []
    for name in project["workflows"]["all"]:
        cmd = commands[name]
        for dep in cmd["deps"]:
            in_repo = (REPO / dep).exists() and not covered(dep, made)
            assert in_repo or covered(dep, made), f"{name}: {dep} is neither in the repository nor made by an earlier step"
            if in_repo and not norm(dep).startswith(("assets", "configs")):
                assert (REPO / dep).is_file(), f"{name}: source dependency {dep} is missing"
        made.extend(norm(o) for o in cmd["outputs"] + cmd.get("outputs_no_cache", []))


def test_every_declared_source_file_exists():
    for cmd in load_project()["commands"]:
        for dep in cmd["deps"]:
            if dep.startswith(("spacy_linkguard/", "configs/", "./configs/")):
                assert (REPO / dep).is_file(), f"{cmd['name']}: {dep} does not exist"


# Top folders whose contents the workflow makes (corpus samples, indexes,
# fetched models, reports): a var may name a path there before it exists.
WORKFLOW_ROOTS = ("corpus", "indexes", "models", "reports")


def path_vars(project):
    """(name, value) of every var whose resolved value names a path: a string
    with a "/" or a file extension of PATH_EXTENSIONS (model keys, numbers and
    comma lists are not paths)."""
    for name, value in project["vars"].items():
        if isinstance(value, str) and " " not in value and ("/" in value or value.endswith(PATH_EXTENSIONS)):
            yield name, value


def test_every_var_that_names_a_repository_path_exists(project):
    """Every var naming a path in the repository names one that exists.

    Rule: vars are resolved with the default vars (and with dataset = wiki,
    the other fixture); a path-like value (`path_vars`) must exist in the
    repository unless it is made by the workflow: it lies under one of
    WORKFLOW_ROOTS (which project.yml's `directories` lists) or under a
    command's declared outputs. So configs/, assets/ (the bundled ones),
    spacy_linkguard/, scripts/ and any misspelled top folder must exist;
    corpus/, indexes/, models/ and reports/ need not.
    """
    assert set(WORKFLOW_ROOTS) <= set(project["directories"])
    outputs = [norm(o) for c in project["commands"] for o in c["outputs"] + c.get("outputs_no_cache", [])]
    checked = 0
    for name, value in path_vars(project):
        path = norm(value)
        if path.split(os.sep)[0] in WORKFLOW_ROOTS or covered(path, outputs):
            continue
        assert (REPO / path).exists(), f"vars.{name} = {value!r} names {path}, which is not in the repository"
        checked += 1
    assert checked >= 3  # llm_config, nospans_config, collection, ... : the rule is not vacuous


def test_every_var_is_used():
    """A var no command or other var refers to is a leftover (as lexical_config,
    naming a config that never existed, was)."""
    import yaml

    raw = (REPO / "project.yml").read_text(encoding="utf-8")
    for name in yaml.safe_load(raw)["vars"]:
        assert "${vars." + name + "}" in raw, f"vars.{name} is used by no command"


def test_assets_are_checksummed():
    from weasel.util import get_checksum

    for asset in load_project()["assets"]:
        if asset.get("extra"):
            assert asset["url"].startswith("https://")
            continue
        assert get_checksum(REPO / asset["dest"]) == asset["checksum"], asset["dest"]


def test_gpu_config_is_one_var_away():
    proj = load_project({"vars.llm_config": "configs/rewrite_qwen3.cfg"})
    rewrite = next(c for c in proj["commands"] if c["name"] == "rewrite-arity3")
    assert "configs/rewrite_qwen3.cfg" in " ".join(rewrite["script"])
    assert (REPO / "configs/rewrite_qwen3.cfg").is_file()


# --- end to end ------------------------------------------------------------------

# CANNED replies for the rewrite steps of the end-to-end test: the model
# replaces every listed span by the placeholder. This tests the workflow's
# plumbing, not any model's quality. Loaded in every subprocess through
# sitecustomize on PYTHONPATH.
CANNED_SITECUSTOMIZE = '''
import json, re
try:
    from spacy_llm.registry import registry
except Exception:  # spacy-llm missing: nothing to register
    registry = None


class CannedReplies:
    """CANNED (test only): every listed span -> [REDACTED]; no span list -> unchanged."""

    def __call__(self, prompts):
        out = []
        for batch in prompts:
            replies = []
            for prompt in batch:
                raw = prompt.rsplit("Input: ", 1)[-1].strip()
                try:
                    obj = json.loads(raw)
                except ValueError:
                    replies.append("no json")
                    continue
                text = obj.get("text", "")
                for span in sorted(obj.get("spans", []), key=len, reverse=True):
                    text = re.sub(re.escape(span), "[REDACTED]", text, flags=re.I)
                replies.append("Canned.\\n" + json.dumps({"text": text}))
            out.append(replies)
        return out


if registry is not None and "linkguard_e2e.Canned.v1" not in registry.llm_models.get_all():
    @registry.llm_models("linkguard_e2e.Canned.v1")
    def make_canned():
        return CannedReplies()
'''


def tiny_corpus(dest: Path, n_queries: int = 2, n_other: int = 20, words: int = 80):
    """A tiny echr-like corpus: the first words of real queries, their originals, and other cases."""
    src = REPO / "assets" / "echr"
    queries = [json.loads(line) for line in (src / "queries.jsonl").open()][:n_queries]
    ids = {q["id"] for q in queries}
    coll = []
    for line in (src / "collection.jsonl").open():
        rec = json.loads(line)
        if rec["id"] in ids or (len(coll) < n_queries + n_other and "/" not in rec["id"]):
            coll.append(rec)
    def cut(text):
        return " ".join(text.split(" ")[:words])
    dest.mkdir(parents=True)
    with (dest / "queries.jsonl").open("w") as f:
        for q in queries:
            f.write(json.dumps({"id": q["id"], "text": cut(q["text"]), "meta": q.get("meta", {})}) + "\n")
    with (dest / "collection.jsonl").open("w") as f:
        for r in coll:
            f.write(json.dumps({"id": r["id"], "text": cut(r["text"])}) + "\n")


def run_group(cmd, cwd, env, timeout):
    """Run `cmd` in its own process group; on timeout kill the whole group
    (weasel's step subprocesses too), then fail."""
    import signal

    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{' '.join(cmd[:4])} ran over {timeout} s:\n{out[-3000:]}\n{err[-3000:]}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


def make_project(tmp_path):
    """A copy of the project on the tiny corpus, with canned and short-model
    rewrite configs and the canned model registered in every subprocess.
    RETURNS (proj, env)."""
    proj = tmp_path / "proj"
    proj.mkdir()
    shutil.copy(REPO / "project.yml", proj / "project.yml")
    shutil.copytree(REPO / "configs", proj / "configs")
    os.symlink(REPO / "spacy_linkguard", proj / "spacy_linkguard")
    (REPO / "models").mkdir(exist_ok=True)
    os.symlink(REPO / "models", proj / "models")  # models extracted once, shared with the repository
    tiny_corpus(proj / "assets" / "echr")
    # With --vars.llm_docs 0 every LLM row is live; the committed GPU outputs
    # (a dependency of evaluate) are an empty folder here.
    (proj / "reports" / "echr-qwen25-gpu" / "outputs").mkdir(parents=True)
    (proj / "reports" / "echr-qwen25-gpu" / "outputs" / "PROVENANCE.json").write_text("{}")
    cfg = (REPO / "configs" / "rewrite_cpu.cfg").read_text()
    canned = re.sub(r"\[components\.linkguard_rewrite\.model\]\n(?:[^\[\n].*\n?)*",
                    '[components.linkguard_rewrite.model]\n@llm_models = "linkguard_e2e.Canned.v1"\n\n', cfg)
    assert "linkguard_e2e.Canned.v1" in canned
    (proj / "configs" / "rewrite_canned.cfg").write_text(canned)
    # The real small-model path (one step): SmolLM2 with short completions, to stay fast.
    short = re.sub(r"(?m)^max_new_tokens = \d+", "max_new_tokens = 48", cfg)
    assert "max_new_tokens = 48" in short
    (proj / "configs" / "rewrite_cpu_short.cfg").write_text(short)
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(CANNED_SITECUSTOMIZE)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return proj, env


@pytest.mark.slow
def test_project_run_all_end_to_end(tmp_path):
    proj, env = make_project(tmp_path)
    # Perplexity computed here (the project's default reads only its committed cache).
    overrides = ["--vars.n_eval_docs", "2", "--vars.llm_docs", "0", "--vars.ppl_missing", "compute",
                 "--vars.llm_config", "configs/rewrite_canned.cfg",
                 "--vars.nospans_llm_config", "configs/rewrite_cpu_short.cfg", "--vars.nospans_passes", "1",
                 "--vars.lexical_passes", "1", "--vars.fig3_levels", "0,0.5", "--vars.fig3_ks", "1,5"]
    run = run_group([sys.executable, "-m", "weasel", "run", "all", str(proj), *overrides], proj, env, 1800)
    assert run.returncode == 0, (run.stdout[-4000:], run.stderr[-4000:])

    report = proj / "reports" / "echr"
    md = (report / "report.md").read_text()
    results = json.loads((report / "results.json").read_text())
    from spacy_linkguard.experiments.report import table_labels
    from spacy_linkguard.experiments.systems import SYSTEMS

    labels = table_labels(md)
    shown = [s for s in SYSTEMS if not s.optional]  # the any-verdict comparison row is not in `all`
    for s in shown:
        assert labels.count(s.label) == 3, s.label  # linkage, quality and cost tables
    assert not any(s.label in labels for s in SYSTEMS if s.optional)
    rows = {r["key"]: r for r in results["systems"]}
    assert set(rows) == {s.key for s in shown}
    for key, row in rows.items():
        assert row["n_docs"] == 2
        for name in ("linkable_prop_a1", "linkable_prop_a3", "linkage_rate_a1", "linkage_rate_a3",
                     "linkage_rate_a1_source", "linkage_rate_a3_source", "edit_volume"):
            assert row[name] is None or 0.0 <= row[name] <= 1.0, (key, name, row[name])
        # a source linkage is an any linkage
        assert row["linkage_rate_a3_source"] <= row["linkage_rate_a3"], key
        sim = row["similarity"]["all-MiniLM-L6-v2"]
        assert -1.0 <= sim <= 1.0 + 1e-6
        assert row["perplexity"] is not None and row["perplexity"] >= 1.0
    assert rows["input"]["linkable_prop_a1"] == 1.0
    # Guarantee mode: the rewrite loop's outputs are safe under source. The
    # loop breaks linkage with its own picks (witnesses: the sources; redaction
    # also re-cuts the text), so a span flagged in the input may survive while
    # nothing links the output to its source.
    assert rows["llm_a3"]["linkage_rate_a3_source"] == 0.0
    assert rows["llm_a3"]["linkable_prop_a3"] < rows["input"]["linkable_prop_a3"]
    assert rows["llm_a1"]["linkage_rate_a1_source"] == 0.0
    # The queries' ids are documents of the collection: the loop detected under source.
    assert rows["llm_a3"]["verdict"] == "source" and rows["llm_a3"]["n_without_sources"] == 0
    assert rows["input"]["verdict"] is None and rows["llm_nospans"]["verdict"] is None
    assert rows["llm_nospans"]["llm_calls"] >= 1  # the real SmolLM2 was called
    for png in ("figure2.png", "figure3.png"):
        assert (report / png).read_bytes()[:4] == b"\x89PNG"
    assert "DP-MLM" in (report / "report.html").read_text()
    # The echr queries are gold-masked TAB texts: Figure 3 starts from de-identified text.
    assert "At 0% each query is as given: 2 of 2 already contain `[REDACTED]`" in md
    for href in re.findall(r"\]\((docs/[^)]+)\)", md):
        assert (report / href).is_file()
    # The review page: the arity <= 3 rewrite's documents, each beside its input.
    review = (report / "review.html").read_text(encoding="utf-8")
    assert review.count('<section class="doc"') == 2 and 'data-total="docs">2<' in review

    # A second run skips every step: all inputs and outputs are declared.
    again = run_group([sys.executable, "-m", "weasel", "run", "all", str(proj), *overrides], proj, env, 600)
    assert again.returncode == 0
    skipped = again.stdout.count("nothing changed")
    assert skipped == len(load_project()["workflows"]["all"]), again.stdout[-3000:]


@pytest.mark.slow
def test_project_runs_with_max_arity_2(tmp_path):
    """With --vars.max_arity 2 every step runs, the outputs record the arity,
    and the report's arity columns are there and filled (canned LLM, no real model)."""
    from spacy_linkguard.experiments.report import table_labels
    from spacy_linkguard.experiments.systems import systems_for

    proj, env = make_project(tmp_path)
    overrides = ["--vars.n_eval_docs", "2", "--vars.llm_docs", "0", "--vars.max_arity", "2",
                 "--vars.llm_config", "configs/rewrite_canned.cfg",
                 "--vars.nospans_llm_config", "configs/rewrite_canned.cfg", "--vars.nospans_passes", "1",
                 "--vars.lexical_passes", "1", "--vars.sim_models", "all-MiniLM-L6-v2",
                 "--vars.fig3_levels", "0,0.5", "--vars.fig3_ks", "1,5"]
    run = run_group([sys.executable, "-m", "weasel", "run", "all", str(proj), *overrides], proj, env, 1800)
    assert run.returncode == 0, (run.stdout[-4000:], run.stderr[-4000:])

    corpus = proj / "corpus" / "echr"
    for name, system in (("out_llm_a2", "llm"), ("out_lexical_a2", "lexical"), ("out_llm_a1", "llm")):
        for line in (corpus / f"{name}.jsonl").read_text().splitlines():
            obj = json.loads(line)
            assert obj["system"] == system and obj["k"] == 2 and obj["model"], obj
            assert obj["max_arity"] == (1 if name == "out_llm_a1" else 2)
    for line in (corpus / "out_llm_nospans.jsonl").read_text().splitlines():
        assert json.loads(line)["system"] == "llm_nospans"

    report = proj / "reports" / "echr"
    results = json.loads((report / "results.json").read_text())
    assert results["settings"]["max_arity"] == 2
    rows = {r["key"]: r for r in results["systems"]}
    assert set(rows) == {s.key for s in systems_for(2) if not s.optional}
    for key, row in rows.items():
        assert row["linkable_prop_a2"] is not None and row["linkage_rate_a2"] is not None, key
        assert row["linkage_rate_a2_source"] is not None, key
        assert row["model"], key
    assert rows["llm_a2"]["linkage_rate_a2_source"] == 0.0  # guarantee mode (under source: the ids are in the index)
    md = (report / "report.md").read_text()
    header = next(ln for ln in md.splitlines() if ln.startswith("| approach | verdict"))
    cols = [c.strip() for c in header.strip("|").split("|")]
    assert "linkable prop. arity <= 2" in cols and "doc. linkage rate, source (k=2, arity <= 2)" in cols
    assert "doc. linkage rate, any (k=2, arity <= 2)" in cols
    assert not any("3" in c for c in cols if "arity" in c or "linkage" in c)
    table = []
    for ln in md.splitlines()[md.splitlines().index(header) + 2:]:
        if not ln.startswith("|"):
            break
        table.append([c.strip() for c in ln.strip("|").split("|")])
    assert [r[0] for r in table] == [s.label for s in systems_for(2) if not s.optional]
    for r in table:
        for name in ("linkable prop. arity <= 2", "doc. linkage rate, source (k=2, arity <= 2)",
                     "doc. linkage rate, any (k=2, arity <= 2)"):
            cell = r[cols.index(name)]
            assert cell and cell != "\u2013", (r[0], name, cell)
    assert set(table_labels(md)) >= {s.label for s in systems_for(2) if not s.optional}
