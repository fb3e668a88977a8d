"""Index statistics and the paper's Figure 2 (posting-list lengths by N)."""
import json
from pathlib import Path
from typing import Any, Dict, List, Union

from . import format as fmt


def index_stats(index) -> Dict[str, Any]:
    """Counts and sizes of an index (see `NgramIndex.stats`).

    RETURNS (dict): n_docs, n_ngrams, n_postings, mean_postings, share_df1,
        n_ngrams_by_n, disk_bytes, bytes_per_ngram, n_tokens, n_skipped_empty,
        format_version, settings, checksum, df_histogram ({n: [[df, count], ...]}),
        layout, n_rows (N-grams stored as rows), n_pruned (answered from the
        documents' tokens), disk_bytes_by_file, bytes_per_token.
    """
    counts = index.meta["counts"]
    hist = load_histogram(index.path)
    by_n = {n: sum(c for _, c in pairs) for n, pairs in hist.items()}
    n_df1 = sum(c for pairs in hist.values() for df, c in pairs if df == 1)
    layout = index.layout
    if layout == "sharded":  # every file of every part
        root = Path(index.path)
        by_file = {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("*")) if p.is_file()}
    else:
        by_file = {name: (Path(index.path) / name).stat().st_size for name in (fmt.META, *fmt.data_files(layout))}
    disk = sum(by_file.values())
    n_ngrams = counts["n_ngrams"]
    n_tokens = counts.get("n_tokens")
    return {
        "n_docs": counts["n_docs"],
        "n_ngrams": n_ngrams,
        "n_postings": counts["n_postings"],
        "mean_postings": counts["n_postings"] / n_ngrams if n_ngrams else 0.0,
        "share_df1": n_df1 / n_ngrams if n_ngrams else 0.0,
        "n_ngrams_by_n": {str(n): c for n, c in sorted(by_n.items())},
        "n_tokens": n_tokens,
        "layout": layout,
        "n_rows": counts.get("n_rows", n_ngrams),
        "n_pruned": counts.get("n_pruned", 0),
        "disk_bytes_by_file": by_file,
        "bytes_per_token": disk / n_tokens if n_tokens else 0.0,
        "n_shards": getattr(index, "n_shards", 1),
        "n_skipped_empty": counts.get("n_skipped_empty", 0),
        "disk_bytes": disk,
        "bytes_per_ngram": disk / n_ngrams if n_ngrams else 0.0,
        "format_version": index.meta["format_version"],
        "settings": index.meta["settings"],
        "checksum": index.checksum,
        "df_histogram": {str(n): pairs for n, pairs in sorted(hist.items())},
    }


def load_histogram(path: Union[str, Path]) -> Dict[int, List[List[int]]]:
    data = json.loads((Path(path) / fmt.STATS).read_text(encoding="utf-8"))
    return {int(n): pairs for n, pairs in data["df_histogram"].items()}


def log_bin_edges(top: int, per_octave: int = 4) -> List[int]:
    """Bin edges 1, 2, 3, 4, 5, then growing by 2**(1/per_octave), past `top`."""
    edges = [1, 2, 3, 4, 5]
    while edges[-1] <= top:
        edges.append(max(edges[-1] + 1, int(round(edges[-1] * 2 ** (1 / per_octave)))))
    return edges


def log_binned(pairs: List[List[int]], per_octave: int = 4):
    """(x, y) for a log-log plot of a sparse histogram [[length, count], ...]:
    lengths 1..4 exactly, then bins growing by 2**(1/per_octave); y is the
    mean count per length in the bin (so the curve does not dip where bins
    are empty) and x the bin's geometric centre."""
    counts = dict((int(k), int(c)) for k, c in pairs)
    edges = log_bin_edges(max(counts), per_octave)
    xs, ys = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        total = sum(c for k, c in counts.items() if lo <= k < hi)
        if total:
            xs.append((lo * (hi - 1)) ** 0.5)
            ys.append(total / (hi - lo))
    return xs, ys


def plot_figure2(index, out: Union[str, Path], *, title: str = "") -> Path:
    """Write Figure 2 as PNG: number of distinct N-grams (log) by posting-list
    length (log), one line per N.

    RAISES: LinkguardError E067 when matplotlib is not installed.
    """
    from ..errors import Errors, LinkguardError

    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise LinkguardError(Errors.E067) from None
    hist = load_histogram(index.path)
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    for n, pairs in sorted(hist.items()):
        if not pairs:
            continue
        xs, ys = log_binned(pairs)
        ax.plot(xs, ys, marker=".", markersize=4, linewidth=1.2, label=f"N = {n}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("posting-list length (documents containing the N-gram)")
    ax.set_ylabel("distinct N-grams per length (log-binned mean)")
    ax.set_title(title or f"Posting-list lengths by N ({index.n_docs:,} documents, {index.n_ngrams:,} N-grams)",
                 fontsize=9)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png")
    plt.close(fig)
    return out
