"""What the answerability screen adds to an ask: the same questions asked with and without it, one run.

Every question of a natural-question set is asked through rag_app.services.ask (extractive mode, as a
staff user) once, with RAG_ANSWERABILITY on and off by turns, so drift on a shared machine falls on both
sides alike. A question is never asked in both modes: its second ask would find the passages the first
read already tokenized (the process's text caches) and look faster than a new question (sessions before 16
asked each question twice). The corpus is a `manage.py rag_eval` corpus database (real documents, built
by `rag_eval --dataset ...`); the screen reads only the candidate pool (RAG_CANDIDATES, 50), so its cost
does not grow with the corpus: what grows with N is retrieval, measured by bench/retrieval_latency.py.

    DEBUG=1 .venv/bin/python bench/answerability_latency.py --database var/rag_eval/corpus-<key>.sqlite3 \
        [--dataset eval-data/natural/questions.json] [--out docs/bench/answerability_latency.json]

At 100k chunks: the generated benchmark corpus (built and cached by `bench/ask_bench.py --backend sqlite
--chunks 100000`, under var/bench/) with a seeded sample of CMRC dev questions:

    DEBUG=1 .venv/bin/python bench/answerability_latency.py --database var/bench/corpus_sqlite_100k_s0.sqlite3 \
        --dataset ../shared/eval-data/cmrc2018/cmrc2018_dev.json --limit 300 \
        --out docs/bench/answerability_latency_100k.json

Answers are stored in that corpus database, as rag_eval's own are (never in the user's database).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--database", type=Path, required=True, help="a corpus database (SQLite file)")
    ap.add_argument("--dataset", type=Path, default=ROOT / "eval-data" / "natural" / "questions.json")
    ap.add_argument("--out", type=Path, default=None, help="JSON report")
    ap.add_argument("--limit", type=int, default=None, help="ask a seeded sample of this many questions in each mode")
    args = ap.parse_args()
    if not args.database.is_file():
        sys.exit(f"{args.database}: no such corpus database (build one with manage.py rag_eval --dataset ...)")

    os.environ["DATABASE_URL"] = f"sqlite:///{args.database.resolve()}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from rag_app import evaluation, services
    from rag_app.models import Chunk

    data = evaluation.load_dataset(args.dataset)
    if isinstance(data, evaluation.NaturalSet):
        questions = [c.question for c in (*data.answerable, *data.unanswerable)]
    else:
        questions = [c.question for c in data.cases()]
    if args.limit is not None and 2 * args.limit < len(questions):
        questions = random.Random(0).sample(questions, 2 * args.limit)
    user, _ = get_user_model().objects.get_or_create(username="answerability_latency")
    user.groups.add(Group.objects.get_or_create(name="staff")[0])
    base = dict(settings.RAG)

    states: dict[bool, Counter[str]] = {True: Counter(), False: Counter()}

    def ask(question: str, screen: bool) -> float:
        settings.RAG = {**base, "ANSWERABILITY": screen}
        start = time.perf_counter()
        answer = services.ask(user=user, question=question)
        elapsed = (time.perf_counter() - start) * 1000
        states[screen][str(answer.state)] += 1
        return elapsed

    ask("warm-up 预热", True)  # jieba, the dictionary cache, the embedder
    from rag_app.search import dense

    dense.warm_vectors(wait=True)  # on SQLite, the HNSW graph of the stored vectors (RAG_ANN_MIN_VECTORS)
    states[True].clear()
    timings: dict[bool, list[float]] = {True: [], False: []}
    for i, question in enumerate(questions):
        screen = i % 2 == 0
        timings[screen].append(ask(question, screen))
    settings.RAG = base

    def summary(values: list[float]) -> dict[str, float]:
        return {"p50": round(statistics.median(values), 2), "p95": round(_percentile(values, 0.95), 2)}

    on, off = summary(timings[True]), summary(timings[False])
    report = {
        "dataset": str(args.dataset),
        "database": args.database.name,
        "questions": len(questions),  # half of them asked with the screen, half without
        "chunks": Chunk.objects.filter(version__is_current=True).count(),
        "states_with_screen": dict(states[True]),
        "states_without_screen": dict(states[False]),
        "candidates": settings.RAG["CANDIDATES"],
        "with_screen_ms": on,
        "without_screen_ms": off,
        "added_p50_ms": round(on["p50"] - off["p50"], 2),
        "ratio_p50": round(on["p50"] / off["p50"], 3) if off["p50"] else None,
        "cpus": os.cpu_count(),
    }
    print(json.dumps(report, indent=2))
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
