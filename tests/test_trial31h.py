"""Trial 31h: a security reviewer's second pass over the day's changes (the re-embedding a rename queues, /healthz,
the database-outage 503s, the API's strict input and translated 404s, source_ids in two Unicode forms, the
no-evidence reason, HTML uploads, the flag and verdict de-duplication), driving the running app (`make run`).

Access held on every path probed (a hidden document's re-embedding job, 404s and 400s alike for a hidden and an
unknown id, either Unicode spelling of a hidden source_id, markup in an HTML upload escaped). What fell short is how
the renamer is told about the re-embedding job on their upload page. Each test is a strict xfail until fixed.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from rag_app.models import IngestJob
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
@pytest.mark.xfail(
    strict=True,
    reason="a rename's finished re-embedding reads 'canteen 1 chunks re-embedded' in English on the Chinese upload "
    "page, where an upload's outcome is said in the reader's language",
)
def test_a_finished_reembedding_is_said_in_the_readers_language(admin_user_role, levels, openai_embedder):
    factories.ingest_text(TEXT, source_id="canteen", title="Canteen")
    job = reindex_job_create(user=admin_user_role, kind=IngestJob.Kind.REEMBED, source_id="canteen")
    assert reindex_job_run(job_id=job.pk).state == IngestJob.State.DONE
    page = client_for(admin_user_role).get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="zh-hans")
    [line] = _job_lines(page.content.decode())
    assert "chunks" not in line and "re-embedded" not in line, line
    assert "canteen" in line and "1 个分块" in line, line


@pytest.mark.django_db(transaction=True)  # the task closes stale connections first, as in a worker
@pytest.mark.xfail(
    strict=True,
    reason="a rename's re-embedding that the embedding server never answered tells the admin to 'upload the file "
    "again once it is back': there is no file; the document keeps its old title's vectors until renamed again",
)
def test_a_failed_reembedding_says_what_to_do_about_it(admin_user_role, levels, openai_embedder):
    factories.ingest_text(TEXT, source_id="canteen", title="Canteen")
    openai_embedder.fail(10)
    job = reindex_job_create(user=admin_user_role, kind=IngestJob.Kind.REEMBED, source_id="canteen")
    assert reindex_document.apply(args=[job.pk]).get() == "failed"
    job.refresh_from_db()
    assert job.error_code == "embedder_unavailable"
    page = client_for(admin_user_role).get(reverse("document_upload")).content.decode()
    shown = " ".join(_job_lines(page))
    assert "upload the file" not in shown and "file" not in shown.split("(")[0], shown
    assert "re-embed" in shown or "title" in shown, shown
