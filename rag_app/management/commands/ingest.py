"""`manage.py ingest PATH... [options]`: ingest files and folders (recursively), one line per file.

Default source_id: the file's path relative to the folder argument (posix separators), or the
file name for a file argument. Each file is its own transaction; a bad file gets an error line
and the others continue; the exit status is 1 if any file failed (CommandError). On a terminal,
tqdm shows the files done and, while a file is embedded, its chunks.

`--queue` hands each file to the Celery workers instead (an IngestJob each, as a web upload does),
prints `<source_id> job <id> queued` per file and returns; a file that cannot be ingested fails its
own job at once. A broker that is down stops the command with a clear error.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser, no_translations

from rag_app import database
from rag_app.ingest.parsers import LegacyFormat, ParseError, extensions_label, file_type_problem, is_supported
from rag_app.ingest.service import IngestError, IngestResult, check_upload_size, document_ingest, resolve_level
from rag_app.management.commands._options import DatabaseCommand
from rag_app.models import IngestJob
from rag_app.services.ingest_jobs import BrokerUnavailable, ingest_job_create, ingest_job_enqueue
from rag_app.validation import source_id_problem, storable

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class _Item:
    path: Path
    source_id: str


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise CommandError(f"{value!r} is not a date (use YYYY-MM-DD)") from None


class Command(DatabaseCommand):
    help = "Ingest .txt/.md/.html/.pdf/.docx/.pptx/.xlsx/.csv files or folders (recursively) as versioned documents."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", metavar="PATH", help="files or folders")
        parser.add_argument("--level", help="source level slug (official, reviewed, note, ...)")
        parser.add_argument("--source-id", help="source id (only with a single file)")
        parser.add_argument("--title", help="document title (only with a single file)")
        parser.add_argument("--url", help="document URL (only with a single file)")
        parser.add_argument(
            "--group",
            action="append",
            dest="groups",
            metavar="NAME",
            help="restrict to this group (repeatable); replaces the document's groups. Without it, a new"
            " version keeps the document's groups",
        )
        parser.add_argument(
            "--no-groups", action="store_true", help="open the documents to all staff (remove every access group)"
        )
        parser.add_argument("--no-level", action="store_true", help="take the documents' level away")
        parser.add_argument("--effective-from", metavar="YYYY-MM-DD")
        parser.add_argument("--effective-until", metavar="YYYY-MM-DD")
        parser.add_argument("--json", action="store_true", help="one JSON object per file instead of a text line")
        parser.add_argument(
            "--queue",
            action="store_true",
            help="queue each file as an ingest job for the Celery workers, print the job ids and return"
            " (follow them at /api/v1/ingest-jobs/<id> or on the upload page)",
        )

    @no_translations  # the operator's tool: the input rules' messages in English, whatever ran before in the process
    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["verbosity"] < 2:  # the per-file line says it all; the service's log line would repeat it
            logging.getLogger("rag_app.ingest").setLevel(logging.WARNING)
        items = self._collect([Path(p) for p in opts["paths"]])
        single = len(opts["paths"]) == 1 and len(items) == 1 and Path(opts["paths"][0]).is_file()
        for name in ("source_id", "title", "url"):
            if opts[name] is not None and not single:
                raise CommandError(f"--{name.replace('_', '-')} is only valid with a single file argument")
        if opts["source_id"] is not None:
            items = [_Item(items[0].path, opts["source_id"])]
        if opts["no_groups"] and opts["groups"]:
            raise CommandError("--group and --no-groups contradict each other")
        if opts["no_level"] and opts["level"] is not None:
            raise CommandError("--level and --no-level contradict each other")
        if opts["level"] is not None:
            try:
                resolve_level(opts["level"])  # the service's own check, before any file is read
            except IngestError as exc:
                raise CommandError(str(exc)) from None
        effective_from = _date(opts["effective_from"]) if opts["effective_from"] else None
        effective_until = _date(opts["effective_until"]) if opts["effective_until"] else None
        if effective_from and effective_until and effective_until < effective_from:
            raise CommandError("--effective-until is before --effective-from")
        if not items:
            raise CommandError(f"no supported files found ({extensions_label()})")

        if opts["queue"]:
            self._queue(items, opts, effective_from, effective_until)
            return
        failed = 0
        bar = self._progress(len(items))
        for item in items:
            try:
                result = self._ingest_one(item, opts, effective_from, effective_until)
            except (ParseError, IngestError, OSError) as exc:
                failed += 1
                self._report_error(item, exc, opts["json"], bar)
            except Exception as exc:
                if database.unavailable(exc):  # an outage, not a bug: the error line says it, no traceback
                    exc = database.DatabaseUnavailable(f"{database.message()} ({type(exc).__name__}: {exc})")
                else:
                    log.exception("ingest of %s failed", storable(item.source_id))
                failed += 1
                self._report_error(item, exc, opts["json"], bar)
            else:
                self._emit(json.dumps(result.as_dict(), ensure_ascii=False) if opts["json"] else result.line(), bar)
            if bar is not None:
                bar.update(1)
        if bar is not None:
            bar.close()
        if failed:
            raise CommandError(f"{failed} of {len(items)} files failed")

    def _queue(
        self, items: list[_Item], opts: dict[str, Any], effective_from: dt.date | None, effective_until: dt.date | None
    ) -> None:
        """One job per file, published to the broker; a file that cannot be ingested is a failed job."""
        failed = 0
        for item in items:
            try:
                job = ingest_job_create(
                    user=None,
                    file_name=storable(item.path.name),
                    size=item.path.stat().st_size,
                    read=item.path.read_bytes,
                    source_id=item.source_id,
                    title=opts["title"],
                    url=opts["url"],
                    groups=[] if opts["no_groups"] else opts["groups"],
                    effective_from=effective_from,
                    effective_until=effective_until,
                    **self._level(opts),
                )
                ingest_job_enqueue(job)
            except BrokerUnavailable as exc:
                raise CommandError(f"{exc} ({exc.detail})") from None
            except (IngestError, OSError) as exc:
                failed += 1
                self._report_error(item, exc, opts["json"], None)
                continue
            if job.state == IngestJob.State.FAILED:
                failed += 1
            if opts["json"]:
                self._emit(json.dumps({"source_id": job.source_id, "job": job.pk, "state": job.state}), None)
            elif job.state == IngestJob.State.FAILED:
                self.stderr.write(f"{job.results[0]['line']} (job {job.pk})")
            else:
                self._emit(f"{job.source_id} job {job.pk} {job.state}", None)
        if failed:
            raise CommandError(f"{failed} of {len(items)} files failed")

    def _level(self, opts: dict[str, Any]) -> dict[str, Any]:
        """The level argument only when one was asked for (left out: a document keeps its level)."""
        return {"level": opts["level"]} if opts["level"] is not None or opts["no_level"] else {}

    def _ingest_one(
        self, item: _Item, opts: dict[str, Any], effective_from: dt.date | None, effective_until: dt.date | None
    ) -> IngestResult:
        check_upload_size(item.path.stat().st_size)  # before reading: a huge file is never loaded
        kwargs = self._level(opts)
        return document_ingest(
            progress=self._chunk_progress(item.source_id),
            data=item.path.read_bytes(),
            file_name=storable(item.path.name),
            source_id=item.source_id,
            title=opts["title"],
            url=opts["url"],
            groups=[] if opts["no_groups"] else opts["groups"],
            effective_from=effective_from,
            effective_until=effective_until,
            **kwargs,
        )

    def _collect(self, paths: list[Path]) -> list[_Item]:
        items: list[_Item] = []
        for path in paths:
            if path.is_dir():
                for file in sorted(p for p in path.rglob("*") if p.is_file()):
                    rel = file.relative_to(path)
                    # Hidden files and folders (.git, .DS_Store) and Office's "~$name.docx" lock files
                    # are never documents.
                    if any(part.startswith(".") for part in rel.parts) or file.name.startswith("~$"):
                        continue
                    if not is_supported(file.name):
                        # An old binary Office file is told what to save it as (the parsers' one rule).
                        problem = file_type_problem(file.name)
                        reason = str(problem) if isinstance(problem, LegacyFormat) else "unsupported file type"
                        self.stderr.write(f"skipped {rel.as_posix()}: {reason}")
                        continue
                    items.append(_Item(file, rel.as_posix()))
            elif path.is_file():
                items.append(_Item(path, path.name))
            else:
                raise CommandError(f"{path}: no such file or folder")
        return items

    def _progress(self, total: int) -> Any:
        # A progress bar only for people: on a terminal, for more than a handful of files.
        if total < 5 or not sys.stderr.isatty():
            return None
        from tqdm import tqdm

        return tqdm(total=total, unit="file", file=sys.stderr, leave=False)

    def _chunk_progress(self, label: str) -> Callable[[int, int], None] | None:
        """A bar of one file's chunks while they are embedded (only on a terminal)."""
        if not sys.stderr.isatty():
            return None
        from tqdm import tqdm

        bars: list[Any] = []

        def report(done: int, total: int) -> None:
            if not bars:
                if total == 0 or done >= total:
                    return
                bars.append(tqdm(total=total, unit="chunk", desc=label[-40:], file=sys.stderr, leave=False))
            bars[0].n = done
            bars[0].refresh()
            if done >= total:
                bars[0].close()

        return report

    def _emit(self, line: str, bar: Any) -> None:
        line = storable(line)  # a file name that is not UTF-8 is written with U+FFFD, not a traceback
        if bar is not None:
            bar.write(line, file=self.stdout._out)  # type: ignore[attr-defined]
        else:
            self.stdout.write(line)

    def _report_error(self, item: _Item, exc: Exception, as_json: bool, bar: Any) -> None:
        code = getattr(exc, "code", None) or type(exc).__name__
        message = str(exc) if not isinstance(exc, OSError) else f"{exc.strerror or exc}"
        if as_json:
            payload = {"source_id": item.source_id, "status": "error", "error": code, "message": message}
            self._emit(json.dumps(payload, ensure_ascii=False), bar)
        else:
            # A refused id is shown escaped (as retire/restore show theirs): its control characters, an escape
            # sequence among them, never reach the operator's terminal.
            shown = item.source_id if source_id_problem(item.source_id) is None else repr(item.source_id)
            self.stderr.write(storable(f"{shown} error {code}: {message}"))
