"""Trial 31h: a security reviewer's second pass over the day's changes (the re-embedding a rename queues, /healthz,
the database-outage 503s, the API's strict input and translated 404s, source_ids in two Unicode forms, the
no-evidence reason, HTML uploads, the flag and verdict de-duplication), driving the running app (`make run`).

Access held on every path probed (a hidden document's re-embedding job, 404s and 400s alike for a hidden and an
unknown id, either Unicode spelling of a hidden source_id, markup in an HTML upload escaped). What fell short is how
the renamer is told about the re-embedding job on their upload page. Each test failed before its fix.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from rag_app import services
from rag_app.models import Document, IngestJob
from rag_app.services.embedding import reindex_job_create, reindex_job_run
from rag_app.tasks import reindex_document
from tests import factories
from tests.embedding_server import embedding_server, openai_embedder
from tests.views.conftest import client_for

__all__ = ["embedding_server", "openai_embedder"]  # fixtures

TEXT = "Canteen hours are eight to four on weekdays."


def _job_lines(page: str) -> list[str]:
    """The text of each job's result and detail line on the upload page."""
    lines = []
    rest = page
    while 'class="job-' in rest:
        rest = rest[rest.index('class="job-') :]
        tag = rest[: rest.index(">")]
        body = rest[len(tag) + 1 :]
        if tag.startswith(('class="job-result', 'class="job-detail')):
            lines.append(body[: body.index("</p>")])
        rest = body
    return lines


@pytest.mark.django_db
def test_a_finished_reembedding_is_said_in_the_readers_language(admin_user_role, levels, openai_embedder):
    factories.ingest_text(TEXT, source_id="canteen", title="Canteen")
    job = reindex_job_create(user=admin_user_role, kind=IngestJob.Kind.REEMBED, source_id="canteen")
    assert reindex_job_run(job_id=job.pk).state == IngestJob.State.DONE
    page = client_for(admin_user_role).get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    [line] = _job_lines(page.content.decode())
    assert "chunks" not in line and "re-embedded" not in line, line
    assert "canteen" in line and "1 个分块" in line, line


@pytest.mark.django_db(transaction=True)  # the task closes stale connections first, as in a worker
def test_a_failed_reembedding_says_what_to_do_about_it(admin_user_role, levels, openai_embedder):
    factories.ingest_text(TEXT, source_id="canteen", title="Canteen")
    openai_embedder.fail(10)
    job = reindex_job_create(user=admin_user_role, kind=IngestJob.Kind.REEMBED, source_id="canteen")
    assert reindex_document.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert job.error_code == "embedder_unavailable"
    page = client_for(admin_user_role).get(reverse("document_upload")).content.decode()
    said, detail = _job_lines(page)
    assert "file" not in said, said  # a rename uploads no file
    assert said == (
        "The embedding server did not answer, each time the re-embedding tried. Vector search finds the document by"
        " its old title until its title is changed again or an operator runs rag_embed --rebuild."
    ), said
    assert "did not answer" in detail, detail  # the stored message, as for an upload


@pytest.mark.django_db
def test_an_uploads_failure_still_tells_the_admin_to_upload_the_file_again(admin_user_role, levels):
    """The re-embedding's sentences are its own: an upload's transient failure keeps its advice."""
    from rag_app.presentation import job_failure

    upload = job_failure("transient_error", "gave up after 3 tries: OperationalError: locked")
    reembed = job_failure("transient_error", "gave up after 3 tries: OperationalError: locked", kind="reembed")
    assert upload.text == "A temporary failure stopped the ingest; upload the file again."
    assert reembed.text.startswith("A temporary failure stopped the re-embedding. Vector search finds"), reembed
    assert job_failure("not_found", "No document 'x'.", kind="reembed").text == "The document no longer exists."


@pytest.mark.django_db
def test_a_finished_reembedding_reads_in_english_too(admin_user_role, levels, openai_embedder):
    factories.ingest_text(TEXT, source_id="canteen", title="Canteen")
    job = reindex_job_create(user=admin_user_role, kind=IngestJob.Kind.REEMBED, source_id="canteen")
    assert reindex_job_run(job_id=job.pk).state == IngestJob.State.DONE
    page = client_for(admin_user_role).get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="en")
    assert _job_lines(page.content.decode()) == ["canteen: 1 chunk embedded again with the new title"]
    job.refresh_from_db()
    assert job.results[0]["line"] == "canteen 1 chunks re-embedded"  # the API's and the log's line is unchanged


