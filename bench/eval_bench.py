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
    ap.add_argument("--no-result", action="store_true", help="print only; write nothing under docs/")
    ap.add_argument(
        "--rescore", action="store_true", help="recompute the answer figures from the stored outcomes.jsonl, no asking"
    )
    args = ap.parse_args(argv)
    label = args.label or (args.dataset.stem + (f"_limit{args.limit}" if args.limit else "") + f"_{args.mode}")
    work = benchdb.VAR / "eval"
    work.mkdir(parents=True, exist_ok=True)
    out = work / f"{label}.json"
    if args.rescore:
        return rescore(label, out)
    cmd = [sys.executable, "manage.py", "rag_eval", "--dataset", str(args.dataset), "--mode", args.mode]
    cmd += ["--json", "--out", str(out)] + (["--limit", str(args.limit)] if args.limit else [])
    env = {**os.environ, "DEBUG": os.environ.get("DEBUG", "1"), "LOG_LEVEL": os.environ.get("LOG_LEVEL", "WARNING")}
    done = subprocess.run(cmd, cwd=benchdb.ROOT, env=env, stdout=subprocess.DEVNULL, check=False)
    if done.returncode != 0:
        return done.returncode
    report = json.loads(out.read_text(encoding="utf-8"))
    shown = " ".join(["python", "manage.py", *cmd[2:]]).replace(str(out), f"var/bench/eval/{label}.json")
    shown = shown.replace(str(benchdb.ROOT.parent), "..")
    report |= {
        "label": label,
        "threshold": report.get("answers", {}).get("threshold"),
        "command": shown,
        "wrapper": "python bench/eval_bench.py " + " ".join(sys.argv[1:] if argv is None else argv),
    }
    if not args.no_result:
        benchdb.write_result(f"eval_{label}", report)
    failures = out.parent / f"{out.stem}.answers" / "failures.jsonl"
    if failures.exists() and not args.no_result:
        shutil.copyfile(failures, benchdb.RESULTS / f"eval_{label}.failures.jsonl")
    a = report["answers"]
    print(json.dumps({"answerable": a["answerable"], "no_evidence": a["no_evidence"], "latency_ms": a["latency_ms"]}))
    return 0


def rescore(label: str, out: Path) -> int:
    """Re-derive stages and the trade-off curve with the current code from a finished run's outcomes."""
    from rag_app.evaluation_answers import CHUNK_CHOICE, EXTRACTIVE, aggregate, outcomes_from_jsonl, tradeoff

    outcomes = outcomes_from_jsonl(out.parent / f"{out.stem}.answers" / "outcomes.jsonl")
    for o in outcomes:  # stage split added after the run: the cited snippet lacked the answer
        if o.stage == EXTRACTIVE and not o.answer_in_evidence:
            o.stage = CHUNK_CHOICE
    path = benchdb.RESULTS / f"eval_{label}.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    threshold = float(report["answers"]["threshold"])
    report["answers"] |= aggregate(outcomes) | {"tradeoff": tradeoff(outcomes, threshold)}
    report["rescored_from"] = f"var/bench/eval/{out.stem}.answers/outcomes.jsonl"
    path.write_text(json.dumps(report, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    failures = benchdb.RESULTS / f"eval_{label}.failures.jsonl"
    if failures.exists():
        stages = {o.qid: o.stage for o in outcomes}
        rows = [json.loads(line) for line in failures.read_text(encoding="utf-8").splitlines()]
        failures.write_text(
            "".join(
                json.dumps(r | {"stage": stages.get(r["qid"], r["stage"])}, ensure_ascii=False) + "\n" for r in rows
            ),
            encoding="utf-8",
        )
    print(json.dumps(report["answers"]["answerable"]["misses_by_stage"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
