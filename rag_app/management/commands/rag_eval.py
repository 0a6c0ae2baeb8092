"""`manage.py rag_eval --dataset FILE [--distractors FILE ...] [--limit N] [--json] [--seed 0]`: the evaluation
protocol.

FILE is a SQuAD-layout file (split in halves, ../shared/eval-data/README.md) or a natural-question
set (real documents plus questions, eval-data/natural/README.md); evaluation.load_dataset tells
them apart by content.

The corpus is never built in the user's database. This command re-runs itself in child
processes whose DATABASE_URL points at a SQLite file of its own under var/rag_eval/ (cached by
dataset hash, split seed, distractor files and index settings; --rebuild forces a new one): one child migrates and
ingests, the next asks the questions and prints the report.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from rag_app import evaluation
from rag_app.management.commands._options import positive_option
from rag_app.validation import positive_int

PHASES = ("build", "evaluate")


class Command(BaseCommand):
    help = "Run the evaluation protocol on a SQuAD-layout file or a natural-question set, in a separate database."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--dataset", required=True, type=Path, help="SQuAD v1.1-layout JSON file or natural-question set"
        )
        parser.add_argument(
            "--limit", type=positive_int, default=None, help="sample this many questions (half per group)"
        )
        parser.add_argument("--seed", type=int, default=0, help="split shuffle seed (protocol: 0)")
        parser.add_argument("--json", action="store_true", help="print the report as JSON")
        parser.add_argument("--out", type=Path, default=None, help="also write the JSON report to this file")
        parser.add_argument("--cache-dir", type=Path, default=None, help="where built corpora live (var/rag_eval)")
        parser.add_argument("--rebuild", action="store_true", help="rebuild the corpus even if cached")
        parser.add_argument(
            "--answers", action="store_true", help="also ask every question (services.ask) and score the answers"
        )
        parser.add_argument(
            "--mode", choices=["extractive", "llm"], default=None, help="generator for the answers (implies --answers)"
        )
        parser.add_argument(
            "--distractors",
            action="append",
            type=Path,
            default=[],
            metavar="FILE",
            help="also ingest every article of this SQuAD-layout file (no question is about them): the same "
            "questions asked of a larger corpus; repeatable",
        )
        parser.add_argument("--phase", choices=PHASES, default=None, help="internal: run one phase in this process")

    def handle(self, *args: Any, **opts: Any) -> None:
        for key in ("dataset", "out", "cache_dir"):  # call_command passes strings through untyped
            if opts[key] is not None:
                opts[key] = Path(opts[key])
        opts["distractors"] = [Path(p) for p in opts.get("distractors") or []]
        positive_option(opts, "limit")
        dataset: Path = opts["dataset"]
        for path in (dataset, *opts["distractors"]):
            if not path.is_file():
                raise CommandError(f"no such dataset file: {path}")
        try:
            protocol = evaluation.load_dataset(dataset, seed=opts["seed"])
        except (ValueError, KeyError, TypeError, OSError) as exc:
            raise CommandError(f"{dataset} is neither a SQuAD-layout file nor a natural-question set: {exc}") from None
        try:
            distractors = evaluation.load_distractors(opts["distractors"], protocol)
        except (ValueError, KeyError, TypeError, OSError) as exc:
            raise CommandError(f"--distractors: not a SQuAD-layout file: {exc}") from None
        if opts["phase"] == "build":
            self._build(protocol, distractors)
        elif opts["phase"] == "evaluate":
            self._evaluate(protocol, opts)
        else:
            self._orchestrate(dataset, protocol, opts)

    # --- parent: pick the database file, run the phases in children ------------------------------

    def _orchestrate(
        self, dataset: Path, protocol: evaluation.Protocol | evaluation.NaturalSet, opts: dict[str, Any]
    ) -> None:
        cache_dir: Path = opts["cache_dir"] or Path(settings.BASE_DIR) / "var" / "rag_eval"
        cache_dir.mkdir(parents=True, exist_ok=True)
        db_path = evaluation.corpus_file(
            dataset,
            protocol,
            seed=opts["seed"],
            rag_settings=settings.RAG,
            cache_dir=cache_dir,
            distractors=opts["distractors"],
        )
        if opts["rebuild"] or not db_path.exists():
            tmp = db_path.with_suffix(".building")
            for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
                leftover.unlink(missing_ok=True)
            self.stderr.write(f"building the corpus in {db_path.name} ...")
            self._child(dataset, opts, tmp, "build")
            os.replace(tmp, db_path)
        else:
            self.stderr.write(f"using the cached corpus {db_path.name}")
        self._child(dataset, opts, db_path, "evaluate")

    def _child(self, dataset: Path, opts: dict[str, Any], db_path: Path, phase: str) -> None:
        argv = [sys.executable, str(Path(settings.BASE_DIR) / "manage.py"), "rag_eval", "--dataset", str(dataset)]
        argv += ["--seed", str(opts["seed"]), "--phase", phase]
        if opts["limit"] is not None:
            argv += ["--limit", str(opts["limit"])]
        if opts["json"]:
            argv.append("--json")
        if opts["out"] is not None:
            argv += ["--out", str(opts["out"])]
        if opts["answers"] or opts["mode"]:
            argv += ["--answers"] + (["--mode", opts["mode"]] if opts["mode"] else [])
        for path in opts["distractors"]:
            argv += ["--distractors", str(path)]
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{db_path}"}
        done = subprocess.run(argv, env=env, cwd=settings.BASE_DIR, check=False)
        if done.returncode != 0:
            raise CommandError(f"rag_eval {phase} phase failed (exit status {done.returncode})")

    # --- children: run against the eval database ----------------------------------------------

    def _build(
        self, protocol: evaluation.Protocol | evaluation.NaturalSet, distractors: tuple[evaluation.Article, ...]
    ) -> None:
        import logging

        from django.core.management import call_command

        logging.getLogger("rag_app.ingest").setLevel(logging.WARNING)  # one line per document is noise here
        call_command("migrate", verbosity=0, interactive=False)
        chunks = evaluation.build_corpus(protocol, distractors=distractors, progress=self._progress("ingest"))
        extra = f" and {len(distractors)} distractors" if distractors else ""
        self.stderr.write(f"\ningested {len(protocol.ingested)} documents{extra}, {chunks} chunks")

    def _evaluate(self, protocol: evaluation.Protocol | evaluation.NaturalSet, opts: dict[str, Any]) -> None:
        from django.core.management import call_command

        from rag_app.search.hybrid import retrieve

        # A cached corpus outlives schema changes that do not touch the index (a new table or column).
        call_command("migrate", verbosity=0, interactive=False)

        cases = protocol.cases(limit=opts["limit"], seed=opts["seed"])
        retrieve(user=None, question="warm-up 预热")  # loads the jieba dictionary outside the timings
        report, _ = evaluation.evaluate_retrieval(
            cases,
            retrieve=lambda q: retrieve(user=None, question=q),
            threshold=float(settings.RAG["MIN_RELEVANCE"]),
            progress=self._progress("retrieve"),
        )
        self.stderr.write("")
        report = {"dataset": str(opts["dataset"]), "seed": opts["seed"], "retrieval": report}
        if opts["distractors"]:
            from rag_app.models import Document

            report["distractors"] = [str(p) for p in opts["distractors"]]
            report["documents"] = Document.objects.count()
        if opts["answers"] or opts["mode"]:
            from rag_app.evaluation_answers import evaluate_answers  # answer metrics (issue 7)

            report["answers"] = evaluate_answers(
                cases, mode=opts["mode"], out=opts["out"], progress=self._progress("ask")
            )
            self.stderr.write("")
        text = json.dumps(report, ensure_ascii=False, indent=2)
        if opts["out"] is not None:
            opts["out"].parent.mkdir(parents=True, exist_ok=True)
            opts["out"].write_text(text + "\n", encoding="utf-8")
        table = evaluation.retrieval_table(report["retrieval"])
        if "answers" in report:
            from rag_app.evaluation_answers import answer_table

            table += "\n\n" + answer_table(report["answers"])
        self.stdout.write(text if opts["json"] else table)

    def _progress(self, label: str) -> Any:
        def report(done: int, total: int) -> None:
            if done == total or done % 100 == 0:
                self.stderr.write(f"\r{label} {done}/{total}", ending="")
                self.stderr.flush()

        return report
