"""Ingest as jobs: an upload becomes an IngestJob row and a Celery task; a worker runs the job.

One ingest rule: a job runs rag_app.ingest.service.document_ingest, the function the CLI and `?wait=1`
call directly. What this module adds is the job's life cycle:

- `ingest_job_create` checks what needs no file (source_id rules, the uploader's reach, level, url,
  dates) and refuses a bad request before anything is stored; a file that cannot be ingested (too
  large, unsupported type, empty) becomes a job that failed with its reason, so in a batch of files
  each fails alone.
- `ingest_job_enqueue` publishes the task. A broker that is down raises BrokerUnavailable at once
  (publishing never retries), and the job row is deleted: nothing is stored half.
- `ingest_job_run` (the worker) claims the job, ingests with progress, and marks it done inside the
  ingest's own write transaction, so "done" and the new version commit together. A finished job is
  never run again (a redelivered message does nothing); a job whose run died mid-way (worker
  killed) is still `running` and runs again from the start: the write transaction rolled back.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from rag_app import access
from rag_app.ingest.parsers import (
    EmptyDocument,
    FileTooLarge,
    ParseError,
    UnsupportedFileType,
    file_type_problem,
    is_supported,
)
from rag_app.ingest.service import (
    UNCHANGED,
    IngestError,
    IngestResult,
    IngestUnavailable,
    check_request,
    check_upload_size,
    document_ingest,
)
from rag_app.models import IngestJob, SourceLevel
from rag_app.validation import canonical_source_id, shown_name, storable

log = logging.getLogger(__name__)

_UNSET = UNCHANGED
# Progress is written at most this often (seconds) while chunks are embedded; the end is always written.
PROGRESS_INTERVAL = 0.5
RECENT_JOBS = 20


class BrokerUnavailable(Exception):
    """The task queue cannot be reached: nothing was queued and nothing stored."""

    code = "broker_unavailable"

    def __init__(self, detail: str = "") -> None:
        super().__init__(
            "The ingest queue is not reachable, so the file was not accepted; nothing was stored. Try again"
            " in a moment, or ask an operator to check the broker (CELERY_BROKER_URL)."
        )
        self.detail = detail


class JobMissing(Exception):
    """The task names a job that is not (yet) in the database."""


@dataclass(frozen=True)
class JobFailure:
    """Why a job failed: `code` for programs; `message` in English (the API's, the CLI's and the log's words). With
    `params` (even empty), `message` is a sentence marked for translation (gettext_noop) and `params` its values: the
    job keeps both, so that a page says it in the reader's language whenever it is read (presentation.job_failure)."""

    code: str
    message: str
    params: Mapping[str, str | int] | None = None

    @classmethod
    def of(cls, exc: Exception) -> JobFailure:
        """A parser's or the ingest's refusal (a ParseError keeps its sentence and values apart, and so does an
        IngestError made with a `template`: an access group refused as the worker runs the job)."""
        code = getattr(exc, "code", "invalid")
        if isinstance(exc, ParseError):
            return cls(code, exc.message, dict(exc.params))
        if isinstance(exc, IngestError) and exc.template:
            return cls(code, exc.template, dict(exc.params))
        return cls(code, str(exc))

    @property
    def english(self) -> str:
        return self.message % self.params if self.params else self.message


# --- create and queue ---------------------------------------------------------------------------


def ingest_job_create(
    *,
    user: Any,
    file_name: str,
    size: int,
    read: Any,
    source_id: str | None = None,
    title: str | None = None,
    url: str | None = None,
    level: str | object | None = _UNSET,
    groups: Iterable[str] | None = None,
    effective_from: dt.date | None = None,
    effective_until: dt.date | None = None,
) -> IngestJob:
    """A queued job for one file (or one that failed at once with the file's problem); not yet published.

    `read()` returns the file's bytes; it is not called for a file over RAG_MAX_UPLOAD_BYTES or of an
    unsupported type. `user` None is the operator (CLI). Raises IngestError (bad source_id, level, url,
    dates) and DocumentNotFound (a source_id the uploader may not see) before anything is stored.
    """
    source_id = canonical_source_id(source_id or file_name)
    level_obj = check_request(
        source_id=source_id,
        uploader=user,
        file_name=file_name,
        title=title,
        url=url,
        level=level,
        effective_from=effective_from,
        effective_until=effective_until,
        groups=groups,
    )
    options: dict[str, Any] = {
        "title": title,
        "url": url,
        "effective_from": effective_from.isoformat() if effective_from else None,
        "effective_until": effective_until.isoformat() if effective_until else None,
    }
    if level is not _UNSET:
        options["level"] = level
        # The row too: a slug renamed before a worker takes the job still names the level the uploader chose.
        options["level_pk"] = level_obj.pk if isinstance(level_obj, SourceLevel) else None
    if groups is not None:
        options["groups"] = list(groups)
    job = IngestJob(
        **access.author(user),
        source_id=source_id,
        file_name=(shown_name(storable(file_name)) or "")[:500],
        size_bytes=size,
        options=options,
        task_id=str(uuid.uuid4()),
    )
    failure = _file_problem(file_name, size)
    data = b""
    if failure is None:
        data = bytes(read())
        if not data.strip():
            failure = JobFailure.of(EmptyDocument(gettext_noop("the file is empty")))
    if failure is not None:
        _set_failed(job, failure)
        job.save()
        return job
    job.payload = data
    job.sha256 = hashlib.sha256(data).hexdigest()
    job.save()
    return job


def _file_problem(file_name: str, size: int) -> JobFailure | None:
    """What can be known about a file without reading it."""
    try:
        check_upload_size(size)
    except FileTooLarge as exc:
        return JobFailure.of(exc)
    if (problem := file_type_problem(file_name)) is not None:
        return JobFailure.of(problem)
    if not is_supported(file_name):  # an Office lock file ("~$report.docx")
        return JobFailure.of(
            UnsupportedFileType(gettext_noop("unsupported file type: %(name)s"), name=repr(file_name[-100:]))
        )
    return None


def ingest_job_enqueue(job: IngestJob) -> IngestJob:
    """Publish the job's task (a failed job is left as it is). BrokerUnavailable: the job is deleted."""
    if job.state != IngestJob.State.QUEUED:
        return job
    from rag_app.tasks import ingest_file

    try:
        ingest_file.apply_async(args=[job.pk], task_id=job.task_id, retry=False)
    except Exception as exc:
        if not is_broker_error(exc):
            raise
        log.warning("ingest job %s not queued: broker unreachable (%s)", job.pk, exc)
        IngestJob.objects.filter(pk=job.pk).delete()
        raise BrokerUnavailable(str(exc)) from exc
    return job


def is_broker_error(exc: BaseException) -> bool:
    """A connection problem with the broker (kombu wraps most; redis-py and socket errors may come raw)."""
    from kombu.exceptions import OperationalError as KombuOperationalError

    if isinstance(exc, KombuOperationalError | ConnectionError | TimeoutError | OSError):
        return True
    try:
        from redis.exceptions import ConnectionError as RedisConnectionError
        from redis.exceptions import TimeoutError as RedisTimeoutError
    except ImportError:  # pragma: no cover - redis comes with celery[redis]
        return False
    return isinstance(exc, RedisConnectionError | RedisTimeoutError)


def ingest_jobs_submit(*, user: Any, files: Iterable[Mapping[str, Any]], **options: Any) -> list[IngestJob]:
    """Create and queue one job per file (`{"file_name", "size", "read", "source_id"?}`), in order.

    A file the uploader may not write (DocumentNotFound) or a bad request (IngestError) raises before
    any of them is stored; a file that cannot be ingested is a failed job among the others. When the
    broker is down, the jobs created so far are deleted and BrokerUnavailable raised.
    """
    files = list(files)
    named: set[str] = set()
    for item in files:  # every request-level check first: all or nothing
        source_id = canonical_source_id(item.get("source_id") or item["file_name"])
        try:
            check_request(source_id=source_id, uploader=user, file_name=item["file_name"], **_request_options(options))
        except IngestError as exc:
            if len(files) == 1:
                raise
            # One of many: say which (with 30 files the admin could not tell).
            message = _("%(file)s: %(problem)s") % {"file": repr(item["file_name"]), "problem": exc}
            raise IngestError(message, exc.code, field=exc.field) from None
        if source_id in named:
            # Two files of one name (a browser sends base names: hr/policy.txt and it/policy.txt) would silently
            # become versions 1 and 2 of one document, the first no longer answering anything.
            message = _(
                "Two files are named %(file)s: the second would replace the first as a new version of one document."
                " Upload them separately, each with its own source_id."
            )
            raise IngestError(message % {"file": repr(item["file_name"])}, "duplicate_source_id")
        named.add(source_id)
    jobs: list[IngestJob] = []
    try:
        for item in files:
            job = ingest_job_create(user=user, **item, **options)
            jobs.append(ingest_job_enqueue(job))
    except BrokerUnavailable:
        IngestJob.objects.filter(pk__in=[job.pk for job in jobs]).delete()
        raise
    return jobs


def _request_options(options: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("title", "url", "level", "effective_from", "effective_until")
    return {key: options[key] for key in keys if key in options}


# --- read ---------------------------------------------------------------------------------------


def ingest_jobs_visible(*, user: Any) -> QuerySet[IngestJob]:
    """The jobs `user` may see (access.ingest_job_q), newest first, without the payload bytes."""
    return IngestJob.objects.filter(access.ingest_job_q(user)).defer("payload").order_by("-created_at", "-id")


def ingest_job_get(*, user: Any, job_id: int) -> IngestJob | None:
    return ingest_jobs_visible(user=user).filter(pk=job_id).first()


def ingest_jobs_recent(*, user: Any, limit: int = RECENT_JOBS) -> list[IngestJob]:
    """The user's own latest jobs: what the upload page follows."""
    if not getattr(user, "is_authenticated", False):
        return []
    jobs = IngestJob.objects.filter(user=user).defer("payload").select_related("version__document")
    return list(jobs.order_by("-created_at", "-id")[:limit])


def job_payload(job: IngestJob) -> dict[str, Any]:
    """The job as every surface shows it (API JSON, page, CLI)."""
    return {
        "id": job.pk,
        "state": job.state,
        "kind": job.kind,
        "source_id": job.source_id,
        "file_name": job.file_name,
        "progress": {"done": job.progress_done, "total": job.progress_total},
        "results": list(job.results or []),
        "created_at": job.created_at,
        "started_at": job.started_at,
        "finished_at": job.finished_at,
    }


# --- run (the worker) ---------------------------------------------------------------------------


def ingest_job_run(*, job_id: int, retried: int = 0) -> IngestJob:
    """Run one job to its end: done (with the ingest line) or failed (with the reason).

    Transient errors (database busy or gone, embedding server unreachable: IngestUnavailable) propagate, so
    the task retries them with backoff; the job stays `running` meanwhile. JobMissing if there is no such job.
    `retried`: how many earlier starts the task retried after a transient error (job_claim).
    """
    job = IngestJob.objects.filter(pk=job_id).first()
    if job is None:
        raise JobMissing(job_id)
    if job.state in (IngestJob.State.DONE, IngestJob.State.FAILED):
        log.info("ingest job %s is already %s: nothing to do", job.pk, job.state)
        return job
    if not job_claim(job, retried=retried):
        return IngestJob.objects.defer("payload").get(pk=job.pk)
    failure = _uploader_refused(job)
    if failure is not None:
        return ingest_job_fail(job_id=job.pk, code=failure.code, message=failure.message, params=failure.params)
    options = dict(job.options or {})
    kwargs: dict[str, Any] = {}
    if "level" in options:
        kwargs["level"] = slug = _level_slug(options)
        if slug is _GONE:
            message = gettext_noop("the level %(level)s chosen for this file was deleted before it was read")
            return ingest_job_fail(
                job_id=job.pk, code="unknown_level", message=message, params={"level": repr(options["level"])}
            )
    if "groups" in options:
        kwargs["groups"] = options["groups"]
    try:
        document_ingest(
            data=bytes(job.payload or b""),
            file_name=job.file_name,
            source_id=job.source_id,
            title=options.get("title"),
            url=options.get("url"),
            effective_from=_date(options.get("effective_from")),
            effective_until=_date(options.get("effective_until")),
            uploader=job.user,
            progress=JobProgress(job.pk),
            on_write=lambda result: _finish(job.pk, result),
            groups_as_of=job.created_at,
            **kwargs,
        )
    except IngestUnavailable:
        raise  # nothing was stored; the task tries again (rag_app.tasks), then fails the job with this code
    except (ParseError, IngestError) as exc:
        # The file or the request is wrong: final, never retried.
        failure = JobFailure.of(exc)
        return ingest_job_fail(job_id=job.pk, code=failure.code, message=failure.message, params=failure.params)
    return IngestJob.objects.defer("payload").get(pk=job.pk)


_GONE: Any = object()


def _level_slug(options: dict[str, Any]) -> Any:
    """The slug of the level the uploader chose, as it is now (renamed since: its new slug; deleted: _GONE, never
    another level that took its slug). Jobs queued before the key was kept name the slug only."""
    slug, pk = options.get("level"), options.get("level_pk")
    if slug is None or pk is None:
        return slug
    return SourceLevel.objects.filter(pk=pk).values_list("slug", flat=True).first() or _GONE


def _date(value: Any) -> dt.date | None:
    return dt.date.fromisoformat(value) if value else None


def _uploader_refused(job: IngestJob) -> JobFailure | None:
    """A job queued by an account deleted since must not run as the operator (user None); one whose account may no
    longer upload (deactivated, or out of the admin role: access.is_admin, the rule the upload page and the API apply
    as the file is sent) must not run as them. A leaver's files queued behind a long one were ingested after they left.
    """
    account = {"account": repr(job.username)}
    if job.user_id is None and job.username:
        return JobFailure(
            "uploader_gone", gettext_noop("the account %(account)s that queued this file no longer exists"), account
        )
    if job.user is not None and not access.is_admin(job.user):
        message = gettext_noop(
            "the account %(account)s that queued this file may no longer upload (inactive or not an admin)"
        )
        return JobFailure("uploader_not_allowed", message, account)
    return None


def job_claim(job: IngestJob, *, retried: int = 0) -> bool:
    """Mark the job running (first start kept) and count the attempt. A row another run holds locked is
    left alone (that run records the outcome), and so is a finished one.

    Returns False, with the job failed (`worker_lost`), when it has already been started more times than
    RAG_INGEST_RETRIES allows without any run recording an outcome: a file that kills the worker process
    reading it would otherwise be redelivered (acks_late) and kill one for ever, the job "running". `retried`:
    the earlier starts that did end, in a transient error the task retried (the task's own retry count, which has
    its own bound); they are not starts the worker was lost in. The count also holds the few retries of a task that
    ran before its job's row was visible (tasks._MISSING_JOB_TRIES, before any start), so in that race a job may be
    started up to that many more times before it is failed as `worker_lost`."""
    now = timezone.now()
    with transaction.atomic():
        locked = list(
            IngestJob.objects.select_for_update(skip_locked=True)
            .filter(pk=job.pk, state__in=[IngestJob.State.QUEUED, IngestJob.State.RUNNING])
            .values_list("pk", "started_at", "attempts")
        )
        lost = locked[0][2] - retried if locked else 0
        if lost > int(settings.RAG["INGEST_RETRIES"]):
            message = gettext_noop("the worker stopped %(times)s times while running this job; it was not tried again")
            failure = JobFailure("worker_lost", message, {"times": lost})
            failed = IngestJob.objects.defer("payload").get(pk=job.pk)
            _set_failed(failed, failure)
            failed.save(update_fields=["state", "results", "error_code", "error", "finished_at", "payload"])
            log.error("job %s: %s", job.pk, failure.english)
            return False
        if locked:
            IngestJob.objects.filter(pk=job.pk).update(
                state=IngestJob.State.RUNNING,
                started_at=locked[0][1] or now,
                attempts=F("attempts") + 1,
                progress_done=0,
            )
    return True


class JobProgress:
    """Writes done/total at most every PROGRESS_INTERVAL seconds, and always the last step. It skips a
    row another transaction holds (progress is a hint; the outcome is written under the lock)."""

    def __init__(self, job_id: int) -> None:
        self.job_id = job_id
        self.last = 0.0

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and done > 0 and now - self.last < PROGRESS_INTERVAL:
            return
        self.last = now
        with transaction.atomic():
            pks = list(
                IngestJob.objects.select_for_update(skip_locked=True)
                .filter(pk=self.job_id, state=IngestJob.State.RUNNING)
                .values_list("pk", flat=True)
            )
            if pks:
                IngestJob.objects.filter(pk__in=pks).update(progress_done=done, progress_total=total)


def _finish(job_id: int, result: IngestResult) -> None:
    """Inside the ingest's write transaction: the job is done with this result, unless another run of
    the same job already recorded one (then that stays, and this run's write was a no-op: unchanged)."""
    job = IngestJob.objects.select_for_update().defer("payload").get(pk=job_id)
    if job.state in (IngestJob.State.DONE, IngestJob.State.FAILED):
        return
    IngestJob.objects.filter(pk=job_id).update(
        state=IngestJob.State.DONE,
        results=[{**result.as_dict(), "line": result.line()}],
        version_id=result.version_id,
        progress_done=result.chunks,
        progress_total=result.chunks,
        finished_at=timezone.now(),
        payload=None,
        error_code="",
        error="",
    )


def ingest_job_fail(
    *, job_id: int, code: str, message: str, params: Mapping[str, str | int] | None = None
) -> IngestJob:
    """Record the failure and its reason (a finished job keeps its outcome); the file's bytes are dropped.

    `message` in English; with `params`, a sentence marked for translation and its values (JobFailure)."""
    failure = JobFailure(code, message, params)
    with transaction.atomic():
        job = IngestJob.objects.select_for_update().defer("payload").get(pk=job_id)
        if job.state not in (IngestJob.State.DONE, IngestJob.State.FAILED):
            _set_failed(job, failure)
            job.save(update_fields=["state", "results", "error_code", "error", "finished_at", "payload"])
    log.info("ingest job %s failed: %s %s", job_id, code, failure.english)
    return job


def _set_failed(job: IngestJob, failure: JobFailure) -> None:
    """The job failed: `message` is the English (the API's), `template` and `params` what a page translates."""
    message = storable(failure.english)  # it may quote a server's or a file's text
    job.state = IngestJob.State.FAILED
    job.error_code = failure.code[:50]
    job.error = message
    result: dict[str, Any] = {
        "source_id": job.source_id,
        "status": "error",
        "error": failure.code,
        "message": message,
        "line": f"{job.source_id} error {failure.code}: {message}",
    }
    if failure.params is not None:
        result["template"] = failure.message
        result["params"] = {key: _param(value) for key, value in failure.params.items()}
    job.results = [result]
    job.finished_at = timezone.now()
    job.payload = None


def _param(value: str | int) -> str | int:
    return value if isinstance(value, int) else storable(str(value))


def retry_delay(retries: int) -> int:
    """Seconds before try `retries + 1`: 2, 4, 8, ... capped at RAG_INGEST_RETRY_MAX_SECONDS."""
    return int(min(2 ** (retries + 1), int(settings.RAG["INGEST_RETRY_MAX_SECONDS"])))
