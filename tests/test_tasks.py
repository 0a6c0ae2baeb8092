"""rag_app/tasks.py: the Celery tasks run the services; run here in-process with Celery's own apply()
(the end-to-end runs with worker processes: tests/ingest/test_jobs_worker.py)."""

from __future__ import annotations

import pytest

from rag_app.models import Document, IngestJob
from rag_app.services.embedding import reindex_job_create
from rag_app.services.ingest_jobs import ingest_job_create, retry_delay
from rag_app.tasks import TRANSIENT, ingest_file, reindex_document

# transaction=True: a task closes stale database connections first (as in a worker), which must not
# cut the test's own wrapping transaction on PostgreSQL.
pytestmark = pytest.mark.django_db(transaction=True)


def _job(name: str, data: bytes) -> IngestJob:
    return ingest_job_create(user=None, file_name=name, size=len(data), read=lambda: data)


def test_the_task_runs_the_job_once(levels):
    """A second delivery of the same message (a redelivery) finds the job done and changes nothing."""
    job = _job("a.txt", b"Canteen hours are eight to four.")
    assert ingest_file.apply(args=[job.pk]).get() == "done"
    assert ingest_file.apply(args=[job.pk]).get() == "done"
    job.refresh_from_db()
    assert job.attempts == 1 and Document.objects.get().versions.count() == 1


def test_a_task_for_a_job_that_never_appears_is_dropped(db):
    """It waits a few tries for the row (a web node's commit not seen yet), then ends as `missing`."""
    assert ingest_file.apply(args=[987654]).get() == "missing"


def test_a_bad_file_fails_its_job_without_retrying(levels):
    job = _job("noise.txt", bytes(range(32)) * 8)
    assert ingest_file.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert job.error_code == "binary" and job.attempts == 1 and job.payload is None


def test_a_reindex_job_brings_every_current_chunk_up_to_date(levels):
    """A chunk whose search tokens are stale is re-indexed; the job's line counts the chunks it changed."""
    ingest_file.apply(args=[_job("a.txt", b"Canteen hours are eight to four.").pk])
    Document.objects.update(title="Canteen")  # the title joins the tokens: now out of date
    job = reindex_job_create(user=None, kind=IngestJob.Kind.REINDEX, source_id="a.txt")
    assert reindex_document.apply(args=[job.pk]).get() == "done"
    job.refresh_from_db()
    assert job.results[0]["line"] == "1 chunks re-indexed"


def test_a_reembed_job_without_an_embedder_fails_with_the_reason(levels):
    ingest_file.apply(args=[_job("a.txt", b"Canteen hours are eight to four.").pk])
    job = reindex_job_create(user=None, kind=IngestJob.Kind.REEMBED, source_id="a.txt")
    assert reindex_document.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert job.error_code == "no_embedder"


def test_backoff_doubles_up_to_the_cap(settings):
    settings.RAG = {**settings.RAG, "INGEST_RETRY_MAX_SECONDS": 20}
    assert [retry_delay(n) for n in range(6)] == [2, 4, 8, 16, 20, 20]


def test_transient_failures_are_the_database_and_connections():
    from django.db import OperationalError

    assert issubclass(OperationalError, TRANSIENT) and issubclass(ConnectionRefusedError, TRANSIENT)
    assert not issubclass(ValueError, TRANSIENT)
