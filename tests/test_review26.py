"""Review of session 26 (40400eb..ad5d86e): each test demonstrated one defect (it failed on ad5d86e; fixed since).

Run: DEBUG=1 .venv/bin/python -m pytest -q tests/test_review26.py -p no:cacheprovider
     RAG_TEST_DB=postgres ... for the two lock races (skipped on SQLite).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client

from rag_app.models import Answer, Document, Feedback, IngestJob, SourceLevel
from tests import factories
from tests.test_races import started_until_blocked

V1 = "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt."
V2 = "Refund policy. Refunds are accepted within 14 days of purchase with the original receipt."
QUESTION = "Within how many days of purchase are refunds accepted?"


def _client(user, *, zh: bool = False) -> Client:
    client = Client()
    client.force_login(user)
    if zh:
        client.cookies["django_language"] = "zh-hans"
    return client


def _queued_job(admin, text, source_id, **options):
    from rag_app.services.ingest_jobs import ingest_job_create

    return ingest_job_create(
        user=admin, file_name=f"{source_id}.txt", size=len(text), read=lambda: text.encode(), source_id=source_id,
        **options,
    )  # fmt: skip


# --- 1. Answer.created_at = asked_at: a document created between the question and the search -----------------


@pytest.mark.django_db
def test_an_answer_citing_a_document_uploaded_while_it_was_searched_is_shown_to_its_asker(monkeypatch):
    """The question is asked (asked_at), then a new open document is uploaded, then the search reads and cites it
    (e.g. while the question's vector is fetched from an embedding server). existing_at=answer.created_at (now the
    moment BEFORE the search) says the cited document did not exist when the answer was made, so every paragraph
    is withheld from the asker (and every non-superuser) for good, and the trace is redacted."""
    from rag_app import presentation
    from rag_app.search import hybrid
    from rag_app.services.ask import ask

    factories.make_levels()
    asker = factories.make_user("staff1")
    real = hybrid.retrieve

    def upload_then_retrieve(**kwargs):
        factories.ingest_text(V1, source_id="refunds")  # committed before the search reads
        return real(**kwargs)

    monkeypatch.setattr(hybrid, "retrieve", upload_then_retrieve)
    answer = ask(user=asker, question=QUESTION, mode="extractive")
    assert answer.state == "answered", (answer.state, answer.reason)
    view = presentation.present_answer(answer, viewer=asker)
    assert view.paragraphs and not any(p.withheld for p in view.paragraphs), (
        "the asker's own answer, citing an open document the search read, is withheld from them"
    )
    trace = presentation.trace_for(answer, viewer=asker)
    assert not trace["redacted"]


# --- 2. AnswerGone on the API: reported as a bad `note` / `kind`, 400, not as a gone answer --------------------


def _answer(staff):
    from rag_app.services.ask import ask

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    answer = ask(user=staff, question=QUESTION, mode="extractive")
    assert answer.state == "answered"
    return answer


def _deleted_after_read(monkeypatch, module, name):
    """The view reads the answer; a forced delete removes it before the service writes."""
    real = getattr(module, name)

    def read_then_delete(*args, **kwargs):
        answer = real(*args, **kwargs)
        Answer.objects.filter(pk=answer.pk).delete()
        return answer

    monkeypatch.setattr(module, name, read_then_delete)


@pytest.mark.django_db
def test_api_verdict_on_an_answer_deleted_meanwhile_is_not_blamed_on_the_note(monkeypatch):
    from rag_app.api import views as api_views

    reviewer = factories.make_user("rev1", groups=("staff", "reviewer"))
    answer = _answer(reviewer)
    _deleted_after_read(monkeypatch, api_views, "_answer_or_404")
    response = _client(reviewer).post(
        f"/api/v1/answers/{answer.pk}/review", {"verdict": "ok", "note": "fine"}, content_type="application/json"
    )
    body = response.json()
    assert response.status_code in (404, 409) and "note" not in body, (response.status_code, body)


@pytest.mark.django_db
def test_api_feedback_on_an_answer_deleted_meanwhile_is_not_blamed_on_the_kind(monkeypatch):
    from rag_app.api import views as api_views

    staff = factories.make_user("staff1")
    answer = _answer(staff)
    _deleted_after_read(monkeypatch, api_views, "_answer_or_404")
    response = _client(staff).post(
        f"/api/v1/answers/{answer.pk}/feedback", {"kind": "helpful"}, content_type="application/json"
    )
    body = response.json()
    assert response.status_code in (404, 409) and "kind" not in body, (response.status_code, body)


@pytest.mark.django_db
def test_the_answer_gone_refusal_is_chinese_in_the_chinese_interface(monkeypatch):
    from rag_app.views import feedback as feedback_views

    staff = factories.make_user("staff1")
    answer = _answer(staff)
    _deleted_after_read(monkeypatch, feedback_views, "answer_or_404")
    response = _client(staff, zh=True).post(
        f"/answers/{answer.pk}/feedback/", {"kind": "helpful"}, HTTP_HX_REQUEST="true"
    )
    text = response.content.decode()
    assert "This answer no longer exists" not in text, "AnswerGone's message is English only (no gettext)"


# --- 3. groups_kept: the API drops it, the page shows it in English ------------------------------------------


def _groups_kept_job():
    from rag_app.services import documents as documents_service
    from tests.workers import run_queued_jobs

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    admin_a = factories.make_admin("adminA")
    admin_b = factories.make_admin("adminB")
    job = _queued_job(admin_a, V2, "refunds", groups=[])
    doc = Document.objects.get(source_id="refunds")
    documents_service.document_update(user=admin_b, document=doc, groups=[factories.make_group("hr")])
    run_queued_jobs()
    job.refresh_from_db()
    assert job.state == "done" and job.results[0].get("groups_kept") is True, job.results
    return admin_a, job


@pytest.mark.django_db
def test_the_api_job_result_says_the_groups_were_kept():
    """IngestResultOutput declares no groups_kept field, so DRF drops it: an API client is told only through an
    English parenthesis in `line` that its requested access was not applied."""
    admin_a, job = _groups_kept_job()
    body = _client(admin_a).get(f"/api/v1/ingest-jobs/{job.pk}").json()
    assert body["results"][0].get("groups_kept") is True, body["results"]


@pytest.mark.django_db
def test_the_upload_page_says_the_groups_were_kept_in_chinese():
    admin_a, _ = _groups_kept_job()
    text = _client(admin_a, zh=True).get("/manage/documents/upload/").content.decode()
    assert "access left as changed after this file was queued" not in text, (
        "the upload page shows IngestResult.line's English note in the Chinese interface"
    )


# --- 4. groups_as_of: a document created (unaudited) after the job was queued is widened ----------------------


@pytest.mark.django_db
def test_a_stale_open_choice_never_widens_a_document_another_admin_created_restricted():
    """Admin A queues `pay` (not yet existing) "open to all staff". Before a worker takes it, admin B uploads `pay`
    restricted to hr. A new document's groups are set without a LevelChange row, so _access_changed_since finds
    nothing after A's job was queued and A's stale choice opens B's restricted document to every staff user
    (and nothing says the job's choice was newer than B's)."""
    from rag_app.ingest.service import document_ingest
    from tests.workers import run_queued_jobs

    factories.make_levels()
    factories.make_group("hr")
    admin_a = factories.make_admin("adminA")
    admin_b = factories.make_admin("adminB")
    job = _queued_job(admin_a, V2, "pay", groups=[])
    document_ingest(data=V1.encode(), file_name="pay.txt", source_id="pay", groups=["hr"], uploader=admin_b)
    run_queued_jobs()
    job.refresh_from_db()
    assert job.state == "done", (job.state, job.error_code)
    groups = sorted(Document.objects.get(source_id="pay").groups.values_list("name", flat=True))
    assert groups == ["hr"], f"A's stale 'open to all staff' widened B's hr-only document: groups={groups}"


# --- 5. PostgreSQL lock races: the new locks make the other writer fail at commit ------------------------------


def _postgres_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("races only show on PostgreSQL (RAG_TEST_DB=postgres)")


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("what", ["feedback", "verdict"])
def test_a_forced_delete_waiting_on_feedback_still_deletes(monkeypatch, what):
    """feedback_add/answer_review hold the answer FOR UPDATE and insert their row. A forced delete started then has
    already collected (fast-deleted) the answer's feedback and reviews when its DELETE of the answer waits on that
    lock; once the feedback commits, the delete goes on and its deferred foreign key check fails at commit:
    IntegrityError, a 500 for the admin, the document not deleted. The docstring promises the delete 'then removes
    it with the answer'."""
    _postgres_only()
    from rag_app.services import documents as documents_service
    from rag_app.services import feedback as feedback_service

    staff = factories.make_user("rev1", groups=("staff", "reviewer"))
    answer = _answer(staff)
    doc = Document.objects.get(source_id="refunds")
    real = feedback_service._lock_answer
    actors = []

    def lock_then_delete(a):
        real(a)
        actors.append(
            started_until_blocked(lambda: documents_service.document_delete(user=None, document=doc, force=True))
        )

    monkeypatch.setattr(feedback_service, "_lock_answer", lock_then_delete)
    if what == "feedback":
        feedback_service.feedback_add(user=staff, answer=answer, kind="helpful")
    else:
        feedback_service.answer_review(reviewer=staff, answer=answer, verdict="ok")
    actor = actors[0].finish()
    assert actor.error is None, f"the forced delete failed: {type(actor.error).__name__}: {str(actor.error)[:300]}"
    assert not Document.objects.filter(pk=doc.pk).exists()
    assert not Answer.objects.filter(pk=answer.pk).exists() and not Feedback.objects.filter(answer_id=answer.pk)


