"""The evaluation of record: `manage.py rag_eval --answers` on a protocol data set -> docs/bench/eval_<label>.json.

rag_eval builds the protocol corpus in its own cached database and asks every question through
services.ask; this wrapper only runs it, keeps the per-question files under var/bench/eval/,
copies the failures next to the figures (docs/bench/eval_<label>.failures.jsonl) and stamps
the machine and the exact command.

    python bench/eval_bench.py [--dataset ../shared/eval-data/cmrc2018/cmrc2018_dev.json] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import benchdb

DEFAULT = benchdb.ROOT.parent / "shared" / "eval-data" / "cmrc2018" / "cmrc2018_dev.json"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, default=DEFAULT)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--mode", default="extractive")
    ap.add_argument("--label", default="")
    args = ap.parse_args(argv)
    label = args.label or (args.dataset.stem + (f"_limit{args.limit}" if args.limit else "") + f"_{args.mode}")
    work = benchdb.VAR / "eval"
    work.mkdir(parents=True, exist_ok=True)
    out = work / f"{label}.json"
    cmd = [sys.executable, "manage.py", "rag_eval", "--dataset", str(args.dataset), "--mode", args.mode]
    cmd += ["--json", "--out", str(out)] + (["--limit", str(args.limit)] if args.limit else [])
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1"), "LOG_LEVEL": os.environ.get("LOG_LEVEL", "WARNING")}
    done = subprocess.run(cmd, cwd=benchdb.ROOT, env=env, stdout=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        return done.returncode
    report = json.loads(out.read_text(encoding="utf-8"))
    shown = " ".join(["python", "manage.py", *cmd[2:]]).replace(str(benchdb.ROOT.parent), "..")
    report |= {
        "label": label,
        "threshold": report.get("answers", {}).get("threshold"),
        "command": shown.replace(str(out), f"var/bench/eval/{label}.json"),
        "wrapper": "python bench/eval_bench.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    benchdb.write_result(f"eval_{label}", report)
    failures = out.parent / f"{out.stem}.answers" / "failures.jsonl"
    if failures.exists():
        shutil.copyfile(failures, benchdb.RESULTS / f"eval_{label}.failures.jsonl")
    a = report["answers"]
    print(json.dumps({"answerable": a["answerable"], "no_evidence": a["no_evidence"], "latency_ms": a["latency_ms"]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
