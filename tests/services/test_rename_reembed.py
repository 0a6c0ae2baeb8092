"""A renamed document is found by its new title on both sides of the hybrid search.

The title is part of every chunk's context (indexing.chunk_context): the rename makes the search tokens again in its
own transaction, and once it commits a REEMBED job re-embeds the chunks with the new title (services.embedding
.index_new_title), on every path that renames: the page and API's document update, and a same-file upload with a
title. A real embedding server (tests/embedding_server.py) records what it was asked to embed; a real Redis broker
receives the job (tests/redisserver.py), run here in-process as the worker would.
"""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from rag_app.models import Document, IngestJob
from rag_app.services.documents import document_update
from rag_app.services.ingest_jobs import ingest_job_create
from rag_app.tasks import ingest_file, reindex_document
from tests import factories, redisserver
from tests.embedding_server import EmbeddingServer, embedding_server, openai_embedder

__all__ = ["embedding_server", "openai_embedder"]  # fixtures

pytestmark = pytest.mark.django_db(transaction=True)  # the tasks close connections, as a worker does

TEXT = b"Canteen hours are eight to four on weekdays."


api_client_for = factories.token_client


def _ingested(admin, title: str = "Canteen") -> Document:
    job = ingest_job_create(user=admin, file_name="canteen.txt", size=len(TEXT), read=lambda: TEXT, title=title)
    assert ingest_file.apply(args=[job.pk]).get() == "done"
    return Document.objects.get(source_id="canteen.txt")


def _embedded_texts(server: EmbeddingServer) -> list[str]:
    return [text for request in server.requests for text in request["input"]]


def test_a_rename_queues_a_reembedding_with_the_new_title(
    admin_user_role, levels, openai_embedder, django_capture_on_commit_callbacks
):
    document = _ingested(admin_user_role)
    assert any("Canteen" in t for t in _embedded_texts(openai_embedder))
    openai_embedder.requests.clear()
    with django_capture_on_commit_callbacks(execute=True):
        document_update(user=admin_user_role, document=document, title="Staff restaurant opening times")
    job = IngestJob.objects.get(kind=IngestJob.Kind.REEMBED)
    assert (job.source_id, job.user, job.state) == ("canteen.txt", admin_user_role, IngestJob.State.QUEUED)
    assert reindex_document.apply(args=[job.pk]).get() == "done"
    embedded = _embedded_texts(openai_embedder)
    assert embedded and all("Staff restaurant opening times" in t for t in embedded), embedded
    job.refresh_from_db()
    assert job.results[0]["line"] == "canteen.txt 1 chunks re-embedded"
    listed = api_client_for(admin_user_role).get("/api/v1/ingest-jobs/").json()["results"][0]  # the renamer's jobs
    assert (listed["kind"], listed["source_id"], listed["state"], listed["file_name"]) == (
        "reembed",
        "canteen.txt",
        "done",
        "",
    )


def test_a_same_file_upload_with_a_new_title_queues_it_too(
    admin_user_role, levels, openai_embedder, django_capture_on_commit_callbacks
):
    _ingested(admin_user_role)
    with django_capture_on_commit_callbacks(execute=True):
        again = ingest_job_create(
            user=admin_user_role, file_name="canteen.txt", size=len(TEXT), read=lambda: TEXT, title="Staff restaurant"
        )
        assert ingest_file.apply(args=[again.pk]).get() == "done"
    assert IngestJob.objects.filter(kind=IngestJob.Kind.REEMBED, source_id="canteen.txt").count() == 1


def test_nothing_is_queued_without_a_title_change_or_without_an_embedder(
    admin_user_role, levels, settings, django_capture_on_commit_callbacks
):
    document = factories.make_document(TEXT.decode(), source_id="canteen.txt", title="Canteen")
    with django_capture_on_commit_callbacks(execute=True):
        document_update(user=admin_user_role, document=document, title="Canteen")  # the same title
        document_update(user=admin_user_role, document=document, title="Staff restaurant")  # no embedder
        document_update(user=admin_user_role, document=document, groups=[Group.objects.create(name="ops")])
    assert settings.RAG["EMBEDDER"] == "none"
    assert not IngestJob.objects.filter(kind=IngestJob.Kind.REEMBED).exists()
    assert Document.objects.get(pk=document.pk).title == "Staff restaurant"


@pytest.mark.skipif(redisserver.SERVER is None, reason="needs redis-server (scripts/system-deps.sh)")
def test_with_the_broker_down_the_rename_stands_and_the_job_says_why(
    admin_user_role, levels, openai_embedder, django_capture_on_commit_callbacks
):
    document = _ingested(admin_user_role)
    assert redisserver.SERVER is not None
    redisserver.SERVER.stop()
    try:
        with django_capture_on_commit_callbacks(execute=True):
            document_update(user=admin_user_role, document=document, title="Staff restaurant")
    finally:
        redisserver.SERVER.start()
    assert Document.objects.get(pk=document.pk).title == "Staff restaurant"
    job = IngestJob.objects.get(kind=IngestJob.Kind.REEMBED)
    assert (job.state, job.error_code) == (IngestJob.State.FAILED, "broker_unavailable")
    from django.test import Client

    page = Client()
    page.force_login(admin_user_role)
    html = page.get("/manage/documents/upload/").content.decode()
    assert "The task broker was unreachable" in html and "re-embed a document" in html


def test_a_new_version_with_a_new_title_is_embedded_once(admin_user_role, levels, openai_embedder):
    """Its chunks are embedded with the new title as they are made: no re-embedding is queued beside."""
    _ingested(admin_user_role)
    changed = b"Canteen hours are eight to five on weekdays."
    job = ingest_job_create(
        user=admin_user_role, file_name="canteen.txt", size=len(changed), read=lambda: changed, title="Staff restaurant"
    )
    assert ingest_file.apply(args=[job.pk]).get() == "done"
    assert not IngestJob.objects.filter(kind=IngestJob.Kind.REEMBED).exists()
    assert any("Staff restaurant" in t for t in _embedded_texts(openai_embedder))


def test_a_queueing_that_fails_after_the_rename_committed_is_logged_not_the_renamers_error(
    admin_user_role, levels, openai_embedder, monkeypatch, caplog
):
    document = _ingested(admin_user_role)

    def broken(**kwargs):
        raise RuntimeError("the jobs table is locked")

    monkeypatch.setattr("rag_app.services.embedding.reindex_job_create", broken)
    response = api_client_for(admin_user_role).patch(
        f"/api/v1/documents/{document.source_id}", {"title": "Staff restaurant"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert Document.objects.get(pk=document.pk).title == "Staff restaurant"
    assert "the jobs table is locked" in caplog.text