@pytest.mark.django_db(transaction=True)
def test_a_level_delete_that_waits_on_an_ingest_succeeds(monkeypatch):
    """_hold_level takes FOR KEY SHARE on the level; the Django admin's delete of that level has already set its
    collected documents' level to NULL when its DELETE waits. The ingest commits a new document pointing at the
    level; the delete then goes on and fails at commit (deferred foreign key): IntegrityError, a 500 in the admin.
    DEPLOYMENT.md says 'a delete waits' (not that it fails)."""
    _postgres_only()
    from rag_app.ingest import service

    factories.make_levels()
    real = service._hold_level
    actors = []

    def hold_then_delete(level):
        real(level)
        actors.append(started_until_blocked(lambda: SourceLevel.objects.filter(pk=level.pk).delete()))

    monkeypatch.setattr(service, "_hold_level", hold_then_delete)
    service.document_ingest(data=V1.encode(), file_name="refunds.txt", source_id="refunds", level="note")
    actor = actors[0].finish()
    assert actor.error is None, f"the level delete failed: {type(actor.error).__name__}: {str(actor.error)[:300]}"
    assert not SourceLevel.objects.filter(slug="note").exists()
    assert Document.objects.get(source_id="refunds").level is None


@pytest.mark.django_db(transaction=True)
def test_a_document_deleted_after_the_citation_check_waits_for_the_answer_and_is_then_refused(monkeypatch):
    """_cited_chunks holds the cited chunk rows (FOR KEY SHARE) until the answer commits: a plain delete started
    between that read and the answer's commit waits, the answer is stored answered (not a foreign-key error at
    commit, stored as internal_error), and the delete then finds it cited and is refused (DocumentCited)."""
    _postgres_only()
    from rag_app.services import answers as answers_service
    from rag_app.services import documents as documents_service
    from rag_app.services.ask import ask

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    staff = factories.make_user("staff1")
    doc = Document.objects.get(source_id="refunds")
    real = answers_service._cited_chunks
    actors = []

    def read_then_delete(aligned):
        out = real(aligned)
        actors.append(started_until_blocked(lambda: documents_service.document_delete(user=None, document=doc)))
        return out

    monkeypatch.setattr(answers_service, "_cited_chunks", read_then_delete)
    answer = ask(user=staff, question=QUESTION, mode="extractive")
    assert (answer.state, answer.reason) == ("answered", ""), (answer.state, answer.reason)
    actor = actors[0].finish()
    assert type(actor.error).__name__ == "DocumentCited", actor.error
    assert Document.objects.filter(pk=doc.pk).exists() and answer.paragraphs.get().citations.exists()


_ = IngestJob
