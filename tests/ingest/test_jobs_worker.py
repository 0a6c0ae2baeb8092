"""Ingest jobs end to end: real `celery worker` processes on the session's Redis and PostgreSQL.

Nothing is simulated: uploads go through the API, the web page and the CLI, the task is published to
redis-server, a worker process (or two) runs it against the same database, and the tests read the
outcome from the database and the API as a user would. The crash test kills a worker's pool process
with SIGKILL while it is inside the ingest's write transaction. PostgreSQL only (tests/workers.py).
"""

from __future__ import annotations

import os
import signal
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection, transaction
from django.urls import reverse

from rag_app import services
from rag_app.models import Citation, Document, DocumentVersion, IngestJob
from rag_app.services.ingest_jobs import ingest_job_create, ingest_job_enqueue
from tests import factories
from tests.views.conftest import client_for
from tests.workers import needs_worker_database, wait_for, wait_jobs_finished, workers

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
REFUND_30 = "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt."
REFUND_14 = "Refund policy. Refunds are accepted within 14 days of purchase with the original receipt."
QUESTION = "Within how many days of purchase are refunds accepted?"


@pytest.fixture(autouse=True)
def _worker_database() -> None:
    needs_worker_database()


def _api(user):
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(user)
    return client


def _post(client, name: str, data: bytes, **fields):
    return client.post("/api/v1/documents/", {"file": SimpleUploadedFile(name, data), **fields}, format="multipart")


def test_an_upload_answers_202_and_a_worker_ingests_it(levels):
    """202 with the queued job at once; the worker ingests it; GET /api/v1/ingest-jobs/<id> shows the
    ingest line, full progress and the times; the document is there, version 1."""
    admin = factories.make_admin("admin1")
    text = "\n\n".join(f"Section {n}. " + "Refunds are accepted within 30 days of purchase. " * 12 for n in range(8))
    with workers(1):
        response = _post(_api(admin), "refunds.txt", text.encode(), source_id="policy/refunds", level="official")
        assert response.status_code == 202, response.content
        job = response.json()["job"]
        assert job["state"] == "queued" and job["progress"] == {"done": 0, "total": 0} and job["results"] == []
        [done] = wait_jobs_finished([job["id"]])
    body = _api(admin).get(f"/api/v1/ingest-jobs/{job['id']}").json()
    chunks = DocumentVersion.objects.get(document__source_id="policy/refunds").chunks.count()
    assert body["state"] == "done", body
    assert body["results"][0]["line"] == f"policy/refunds v1 {chunks} chunks new"
    assert body["progress"] == {"done": chunks, "total": chunks} and chunks > 1
    assert body["started_at"] and body["finished_at"] and done.attempts == 1
    assert Document.objects.get(source_id="policy/refunds").level.slug == "official"
    assert done.payload is None  # the file's bytes are dropped once the job ends


def test_each_file_of_a_batch_fails_or_succeeds_alone(levels):
    """Several files in one web upload: good ones are ingested, and each bad one (unsupported, empty,
    binary, undecodable, encrypted, corrupt) fails its own job with its reason."""
    admin = factories.make_admin("admin1")
    files = {
        "good.md": b"# Leave\n\nStaff get 25 days of annual leave.\n",
        "notes.txt": "退款期限为三十天。".encode(),
        "tool.exe": b"MZ\x90\x00binary",
        "empty.txt": b"  \n",
        "noise.txt": bytes(range(32)) * 8,
        "latin.txt": bytes(range(0x80, 0x100)) * 8,
        "encrypted.pdf": (FIXTURES / "encrypted.pdf").read_bytes(),
        "broken.pdf": (FIXTURES / "broken.pdf").read_bytes(),
    }
    with workers(1):
        response = client_for(admin).post(
            reverse("document_upload"), {"file": [SimpleUploadedFile(n, d) for n, d in files.items()]}
        )
        assert response.status_code == 302
        pks = list(IngestJob.objects.order_by("pk").values_list("pk", flat=True))
        assert len(pks) == len(files)
        jobs = {job.file_name: job for job in wait_jobs_finished(pks)}
    assert {name: job.state for name, job in jobs.items() if job.state == "done"} == {
        "good.md": "done",
        "notes.txt": "done",
    }
    codes = {name: job.error_code for name, job in jobs.items() if job.state == "failed"}
    assert codes["tool.exe"] == "unsupported_type" and codes["empty.txt"] == "empty"
    assert codes["noise.txt"] == "binary" and codes["encrypted.pdf"] == "encrypted"
    assert set(codes) == set(files) - {"good.md", "notes.txt"}
    assert all(job.error and job.results[0]["message"] == job.error for job in jobs.values() if job.state == "failed")
    assert sorted(Document.objects.values_list("source_id", flat=True)) == ["good.md", "notes.txt"]
    page = client_for(admin).get(reverse("document_upload")).content.decode()
    assert "good.md v1 1 chunks new" in page and "This type of file cannot be read." in page


