"""rag_app/tasks.py: the Celery tasks run the services; run here in-process with Celery's own apply()
(the end-to-end runs with worker processes: tests/ingest/test_jobs_worker.py)."""

from __future__ import annotations

import pytest

from rag_app.models import Document, IngestJob
from rag_app.services.embedding import reindex_job_create
from rag_app.services.ingest_jobs import ingest_job_create, retry_delay
from rag_app.tasks import TRANSIENT, ingest_file, reindex_document
from tests.embedding_server import embedding_server, openai_embedder

# transaction=True: a task closes stale database connections first (as in a worker), which must not
# cut the test's own wrapping transaction on PostgreSQL.
pytestmark = pytest.mark.django_db(transaction=True)

__all__ = ["embedding_server", "openai_embedder"]  # fixtures


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


# --- the embedding server, away for a moment or for good (tests/embedding_server.py, over real HTTP) ---------------


def test_an_embedding_server_that_stays_down_fails_the_job_once_the_retries_run_out(levels, openai_embedder):
    """Each try of the task asks the server once (EMBEDDING_RETRIES=0); after INGEST_RETRIES more, the job fails
    with the embedding server's own code (shown translated on the upload page), nothing stored."""
    openai_embedder.fail(10)
    job = _job("a.txt", b"Canteen hours are eight to four.")
    assert ingest_file.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert (job.error_code, job.attempts, len(openai_embedder.requests)) == ("embedder_unavailable", 3, 3)
    assert job.error.startswith("gave up after 3 tries") and "did not answer" in job.error
    assert job.payload is None and not Document.objects.exists()


def test_an_embedding_refusal_fails_the_job_without_retrying(levels, openai_embedder):
    """A 400 is the server refusing this file's text: another try would be refused the same way."""
    openai_embedder.fail(1, status=400)
    job = _job("a.txt", b"Canteen hours are eight to four.")
    assert ingest_file.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert (job.error_code, job.attempts, len(openai_embedder.requests)) == ("embedding_failed", 1, 1)


def test_a_reembed_job_is_retried_while_the_embedding_server_is_away(levels, openai_embedder):
    """The same rule for a document's re-embedding: the server away for one try, back for the next."""
    ingest_file.apply(args=[_job("a.txt", b"Canteen hours are eight to four.").pk])
    job = reindex_job_create(user=None, kind=IngestJob.Kind.REEMBED, source_id="a.txt")
    openai_embedder.fail(1)
    assert reindex_document.apply(args=[job.pk]).get() == "done"
    job.refresh_from_db()
    assert job.attempts == 2 and job.results[0]["line"] == "a.txt 1 chunks re-embedded"


def test_a_reembed_job_the_server_refuses_fails_with_its_reason(levels, openai_embedder):
    ingest_file.apply(args=[_job("a.txt", b"Canteen hours are eight to four.").pk])
    job = reindex_job_create(user=None, kind=IngestJob.Kind.REEMBED, source_id="a.txt")
    openai_embedder.fail(1, status=400)
    assert reindex_document.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert job.error_code == "embedding_failed" and "refused the request" in job.error


@pytest.mark.parametrize(("lost_before", "code"), [(1, "embedder_unavailable"), (3, "worker_lost")])
def test_starts_retried_after_an_outage_are_not_counted_as_workers_lost(levels, openai_embedder, lost_before, code):
    """A job whose worker was lost once (left running, one start counted, as acks_late redelivers it), then an
    embedding server that stays down: the task's retries are starts that ended, so the job fails with the outage's
    own code once they run out, not as "the worker stopped 3 times". Lost more times than RAG_INGEST_RETRIES (2),
    it is still failed as worker_lost before it runs."""
    openai_embedder.fail(10)
    job = _job("a.txt", b"Canteen hours are eight to four.")
    IngestJob.objects.filter(pk=job.pk).update(state=IngestJob.State.RUNNING, attempts=lost_before)
    assert ingest_file.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert job.error_code == code, job.error
    if code == "worker_lost":
        assert job.error.startswith("the worker stopped 3 times") and not openai_embedder.requests