# --- a rename in the Django admin ------------------------------------------------------------------------------------


def _admin_rename(client, document: Document, title: str):
    return client.post(
        reverse("admin:rag_app_document_change", args=[document.pk]),
        {"title": title, "url": "", "level": document.level_id or "", "versions-TOTAL_FORMS": "0",
         "versions-INITIAL_FORMS": "0", "versions-MIN_NUM_FORMS": "0", "versions-MAX_NUM_FORMS": "1000"},
    )  # fmt: skip


@pytest.mark.django_db
def test_a_document_renamed_in_the_django_admin_is_found_by_its_new_title(staff_user, levels):
    question = "When are Zeppelin hangar permits renewed?"
    renamed = factories.make_document(
        "Permits are renewed every March at the front desk.\n", source_id="rules/a", title="Garage"
    )
    factories.make_document("Permits are renewed every June at the front desk.\n", source_id="rules/b", title="Garage")
    client = client_for(factories.make_admin("root"))
    assert _admin_rename(client, renamed, "Zeppelin hangar rules").status_code == 302
    answer = services.ask(user=staff_user, question=question)
    assert answer.state == "answered", (answer.state, answer.reason)
    assert [p.text for p in answer.paragraphs.all()] == ["Permits are renewed every March at the front desk."]


@pytest.mark.django_db
def test_a_document_renamed_in_the_django_admin_is_embedded_again(
    levels, openai_embedder, django_capture_on_commit_callbacks
):
    document = factories.make_document(TEXT, source_id="canteen", title="Canteen")
    root = factories.make_admin("root")
    with django_capture_on_commit_callbacks(execute=True):
        assert _admin_rename(client_for(root), document, "Staff restaurant").status_code == 302
    job = IngestJob.objects.get(kind=IngestJob.Kind.REEMBED)
    assert (job.source_id, job.user) == ("canteen", root)


@pytest.mark.django_db
def test_a_django_admin_save_that_keeps_the_title_queues_nothing(
    levels, openai_embedder, django_capture_on_commit_callbacks
):
    """Only a new title is a rename: saving the change form as it is (or with another level) embeds nothing again."""
    document = factories.make_document(TEXT, source_id="canteen", title="Canteen")
    with django_capture_on_commit_callbacks(execute=True):
        assert _admin_rename(client_for(factories.make_admin("root")), document, "Canteen").status_code == 302
    assert not IngestJob.objects.filter(kind=IngestJob.Kind.REEMBED).exists()
    assert Document.objects.get(pk=document.pk).title == "Canteen"


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("title", "url"), [("Payroll \u202etxt.exe", ""), ("Payroll", "ftp://files.example.com/pay.txt")]
)
def test_the_django_admin_refuses_a_title_or_url_the_pages_refuse(levels, title, url):
    document = factories.make_document(TEXT, source_id="canteen", title="Canteen")
    response = client_for(factories.make_admin("root")).post(
        reverse("admin:rag_app_document_change", args=[document.pk]),
        {"title": title, "url": url, "level": document.level_id or "", "versions-TOTAL_FORMS": "0",
         "versions-INITIAL_FORMS": "0", "versions-MIN_NUM_FORMS": "0", "versions-MAX_NUM_FORMS": "1000"},
    )  # fmt: skip
    assert response.status_code == 200  # the form again, with the error
    document.refresh_from_db()
    assert (document.title, document.url) == ("Canteen", "")


@pytest.mark.django_db
def test_the_django_admin_saves_a_plain_title_and_an_https_url(levels):
    document = factories.make_document(TEXT, source_id="canteen", title="Canteen")
    response = client_for(factories.make_admin("root")).post(
        reverse("admin:rag_app_document_change", args=[document.pk]),
        {"title": "Staff restaurant", "url": "https://intranet.example.com/canteen", "level": document.level_id or "",
         "versions-TOTAL_FORMS": "0", "versions-INITIAL_FORMS": "0", "versions-MIN_NUM_FORMS": "0",
         "versions-MAX_NUM_FORMS": "1000"},
    )  # fmt: skip
    assert response.status_code == 302, response.content[:2000]
    document.refresh_from_db()
    assert (document.title, document.url) == ("Staff restaurant", "https://intranet.example.com/canteen")
