"""Embed a collection for the embedding attacker on a GPU, as the evaluation would on a CPU.

Writes the cache file that `evaluate` (and `semantic-linkage`) read from their
cache folder: `collection-<sha256 of the file, 16 hex>-<model>.npy`, the first
window of each document embedded by `Embedder` (the package's one document
embedder), so the evaluation on a CPU finds it and embeds nothing. Prints one
JSON object (documents, seconds, file).

    python3 benchmarks/gpu/embed_collection.py assets/wiki/collection.jsonl /tmp/rows/cache --device cuda

A file over the call's 16 MiB limit comes back in parts: `--split N` also
writes `<file>.partK` (raw float32 rows); join them with `cat` and
`numpy.frombuffer(...).reshape(-1, 384)` (benchmarks/README.md, GPU rows).
"""
import argparse
import json
import sys
import time
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("collection", type=Path)
    ap.add_argument("cache_dir", type=Path)
    ap.add_argument("--model", default="all-MiniLM-L6-v2")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--split", type=int, default=0, help="also write the rows in N raw parts")
    args = ap.parse_args()

    import numpy as np

    from spacy_linkguard.attack.embedding import Embedder
    from spacy_linkguard.corpus import iter_records
    from spacy_linkguard.experiments.semantic_linkage import collection_cache_file, collection_embeddings

    t0 = time.perf_counter()
    embedder = Embedder(args.model, device=args.device, batch_size=args.batch_size)
    texts = [r.text for r in iter_records(args.collection)]
    t1 = time.perf_counter()
    emb = collection_embeddings(embedder, texts, collection=args.collection, model=args.model,
                                cache_dir=args.cache_dir, progress=False)
    seconds = time.perf_counter() - t1
    cache_file = collection_cache_file(args.collection, args.model, args.cache_dir)
    if args.split:
        raw = np.ascontiguousarray(emb, dtype=np.float32).tobytes()
        step = -(-len(raw) // args.split)
        step += (-step) % (4 * emb.shape[1])  # whole rows per part
        for k in range(args.split):
            Path(f"{cache_file}.part{k}").write_bytes(raw[k * step:(k + 1) * step])
    json.dump({"documents": len(texts), "dim": int(emb.shape[1]), "load_s": round(t1 - t0, 1),
               "embed_s": round(seconds, 1), "device": args.device, "file": str(cache_file)}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