def _held_inside_the_write(job_pk: int) -> None:
    """Wait until a worker's ingest transaction waits for the job row this test holds locked: the
    version and its chunks are written and not committed (the job is marked done last, in it)."""

    def waiting() -> bool:
        with connection.cursor() as cur:
            # Only the worker can wait for a lock here (the test holds the one row it needs). The query
            # text is not matched: pg_stat_activity cuts it at track_activity_query_size. The view is a
            # snapshot taken once per transaction (this runs inside the test's): clear it each time.
            cur.execute("SELECT pg_stat_clear_snapshot()")
            cur.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
                " AND datname = current_database()"
            )
            return bool(cur.fetchone()[0])

    wait_for(waiting, 240, f"the worker to reach the end of job {job_pk}'s write transaction")


def _lock_and_queue(job: IngestJob) -> None:
    """Lock the (committed) job's row in the caller's transaction and only then publish it: the worker's
    claim and progress skip a locked row, so it runs up to marking the job done, which waits inside its
    write transaction."""
    assert transaction.get_connection().in_atomic_block
    list(IngestJob.objects.select_for_update().filter(pk=job.pk).values_list("pk", flat=True))
    ingest_job_enqueue(job)


def _job(user, name: str, data: bytes) -> IngestJob:
    return ingest_job_create(user=user, file_name=name, size=len(data), read=lambda: data)


def test_answers_during_an_ingest_see_the_old_version_until_the_new_one_commits(levels, staff_user):
    """While a worker holds version 2 inside its transaction, answers cite version 1; once it commits,
    version 2."""
    admin = factories.make_admin("admin1")
    factories.ingest_text(REFUND_30, source_id="refunds.txt", level="official")
    with workers(1):
        job_pk = _job(admin, "refunds.txt", REFUND_14.encode()).pk
        with transaction.atomic():
            _lock_and_queue(IngestJob.objects.get(pk=job_pk))
            _held_inside_the_write(job_pk)
            during = services.ask(user=staff_user, question=QUESTION)
        [job] = wait_jobs_finished([job_pk])
        after = services.ask(user=staff_user, question=QUESTION)
    cited = lambda answer: {c.chunk.chunk_id for c in Citation.objects.filter(paragraph__answer=answer)}  # noqa: E731
    assert during.state == "answered" and cited(during) == {"refunds.txt:v1:0"}
    assert job.results[0]["line"] == "refunds.txt v2 1 chunks updated"
    assert after.state == "answered" and cited(after) == {"refunds.txt:v2:0"}


def test_a_worker_killed_mid_task_leaves_no_partial_version_and_the_task_runs_again(levels):
    """SIGKILL to the pool process inside the write transaction: nothing of it is stored, the message goes
    back on the queue (acks_late + reject_on_worker_lost), a new pool process runs it, and the document
    ends with exactly one version."""
    admin = factories.make_admin("admin1")
    with workers(1) as [worker]:
        job_pk = _job(admin, "handbook.txt", ("Chapter one. " + REFUND_30 + "\n\n").encode() * 40).pk
        with transaction.atomic():
            _lock_and_queue(IngestJob.objects.get(pk=job_pk))
            _held_inside_the_write(job_pk)
            [child] = worker.pool_children()
            os.kill(child, signal.SIGKILL)
            wait_for(lambda: "exited with 'signal 9 (SIGKILL)'" in worker.text(), 60, "the worker to see its child die")
            assert not DocumentVersion.objects.exists()
        [done] = wait_jobs_finished([job_pk])
    assert done.state == "done", (done.error, worker.text()[-3000:])
    versions = DocumentVersion.objects.filter(document__source_id="handbook.txt")
    assert [v.version for v in versions] == [1]
    assert done.results[0]["line"] == f"handbook.txt v1 {versions[0].chunks.count()} chunks new"


def test_two_workers_ingest_each_file_exactly_once(levels):
    """Two worker processes on one Redis and one PostgreSQL: twelve queued files, each ingested once
    (one version each, one attempt each, and the workers' logs count twelve successes in all)."""
    names = [f"batch/doc-{n:02}.txt" for n in range(12)]
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"rag-two-workers-{os.getpid()}"
    folder.mkdir(parents=True, exist_ok=True)
    for n, name in enumerate(names):
        (folder / Path(name).name).write_text(f"Document {n}. " + "Shared words about refunds and leave. " * 30)
    out = StringIO()
    with workers(2) as pair:
        call_command("ingest", str(folder), "--queue", stdout=out)
        pks = list(IngestJob.objects.order_by("pk").values_list("pk", flat=True))
        jobs = wait_jobs_finished(pks)
        logs = [worker.text() for worker in pair]
    assert len(jobs) == 12 and all(job.state == "done" and job.attempts == 1 for job in jobs)
    assert all(line.endswith(" queued") and " job " in line for line in out.getvalue().splitlines())
    per_document = {d.source_id: d.versions.count() for d in Document.objects.all()}
    assert per_document == {Path(name).name: 1 for name in names}
    succeeded = [
        line for log in logs for line in log.splitlines() if "rag_app.ingest_file[" in line and "succeeded" in line
    ]
    assert len(succeeded) == 12, logs
    for file in folder.iterdir():
        file.unlink()
    folder.rmdir()
