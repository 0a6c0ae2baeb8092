"""The first question a fresh process answers, with and without warming up (rag_app/services/warmup.py).

A process loads jieba's dictionary, the translation dictionary, the pinyin table, the common-word table,
the embedder and the stored vectors the first time a question needs them. The web server now loads them
in a background thread when it starts (config/wsgi.py). Each round starts three fresh processes on the
same corpus database, each mode first in turn:
- cold: the first question straight after Django's set-up (as before the warm-up);
- warmed: after `warmup.warm_up()` has run (what a user meets once the warm-up is done);
- during: the warm-up started in a thread, as the server does, and the question asked at once.
Each then asks LATER more questions, whose median is the same run's baseline for an ask once everything
is loaded. Asks go through rag_app.services.ask (extractive, a staff user) and are stored in that corpus
database, as rag_eval's own are.

    DEBUG=1 OMP_WAIT_POLICY=PASSIVE .venv/bin/python bench/first_ask.py \
        --database var/rag_eval/corpus-<key>.sqlite3 [--dataset eval-data/natural/questions.json] \
        [--rounds 7] [--out docs/bench/first_ask.json]

The corpus database is one `manage.py rag_eval --dataset eval-data/natural/questions.json` builds (the
natural set's three corpora with their vectors).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
LATER = 5
MODES = ("cold", "warmed", "during")


def _child(mode: str, questions: list[str]) -> dict[str, object]:
    began = time.perf_counter()
    sys.path.insert(0, str(ROOT))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth.models import Group, User

    from rag_app.services import ask, warmup

    setup_ms = 1000 * (time.perf_counter() - began)
    user, _ = User.objects.get_or_create(username="first_ask_bench")
    user.groups.add(Group.objects.get_or_create(name="staff")[0])
    steps: dict[str, float] = {}
    warm_ms = 0.0
    if mode == "warmed":
        t = time.perf_counter()
        steps = warmup.warm_up()
        warm_ms = 1000 * (time.perf_counter() - t)
    elif mode == "during":
        # What the server does when it loads, with the first question right behind it.
        threading.Thread(target=warmup.warm_up, daemon=True).start()
    times = []
    for question in questions:
        t = time.perf_counter()
        ask(user=user, question=question, mode="extractive")
        times.append(1000 * (time.perf_counter() - t))
    return {"mode": mode, "setup_ms": setup_ms, "warm_up_ms": warm_ms, "steps": steps, "asks_ms": times}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database", required=True)
    parser.add_argument("--dataset", default=str(ROOT / "eval-data" / "natural" / "questions.json"))
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    parser.add_argument("--questions", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(_child(args.child, json.loads(args.questions))))
        return
    data = json.loads(Path(args.dataset).read_text(encoding="utf-8"))
    pool = [q["question"] for q in data["questions"]]
    rng = random.Random(args.seed)
    env = dict(os.environ, DATABASE_URL=f"sqlite:///{Path(args.database).resolve()}", RAG_WARM_UP="false")
    runs: list[dict[str, Any]] = []
    for r in range(args.rounds):
        questions = rng.sample(pool, 1 + LATER)
        order = MODES[r % len(MODES) :] + MODES[: r % len(MODES)]  # each mode first in turn
        for mode in order:
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--database",
                    args.database,
                    "--child",
                    mode,
                    "--questions",
                    json.dumps(questions),
                ],
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                check=True,
            )
            run = json.loads(out.stdout.strip().splitlines()[-1])
            run["round"] = r
            runs.append(run)
            print(
                f"round {r} {mode}: first ask {run['asks_ms'][0]:.0f} ms, warm-up {run['warm_up_ms']:.0f} ms",
                flush=True,
            )

    def median(mode: str, pick: Callable[[dict[str, Any]], float]) -> float:
        return round(statistics.median(pick(run) for run in runs if run["mode"] == mode), 1)

    later = [t for run in runs for t in run["asks_ms"][1:]]
    summary = {
        "first_ask_cold_ms": median("cold", lambda run: run["asks_ms"][0]),
        "first_ask_warmed_ms": median("warmed", lambda run: run["asks_ms"][0]),
        "first_ask_during_warm_up_ms": median("during", lambda run: run["asks_ms"][0]),
        "later_asks_ms": round(statistics.median(later), 1),
        "warm_up_ms": median("warmed", lambda run: run["warm_up_ms"]),
        "setup_ms": round(statistics.median(run["setup_ms"] for run in runs), 1),
    }
    summary["cold_over_later"] = round(summary["first_ask_cold_ms"] / summary["later_asks_ms"], 2)
    summary["warmed_over_later"] = round(summary["first_ask_warmed_ms"] / summary["later_asks_ms"], 2)
    summary["during_over_cold"] = round(summary["first_ask_during_warm_up_ms"] / summary["first_ask_cold_ms"], 2)
    steps = [run["steps"] for run in runs if run["mode"] == "warmed"]
    summary["warm_up_steps_ms"] = {
        name: round(statistics.median(s[name] for s in steps if name in s), 1) for name in steps[0]
    }
    print(json.dumps(summary, indent=2))
    if args.out:
        record = {
            "command": "DEBUG=1 OMP_WAIT_POLICY=PASSIVE .venv/bin/python bench/first_ask.py --database "
            f"{args.database} --rounds {args.rounds} --out {args.out}",
            "rounds": args.rounds,
            "later_per_process": LATER,
            "summary": summary,
            "runs": runs,
        }
        Path(args.out).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
