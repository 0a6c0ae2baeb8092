"""Would a dense lead tell answerable questions from unanswerable ones? A retrieval-level measurement.

    DEBUG=1 OMP_WAIT_POLICY=PASSIVE .venv/bin/python bench/dense_lead.py --dataset FILE [--cache-dir DIR]
        [--cos 0.84,0.86,0.88] [--margin 0.02,0.03,0.05]

FILE is what `manage.py rag_eval --dataset` reads; its corpus must already be built and cached by rag_eval (in
--cache-dir, default var/rag_eval). Every question is searched once (rag_app.search.hybrid.search, as a staff-less
user, the settings of this checkout). Per question, the candidate document whose best chunk is nearest the question
by the embedder's cosine, and its margin over the next document's best cosine. For each (cosine, margin) pair: how
many answerable questions such a lead would reach ("fired"), how many of those with their gold document, and how
many unanswerable ones. This is the command behind "A dense lead does not tell an answerable question from an
on-topic unanswerable one" in docs/EVALUATION.md (session 44); no rule of the product reads it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def numbers(text: str) -> list[float]:
    return [float(v) for v in text.split(",") if v.strip()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True, type=Path)
    parser.add_argument("--cache-dir", type=Path, default=ROOT / "var" / "rag_eval")
    parser.add_argument("--cos", type=numbers, default=[0.84, 0.86, 0.88])
    parser.add_argument("--margin", type=numbers, default=[0.02, 0.03, 0.05])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if args.child:
        leads = measure(args.dataset)
        print(table(leads, args.cos, args.margin))
        return

    from benchdb import rerun_on_cached_corpus

    rerun_on_cached_corpus(__file__, sys.argv[1:], args.dataset, args.cache_dir)


def measure(dataset: Path) -> list[tuple[bool, bool, float, float]]:
    """Per question: (answerable, the lead is a gold document, the lead's cosine, its margin over the next)."""
    from rag_app import evaluation
    from rag_app.search.hybrid import search

    out: list[tuple[bool, bool, float, float]] = []
    for case in evaluation.load_dataset(dataset).cases(limit=None, seed=0):
        best: dict[str, float] = {}
        for record in search(user=None, question=case.question):
            if record.dense_score is not None:
                best[record.source_id] = max(best.get(record.source_id, -1.0), record.dense_score)
        ranked = sorted(best.items(), key=lambda kv: -kv[1])
        if not ranked:
            continue
        lead, cosine = ranked[0]
        margin = cosine - (ranked[1][1] if len(ranked) > 1 else 0.0)
        out.append((bool(case.golds), lead in case.golds, cosine, margin))
    return out


def table(leads: list[tuple[bool, bool, float, float]], cosines: list[float], margins: list[float]) -> str:
    answerable = sum(1 for a, *_ in leads if a)
    rows = [
        f"{answerable} answerable questions, {len(leads) - answerable} unanswerable (with an embedder's cosine)",
        "cosine >= | margin >= | answerable fired | with gold | unanswerable fired",
    ]
    for cos in cosines:
        for margin in margins:
            fired = [(a, g) for a, g, c, m in leads if c >= cos and m >= margin]
            rows.append(
                f"{cos:9.2f} | {margin:9.2f} | {sum(1 for a, _ in fired if a):16d} |"
                f" {sum(1 for a, g in fired if a and g):9d} | {sum(1 for a, _ in fired if not a):18d}"
            )
    return "\n".join(rows)


if __name__ == "__main__":
    main()
