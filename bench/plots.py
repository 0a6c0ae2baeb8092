"""Plots of record from the JSON results under docs/bench/ -> docs/img/*.png (matplotlib, Agg).

python bench/plots.py
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "docs" / "bench"
IMG = ROOT / "docs" / "img"


def _load(pattern: str, results: Path) -> list[dict]:
    return [json.loads(p.read_text(encoding="utf-8")) for p in sorted(results.glob(pattern))]


def latency_plot(results: Path = RESULTS, out: Path = IMG) -> Path | None:
    rows = _load("ask_*.json", results)
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for backend, color in (("sqlite", "tab:blue"), ("postgres", "tab:orange")):
        pts = sorted((r["chunks"], r) for r in rows if r["backend"] == backend)
        if not pts:
            continue
        xs = [c for c, _ in pts]
        ax.plot(xs, [r["service_ms"]["p50"] for _, r in pts], "o-", color=color, label=f"{backend} ask p50")
        ax.plot(xs, [r["service_ms"]["p95"] for _, r in pts], "o--", color=color, label=f"{backend} ask p95")
        retr = [r["stages_ms"]["retrieval"]["p50"] for _, r in pts]
        ax.plot(xs, retr, "s:", color=color, alpha=0.7, label=f"{backend} retrieval p50")
        ax.plot(
            xs,
            [r["bm25s_ms"]["p50"] for _, r in pts],
            "x-.",
            color=color,
            alpha=0.5,
            label=f"bm25s p50 ({backend} run)",
        )
    ax.axhline(50, color="grey", lw=0.8, ls="--")
    ax.axhline(150, color="grey", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("chunks in the index")
    ax.set_ylabel("ms (log)")
    ax.set_title("Ask latency (extractive) vs corpus size; targets 50 ms p50 / 150 ms p95")
    ax.legend(fontsize=7, ncol=2)
    ax.grid(True, which="both", alpha=0.3)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "latency_vs_corpus.png"
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def tradeoff_plot(results: Path = RESULTS, out: Path = IMG) -> Path | None:
    rows = [r for r in _load("eval_*.json", results) if r.get("answers", {}).get("tradeoff")]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(6, 5))
    for r in rows:
        curve = r["answers"]["tradeoff"]
        label = r.get("label") or r.get("dataset", "")
        ax.plot([p["abstained"] for p in curve], [p["answered"] for p in curve], "-", label=f"{label} answered")
        ax.plot(
            [p["abstained"] for p in curve],
            [p["answered_with_gold"] for p in curve],
            "--",
            label=f"{label} answered citing gold",
        )
        used = r.get("threshold")
        if used is not None:
            best = min(curve, key=lambda p: abs(p["threshold"] - used))
            ax.plot([best["abstained"]], [best["answered"]], "ko")
            ax.annotate(f"threshold {used}", (best["abstained"], best["answered"]), fontsize=8)
        for p in curve[::10]:
            ax.annotate(f"{p['threshold']:.1f}", (p["abstained"], p["answered"]), fontsize=6, color="grey")
    ax.axvline(0.90, color="grey", lw=0.8, ls=":")
    ax.axhline(0.95, color="grey", lw=0.8, ls=":")
    ax.set_xlabel("abstained on no-evidence questions")
    ax.set_ylabel("answered on answerable questions")
    ax.set_title("Abstention trade-off across relevance thresholds")
    ax.set_xlim(0, 1.02)
    ax.set_ylim(0, 1.02)
    ax.legend(fontsize=7)
    ax.grid(True, alpha=0.3)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "abstention_tradeoff.png"
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def main() -> int:
    for made in (latency_plot(), tradeoff_plot()):
        print(made or "skipped (no results yet)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
