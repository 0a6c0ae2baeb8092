"""Where an ask spends its time: services.ask() over ask_bench's question sample, stage medians, optional cProfile.

A working tool, not a figure of record (nothing is written under docs/): ask_bench.py alternates
the service call with an HTTP ask and bm25s, this asks only through the service, on one
connection, so stage times can be compared between two trees in the same minutes:

    python bench/ask_profile.py --chunks 100000 [--queries 100] [--profile /tmp/ask.prof]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ask_bench
import benchdb

STAGES = ("retrieval", "assembly", "generation", "alignment", "persistence")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    ap.add_argument("--chunks", type=int, required=True)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--profile", type=Path, default=None, help="write cProfile stats here and print the top")
    args = ap.parse_args(argv)

    ask_bench.ensure_corpus(args.backend, args.chunks)
    from rag_app.services import ask

    user, _ = benchdb.bench_user()
    qs = ask_bench.questions(args.queries + args.warmup, titles=ask_bench.corpus_titles())
    for q in qs[: args.warmup]:
        ask(user=user, question=q, mode="extractive")
    profiler = cProfile.Profile() if args.profile else None
    service: list[float] = []
    stages: dict[str, list[float]] = {s: [] for s in STAGES}
    for q in qs[args.warmup :]:
        if profiler is not None:
            profiler.enable()
        t0 = time.perf_counter()
        answer = ask(user=user, question=q, mode="extractive")
        service.append((time.perf_counter() - t0) * 1000)
        if profiler is not None:
            profiler.disable()
        for s in STAGES:
            value = (answer.timings or {}).get(f"{s}_ms")
            if isinstance(value, int | float):
                stages[s].append(float(value))
    print(
        f"n={len(service)} service p50={statistics.median(service):.1f} "
        f"p95={benchdb.percentile(service, 95):.1f} ms, load {os.getloadavg()[0]:.2f}"
    )
    print("stage p50 ms: " + " ".join(f"{s}={statistics.median(v):.2f}" for s, v in stages.items() if v))
    if profiler is not None:
        profiler.dump_stats(args.profile)
        pstats.Stats(str(args.profile)).sort_stats("cumulative").print_stats(40)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
