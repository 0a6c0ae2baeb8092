"""POST /api/v1/documents/ queues a job (202) on the session's real Redis; GET /api/v1/ingest-jobs/<id>.

Jobs are run here by tests.workers.run_queued_jobs, the function a worker calls; the end-to-end tests
with real worker processes are in tests/ingest/test_jobs_worker.py.
"""

from __future__ import annotations

import pytest
import redis
from django.core.files.uploadedfile import SimpleUploadedFile

from rag_app.models import Document, DocumentVersion, IngestJob
from tests import factories, redisserver
from tests.workers import purge_queue, run_queued_jobs

needs_redis = pytest.mark.skipif(redisserver.SERVER is None, reason="needs redis-server (scripts/system-deps.sh)")


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def queued_messages() -> int:
    assert redisserver.SERVER is not None
    return int(redis.Redis.from_url(redisserver.SERVER.broker_url).llen("ingest"))


def test_an_upload_answers_202_with_the_queued_job(api_as, admin_user_role, levels):
    """202 at once with the job (queued, no progress, no results); nothing is ingested until it runs;
    then GET /api/v1/ingest-jobs/<id> shows it done with the ingest line and full progress."""
    client = api_as(admin_user_role)
    response = client.post(
        "/api/v1/documents/",
        {"file": upload("refund.txt", b"Refunds within 30 days."), "source_id": "policy/refund", "level": "official"},
    )
    assert response.status_code == 202
    job = response.json()["job"]
    assert (job["state"], job["progress"], job["results"]) == ("queued", {"done": 0, "total": 0}, [])
    assert job["source_id"] == "policy/refund" and job["file_name"] == "refund.txt" and job["kind"] == "ingest"
    assert not Document.objects.exists()

    run_queued_jobs()
    body = client.get(f"/api/v1/ingest-jobs/{job['id']}").json()
    assert body["state"] == "done" and body["progress"] == {"done": 1, "total": 1}
    assert body["results"][0]["line"] == "policy/refund v1 1 chunks new"
    assert body["results"][0]["status"] == "new" and body["results"][0]["version"] == 1
    assert body["started_at"] and body["finished_at"]
    assert Document.objects.get(source_id="policy/refund").level.slug == "official"


def test_new_unchanged_and_updated_through_jobs(api_as, admin_user_role):
    """The same file again is `unchanged`, changed bytes are version 2: each job's line says which."""
    client = api_as(admin_user_role)
    lines = []
    for data in (b"Refunds within 30 days.", b"Refunds within 30 days.", b"Refunds within 14 days."):
        client.post("/api/v1/documents/", {"file": upload("refund.txt", data), "source_id": "policy/refund"})
        [job] = run_queued_jobs()
        lines.append(job.results[0]["line"])
    assert lines == [
        "policy/refund v1 1 chunks new",
        "policy/refund v1 1 chunks unchanged",
        "policy/refund v2 1 chunks updated",
    ]
    assert DocumentVersion.objects.filter(document__source_id="policy/refund").count() == 2


@pytest.mark.parametrize(
    ("name", "data", "code"),
    [
        ("tool.exe", b"MZ\x90\x00", "unsupported_type"),
        ("empty.txt", b"  \n", "empty"),
        ("data.txt", bytes(range(256)) * 40, "binary"),
    ],
)
def test_a_file_that_cannot_be_ingested_fails_its_job_with_the_reason(api_as, admin_user_role, name, data, code):
    """Unsupported and empty files fail at once (202, state failed); binary content fails when the job
    runs. Each names its reason; nothing is stored and the file's bytes are dropped."""
    client = api_as(admin_user_role)
    response = client.post("/api/v1/documents/", {"file": upload(name, data)})
    assert response.status_code == 202
    run_queued_jobs()
    body = client.get(f"/api/v1/ingest-jobs/{response.json()['job']['id']}").json()
    assert body["state"] == "failed"
    [result] = body["results"]
    assert result["status"] == "error" and result["error"] == code and result["message"]
    assert result["line"] == f"{name} error {code}: {result['message']}"
    assert set(result) == {"source_id", "status", "error", "message", "line"}  # what the page translates stays inside
    assert not Document.objects.exists()
    assert IngestJob.objects.get(pk=body["id"]).payload is None


