"""Celery tasks: thin wrappers that call the services (the rules live there, not here).

- `ingest_file(job_id)`: run one IngestJob (rag_app.services.ingest_jobs.ingest_job_run).
- `embed_batch(chunk_pks)`: embed current chunks that have no vector yet (rag_app.services.embedding).
- `reindex_document(job_id)`: a REEMBED job (one document's current vectors, replaced in one
  transaction) or a REINDEX job (every current chunk's search tokens brought up to date, as
  `manage.py rag_reindex`).

Every task is acknowledged late and put back on the queue if its worker process dies (settings:
CELERY_TASK_ACKS_LATE, CELERY_TASK_REJECT_ON_WORKER_LOST), and is safe to run twice: a finished job
is not run again, and a version is written in one transaction with its job's outcome. Transient
failures (the database busy or unreachable, the embedding server unreachable) are retried with
exponential backoff, RAG_INGEST_RETRIES times; then the job fails with the last error as its reason
(code `embedder_unavailable` for the embedding server, `transient_error` for the rest).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from celery import Task, shared_task
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections
from django.utils.translation import gettext_noop

from rag_app import database
from rag_app.ingest.service import IngestUnavailable
from rag_app.models import IngestJob
from rag_app.search.dense import EmbedderMismatch, EmbedderUnavailable, EmbeddingError
from rag_app.services import embedding
from rag_app.services.ingest_jobs import JobMissing, ingest_job_fail, ingest_job_run, retry_delay

log = logging.getLogger(__name__)

# Seconds and tries a task waits for its job row (published by a web node before its commit was seen).
_MISSING_JOB_TRIES = 5


def _transient() -> tuple[type[BaseException], ...]:
    """Failures worth another try: the database or a server the work depends on was briefly away."""
    kinds: list[type[BaseException]] = [OperationalError, InterfaceError, ConnectionError, TimeoutError]
    # The embedding server, after the embedder's own retries: raw (re-embedding) or as the ingest's error.
    kinds += [EmbedderUnavailable, IngestUnavailable]
    try:
        import openai

        kinds += [openai.APIConnectionError, openai.APITimeoutError, openai.InternalServerError, openai.RateLimitError]
    except ImportError:  # pragma: no cover - openai is a requirement
        pass
    return tuple(kinds)


TRANSIENT = _transient()


def _max_retries() -> int:
    return int(settings.RAG["INGEST_RETRIES"])


def _run_job(task: Task, job_id: int, run: Callable[[int, int], IngestJob], what: str) -> str:
    """Run one job with the rules every job task shares: wait a few tries for a row not yet visible,
    retry transient failures with backoff (then fail the job with the last error), and fail the job
    with a reason on anything else. Returns the job's final state, or "missing"."""
    close_old_connections()
    retries = int(task.request.retries or 0)
    try:
        return str(run(job_id, retries).state)
    except JobMissing:
        if retries < _MISSING_JOB_TRIES:
            raise task.retry(countdown=1) from None
        log.warning("%s job %s does not exist; the task is dropped", what, job_id)
        return "missing"
    except TRANSIENT as exc:  # before EmbeddingError: EmbedderUnavailable is one
        return _try_again(task, job_id, retries, exc, what)
    except (EmbedderMismatch, EmbeddingError) as exc:  # a re-embedding the server refuses, or another model's vectors
        return str(ingest_job_fail(job_id=job_id, code=exc.code, message=str(exc)).state)
    except Exception as exc:
        if database.unavailable(exc):  # an outage the driver reports otherwise (PostgreSQL read-only: InternalError)
            return _try_again(task, job_id, retries, exc, what)
        # A bug, not bad input: the job fails with a reason instead of staying "running" for ever.
        log.exception("%s job %s failed unexpectedly", what, job_id)
        return str(ingest_job_fail(job_id=job_id, code="internal_error", message=f"{type(exc).__name__}: {exc}").state)


def _try_again(task: Task, job_id: int, retries: int, exc: BaseException, what: str) -> str:
    """A transient failure: the task again after a backoff, or, after RAG_INGEST_RETRIES, the job failed with it."""
    close_old_connections()
    if retries >= _max_retries():
        message = gettext_noop("gave up after %(tries)s tries: %(error)s")
        params: dict[str, str | int] = {"tries": retries + 1, "error": f"{type(exc).__name__}: {exc}"}
        code = exc.code if isinstance(exc, EmbedderUnavailable | IngestUnavailable) else "transient_error"
        return str(ingest_job_fail(job_id=job_id, code=code, message=message, params=params).state)
    log.warning("%s job %s: %s (try %s); retrying", what, job_id, exc, retries + 1)
    raise task.retry(exc=exc, countdown=retry_delay(retries)) from None


@shared_task(bind=True, name="rag_app.ingest_file", acks_late=True, reject_on_worker_lost=True, max_retries=None)
def ingest_file(self: Task, job_id: int) -> str:
    """Ingest the file of IngestJob `job_id`; returns the job's final state."""
    return _run_job(self, job_id, lambda pk, retried: ingest_job_run(job_id=pk, retried=retried), "ingest")


@shared_task(bind=True, name="rag_app.embed_batch", acks_late=True, reject_on_worker_lost=True, max_retries=None)
def embed_batch(self: Task, chunk_pks: list[int]) -> int:
    """Embed the given chunks that are current and have no vector; returns how many were stored."""
    close_old_connections()
    retries = int(self.request.retries or 0)
    try:
        return embedding.chunks_embed(chunk_pks=chunk_pks)
    except TRANSIENT as exc:
        close_old_connections()
        if retries >= _max_retries():
            log.error("embed_batch gave up after %s tries: %s", retries + 1, exc)
            raise
        raise self.retry(exc=exc, countdown=retry_delay(retries)) from None


@shared_task(bind=True, name="rag_app.reindex_document", acks_late=True, reject_on_worker_lost=True, max_retries=None)
def reindex_document(self: Task, job_id: int) -> str:
    """Run a REEMBED or REINDEX job (rag_app.services.embedding.reindex_job_run)."""
    return _run_job(self, job_id, lambda pk, retried: embedding.reindex_job_run(job_id=pk, retried=retried), "reindex")
