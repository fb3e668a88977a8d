"""Make the README's picture: the `show` page of one bundled document, in headless Chromium.

    python scripts/make_screenshot.py                      # -> docs/images/flagged-spans.png
    python scripts/make_screenshot.py --index indexes/echr --doc-id 001-91088 --out shot.png

It indexes `assets/echr/collection.jsonl` (into a temporary folder, unless
`--index` names a built one), runs the product's own `show` command on one
masked document of `assets/echr/queries.jsonl` (the displaCy spans it flags and
their evidence), and screenshots the top of that page with Chromium
(`/usr/bin/chromium`, Debian package `chromium`; `make sysdeps` installs it).
The PNG is reduced to a 64-colour palette so that it stays small.
"""
import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run", "--hide-scrollbars"]


def find_chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    sys.exit("Chromium not found: install it (`sudo apt-get install chromium`, or `make sysdeps`).")


def run(cmd, **kwargs) -> None:
    print("+", " ".join(str(c) for c in cmd), file=sys.stderr)
    subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--index", type=Path, help="index of assets/echr/collection.jsonl (default: build one)")
    ap.add_argument("--queries", type=Path, default=REPO / "assets" / "echr" / "queries.jsonl")
    ap.add_argument("--doc-id", default="001-91088", help="the document to show (a short one by default)")
    ap.add_argument("--out", type=Path, default=REPO / "docs" / "images" / "flagged-spans.png")
    ap.add_argument("--width", type=int, default=1100)
    ap.add_argument("--height", type=int, default=1250)
    ap.add_argument("--colors", type=int, default=64, help="palette size of the PNG (0: keep full colour)")
    args = ap.parse_args(argv)

    chromium = find_chromium()
    with tempfile.TemporaryDirectory(prefix="linkguard-shot-") as tmp:
        tmp = Path(tmp)
        index = args.index
        if index is None:
            index = tmp / "index"
            run([sys.executable, "-m", "spacy_linkguard", "build-index",
                 REPO / "assets" / "echr" / "collection.jsonl", index])
        one = tmp / "document.jsonl"
        with args.queries.open(encoding="utf-8") as f:
            lines = [line for line in f if json.loads(line)["id"] == args.doc_id]
        if not lines:
            sys.exit(f"no document {args.doc_id!r} in {args.queries}")
        one.write_text(lines[0], encoding="utf-8")
        page = tmp / "flagged.html"
        run([sys.executable, "-m", "spacy_linkguard", "show", one, "--index", index, "--output", page,
             "--no-progress"])
        shot = tmp / "shot.png"
        run([chromium, *CHROMIUM_FLAGS, f"--screenshot={shot}", f"--window-size={args.width},{args.height}",
             page.as_uri()], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        if args.colors:
            from PIL import Image

            img = Image.open(shot).convert("RGB").quantize(colors=args.colors, method=Image.Quantize.MEDIANCUT)
            img.save(args.out, optimize=True)
        else:
            shutil.copyfile(shot, args.out)
    print(f"{args.out} ({args.out.stat().st_size // 1024} KB)", file=sys.stderr)


if __name__ == "__main__":
    main()