def test_an_old_word_file_is_refused_saying_to_save_it_as_docx(api_as, admin_user_role, levels):
    """Queued, the job fails at once as `legacy_format` with the English message (the job's `message` stays English);
    with ?wait=1 the error body's detail is in the reader's language, as the page's."""
    client = api_as(admin_user_role)
    ole = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600
    response = client.post("/api/v1/documents/", {"file": upload("memo.doc", ole)})
    assert response.status_code == 202
    [result] = response.json()["job"]["results"]
    assert result["error"] == "legacy_format" and "save it as .docx (or as PDF)" in result["message"]
    response = client.post("/api/v1/documents/?wait=1", {"file": upload("memo.doc", ole)}, HTTP_ACCEPT_LANGUAGE="zh")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "legacy_format" and "另存为 .docx（或 PDF）" in body["detail"]
    assert body["fields"] == {"file": [body["detail"]]}
    assert not Document.objects.exists()


def test_wait_ingests_within_the_request(api_as, admin_user_role):
    """?wait=1: 201 with the result, as before jobs existed; no job is made."""
    response = api_as(admin_user_role).post("/api/v1/documents/?wait=1", {"file": upload("a.txt", b"Some text.")})
    assert response.status_code == 201 and response.json()["status"] == "new"
    assert not IngestJob.objects.exists()


@needs_redis
def test_a_source_id_the_uploader_may_not_see_is_refused_before_it_is_queued(api_as, levels):
    """An admin outside `hr` uploading over an hr-only document: 404, no job row, no message on the broker."""
    factories.make_document("Pay bands.", source_id="hr/pay.txt", groups=["hr"])
    outsider = factories.make_user("outsider", groups=("staff", "admin"))  # an admin, not a superuser
    purge_queue()
    response = api_as(outsider).post(
        "/api/v1/documents/", {"file": upload("pay.txt", b"New pay bands."), "source_id": "hr/pay.txt"}
    )
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert not IngestJob.objects.exists()
    assert queued_messages() == 0
    assert Document.objects.get(source_id="hr/pay.txt").versions.count() == 1


@needs_redis
def test_a_queued_upload_is_a_message_on_the_broker(api_as, admin_user_role):
    """The 202 means the task was published to Redis (the queue `ingest` holds it)."""
    purge_queue()
    response = api_as(admin_user_role).post("/api/v1/documents/", {"file": upload("a.txt", b"Some text.")})
    assert response.status_code == 202 and queued_messages() == 1
    purge_queue()


@needs_redis
def test_a_broker_that_is_down_answers_503_and_stores_nothing(api_as, admin_user_role):
    """Redis stopped: 503 broker_unavailable with Retry-After and a clear message, at once; no job, no
    document. With Redis back, the same upload is accepted."""
    assert redisserver.SERVER is not None
    client = api_as(admin_user_role)
    redisserver.SERVER.stop()
    try:
        response = client.post("/api/v1/documents/", {"file": upload("a.txt", b"Some text.")})
    finally:
        redisserver.SERVER.start()
    assert response.status_code == 503
    assert response.json()["code"] == "broker_unavailable" and response["Retry-After"] == "30"
    assert "not reachable" in response.json()["detail"] and "nothing was stored" in response.json()["detail"]
    assert not IngestJob.objects.exists() and not Document.objects.exists()
    assert client.post("/api/v1/documents/", {"file": upload("a.txt", b"Some text.")}).status_code == 202
    purge_queue()


def test_who_may_follow_a_job(api_as, admin_user_role, staff_user, levels):
    """The uploader follows their job; another admin only once it names a document they may read; a
    staff member never sees another's job (404, as for a job that does not exist)."""
    factories.make_group("hr")
    client = api_as(admin_user_role)
    secret = client.post("/api/v1/documents/", {"file": upload("pay.txt", b"Pay bands."), "groups": ["hr"]})
    open_ = client.post("/api/v1/documents/", {"file": upload("canteen.txt", b"Canteen hours.")})
    run_queued_jobs()
    other = api_as(factories.make_user("admin2", groups=("staff", "admin")))  # an admin outside hr
    secret_id, open_id = secret.json()["job"]["id"], open_.json()["job"]["id"]
    assert client.get(f"/api/v1/ingest-jobs/{secret_id}").status_code == 200
    assert other.get(f"/api/v1/ingest-jobs/{secret_id}").status_code == 404
    assert other.get(f"/api/v1/ingest-jobs/{open_id}").status_code == 200
    assert api_as(staff_user).get(f"/api/v1/ingest-jobs/{open_id}").status_code == 404
    assert [job["id"] for job in client.get("/api/v1/ingest-jobs/").json()["results"]] == [open_id, secret_id]
    assert [job["id"] for job in other.get("/api/v1/ingest-jobs/").json()["results"]] == [open_id]
    assert client.get("/api/v1/ingest-jobs/999999").status_code == 404
