"""How the relevance threshold and the answerability check's settings trade answers for abstentions.

    DEBUG=1 .venv/bin/python bench/answerability_sweep.py --dataset FILE [--limit N]
        [--grid THRESHOLD=0.43,0.5] [--grid MIN_FOCUS=0.3,0.35,0.4] [--grid BIGRAM_SHARE=0.6,1.01]
        [--out docs/bench/answerability_sweep_<name>.json]

FILE is what `manage.py rag_eval --dataset` reads (CMRC's SQuAD layout or the natural-question set),
and its corpus must already be built and cached by rag_eval (var/rag_eval/; run rag_eval once first).
Every question is searched once (rag_app.search.hybrid.search, as a staff-less user, the settings of
this checkout); then, for every combination of the grid, the candidates go through the same tiering
(pipeline/tiering.select) and the same check (pipeline/answerability.screen) that retrieve() runs,
with the module constants set to the combination. Reported per combination, at retrieval level (no
generator): answerable questions with something kept ("answered"), with a gold passage kept
("gold_kept"), the cross-lingual ones answered, and questions without an answer with nothing kept
("abstained"); the row "screen": "off" is the same threshold without the check.

This is the repository command behind the sweep figures in docs/EVALUATION.md (the rag_eval runs give
the figures of record: they ask through services.ask and score the answers).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SETTABLE = ("MIN_FOCUS", "BIGRAM_SHARE")


def parse_grid(items: list[str]) -> dict[str, list[float]]:
    grid: dict[str, list[float]] = {}
    for item in items:
        name, _, values = item.partition("=")
        if name != "THRESHOLD" and name not in SETTABLE:
            raise SystemExit(f"--grid {item}: the name must be THRESHOLD or one of {', '.join(SETTABLE)}")
        try:
            grid[name] = [float(v) for v in values.split(",") if v.strip()]
        except ValueError:
            raise SystemExit(f"--grid {item}: values must be numbers, comma-separated") from None
        if not grid[name]:
            raise SystemExit(f"--grid {item}: no values")
    return grid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dataset", required=True, type=Path)
    parser.add_argument("--limit", type=int, default=None, help="sample this many questions (half per group)")
    parser.add_argument("--grid", action="append", default=[], help="NAME=v1,v2 (repeatable)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    grid = parse_grid(args.grid)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    if args.child:
        report = sweep(args.dataset, args.limit, grid)
        text = json.dumps(report, ensure_ascii=False, indent=2)
        if args.out:
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(text + "\n", encoding="utf-8")
        print(table(report))
        return

    from benchdb import rerun_on_cached_corpus

    rerun_on_cached_corpus(__file__, sys.argv[1:], args.dataset, ROOT / "var" / "rag_eval")


def sweep(dataset: Path, limit: int | None, grid: dict[str, list[float]]) -> dict[str, Any]:
    from django.conf import settings
    from django.utils import timezone

    from rag_app import evaluation
    from rag_app.pipeline import answerability
    from rag_app.search.hybrid import MAX_QUESTION_CHARS, qualify, screen_inputs, search

    rag = settings.RAG
    protocol = evaluation.load_dataset(dataset)
    cases = protocol.cases(limit=limit, seed=0)
    today = timezone.localdate()
    search(user=None, question="warm-up 预热")
    started = time.perf_counter()
    searched = []
    for case in cases:
        question = case.question[:MAX_QUESTION_CHARS]
        candidates = search(user=None, question=question, limit=int(rag["CANDIDATES"]))
        groups, indexed = screen_inputs(question)
        golds = {case.gold_source_id, *case.other_gold} - {None}
        searched.append((case, question, candidates, groups, indexed, golds))
    search_s = time.perf_counter() - started

    thresholds = grid.get("THRESHOLD", [float(rag["MIN_RELEVANCE"])])
    names = [n for n in SETTABLE if n in grid]
    saved = {n: getattr(answerability, n) for n in SETTABLE}
    rows: list[dict[str, Any]] = []
    try:
        for threshold in thresholds:
            combos: list[dict[str, float] | None] = [None]  # None: the check off
            combos += [dict(zip(names, values, strict=True)) for values in itertools.product(*(grid[n] for n in names))]
            for combo in combos:
                for n in SETTABLE:
                    setattr(answerability, n, (combo or {}).get(n, saved[n]))
                outcomes = []
                for case, question, candidates, groups, indexed, golds in searched:
                    selection = qualify(
                        candidates,
                        question=question,
                        threshold=threshold,
                        today=today,
                        screen=combo is not None,
                        inputs=(groups, indexed),
                    )
                    kept = selection.kept
                    outcomes.append((case, bool(kept), any(r.source_id in golds for r in kept)))
                rows.append(
                    {
                        "threshold": threshold,
                        "screen": "off" if combo is None else {**saved, **combo},
                        **score(outcomes),
                    }
                )
    finally:
        for n, v in saved.items():
            setattr(answerability, n, v)
    return {"dataset": str(dataset), "questions": len(cases), "search_seconds": round(search_s, 1), "rows": rows}


def score(outcomes: list[tuple[Any, bool, bool]]) -> dict[str, Any]:
    answerable = [(c, kept, gold) for c, kept, gold in outcomes if c.gold_source_id]
    unanswerable = [(c, kept, gold) for c, kept, gold in outcomes if not c.gold_source_id]
    cross = [(c, kept, gold) for c, kept, gold in answerable if getattr(c, "cross_lingual", False)]

    def share(rows: list[Any], pick: Any) -> float | None:
        return round(sum(1 for r in rows if pick(r)) / len(rows), 4) if rows else None

    return {
        "answerable": len(answerable),
        "answered": share(answerable, lambda r: r[1]),
        "gold_kept": share(answerable, lambda r: r[2]),
        "cross_lingual_answered": share(cross, lambda r: r[1]),
        "no_evidence": len(unanswerable),
        "abstained": share(unanswerable, lambda r: not r[1]),
    }


def table(report: dict[str, Any]) -> str:
    lines = [f"{report['dataset']}: {report['questions']} questions (search {report['search_seconds']} s)"]
    lines.append(f"{'threshold':>9}  {'screen':<52} {'answered':>8} {'gold':>6} {'cross':>6} {'abstained':>9}")
    for row in report["rows"]:
        screen = row["screen"] if row["screen"] == "off" else " ".join(f"{k}={v}" for k, v in row["screen"].items())
        cross = "-" if row["cross_lingual_answered"] is None else f"{row['cross_lingual_answered']:.3f}"
        lines.append(
            f"{row['threshold']:>9.2f}  {screen:<52} {row['answered']:>8.3f} {row['gold_kept']:>6.3f} {cross:>6} "
            f"{row['abstained']:>9.3f}"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
