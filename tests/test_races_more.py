"""More races between writers (PostgreSQL, real transactions on separate connections): probes not covered by
tests/test_races.py.

Each test forces one interleaving deterministically: a hook (monkeypatched function) inside one actor runs the
other actor to completion in a thread with its own database connection. Each asserts what the product promises;
a failing test demonstrates a bug. The passing ones pin what was checked and found right.
"""

from __future__ import annotations

import importlib

import pytest
from django.db import connection

from rag_app.models import Answer, Citation, Document, DocumentVersion, Feedback, IngestJob, LevelChange, SourceLevel
from tests import factories
from tests.test_races import Actor, run_now  # the same actors as the first probes

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _postgres_only() -> None:
    if connection.vendor != "postgresql":
        pytest.skip("races only show on PostgreSQL (RAG_TEST_DB=postgres)")


def ingest(text: str, source_id: str, **kw):
    from rag_app.ingest.service import document_ingest

    return document_ingest(
        data=text.encode(), file_name=f"{source_id.rsplit('/', 1)[-1]}.txt", source_id=source_id, **kw
    )


V1 = "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt."
V2 = "Refund policy. Refunds are accepted within 14 days of purchase with the original receipt."
QUESTION = "Within how many days of purchase are refunds accepted?"

SECRET = "Bonus pool. The executive bonus pool is 4.2 million euros for 2025 and is paid out in March."
PUBLIC = "Bonus pool. The staff bonus pool is announced on the intranet; ask your manager about the amount."
PAY_QUESTION = "How large is the executive bonus pool?"


def _ask_module():
    return importlib.import_module("rag_app.services.ask")


def _after_retrieval(monkeypatch, action) -> list[int]:
    """Run `action` (in its own connection, to completion) once the ask has retrieved and assembled, before the
    generator runs and the answer is stored."""
    ask_service = _ask_module()
    real = ask_service.assemble_selection
    fired: list[int] = []

    def assemble_then_act(selection):
        out = real(selection)
        if not fired:
            fired.append(1)
            actor = run_now(action)
            assert actor.error is None, actor.error
        return out

    monkeypatch.setattr(ask_service, "assemble_selection", assemble_then_act)
    return fired


# --- 1. a document deleted and its source_id re-used while a question is answered ---------------------------


def _delete_and_reupload_during_ask(monkeypatch):
    from rag_app.services import documents as documents_service

    factories.make_levels()
    factories.make_group("hr")
    factories.ingest_text(SECRET, source_id="hr/pay", groups=["hr"])
    asker = factories.make_user("hr1", groups=("staff", "hr"))
    doc = Document.objects.get(source_id="hr/pay")

    def delete_then_reupload():
        # No answer cites it yet: a plain delete succeeds. Then someone uploads a new, open document under the
        # freed source_id (its first version: chunk ids "hr/pay:v1:N" again).
        documents_service.document_delete(user=None, document=doc)
        ingest(PUBLIC, "hr/pay")

    fired = _after_retrieval(monkeypatch, delete_then_reupload)
    answer = _ask_module().ask(user=asker, question=PAY_QUESTION, mode="extractive")
    assert fired, "the hook did not run: retrieval found nothing"
    new_doc = Document.objects.get(source_id="hr/pay")
    assert new_doc.pk != doc.pk and not new_doc.groups.exists()
    return Answer.objects.get(pk=answer.pk)


def test_an_answer_never_cites_another_documents_chunk_that_reused_the_chunk_id(monkeypatch):
    """Retrieval found `hr/pay:v1:0` of the restricted document; before the answer is stored the document is
    deleted and a different document is uploaded under the same source_id (its chunk is `hr/pay:v1:0` too).
    answer_store joins citations to chunks by the chunk_id string only, so the stored citation points at the NEW
    document's chunk while its snippet (and the paragraph) are the OLD document's text: a citation whose chunk does
    not hold what it quotes, of a document the model never saw."""
    stored = _delete_and_reupload_during_ask(monkeypatch)
    cites = list(Citation.objects.filter(paragraph__answer=stored).select_related("chunk__version__document"))
    wrong = [(c.chunk.chunk_id, c.snippet[:60], c.chunk.text[:60]) for c in cites if c.snippet not in c.chunk.text]
    assert not wrong, f"answer {stored.pk} ({stored.state}) cites chunks that do not hold its snippets: {wrong}"
    # what it read is gone: the question is kept, with its own reason and the trace (shown to hr only)
    assert (stored.state, stored.reason) == ("error", "sources_changed"), (stored.state, stored.reason)
    assert "hr/pay:v1:0" in stored.trace.error and "4.2 million" in stored.trace.context


def test_a_reviewer_outside_the_group_never_reads_a_restricted_document_through_a_racing_answer(monkeypatch):
    """The same interleaving, seen by a reviewer who is not in `hr`: the answer quotes the deleted restricted
    document, but its citation (and the trace's source_id, checked with `existing_at=answer.created_at`, which is
    after the new open document was created) now resolve to the open document, so the presenter shows the secret
    paragraph, snippet and trace context to the reviewer."""
    from rag_app import presentation, selectors

    stored = _delete_and_reupload_during_ask(monkeypatch)
    reviewer = factories.make_user("rev1", groups=("staff", "reviewer"))
    assert selectors.answer_get(user=reviewer, answer_id=stored.pk) is not None  # reviewers open every answer
    view = presentation.present_answer(stored, viewer=reviewer)
    shown = [p.text for p in view.paragraphs if not p.withheld] + [c.snippet for c in view.all_cards()]
    trace = presentation.trace_for(stored, viewer=reviewer) or {}
    leaked = [t for t in [*shown, trace.get("context", ""), trace.get("prompt", "")] if "4.2 million" in t]
    assert not leaked, f"the reviewer (not in hr) reads the restricted document's text: {leaked[:2]}"


# --- 2. access groups changed while a question is answered (checked: safe) ---------------------------------


def test_groups_narrowed_while_a_question_is_answered_withhold_it_from_the_asker_afterwards(monkeypatch):
    """The document is restricted to `hr` after retrieval read it as open: the stored answer quotes it, but every
    surface presents at read time, so the asker (not in hr) is shown neither the paragraph, the snippet nor the
    trace's context."""
    from rag_app import presentation
    from rag_app.services import documents as documents_service

    factories.make_levels()
    hr = factories.make_group("hr")
    factories.ingest_text(SECRET, source_id="pay")
    asker = factories.make_user("staff1")
    doc = Document.objects.get(source_id="pay")
    _after_retrieval(monkeypatch, lambda: documents_service.document_update(user=None, document=doc, groups=[hr]))
    answer = _ask_module().ask(user=asker, question=PAY_QUESTION, mode="extractive")
    assert answer.state == "answered", (answer.state, answer.reason)
    view = presentation.present_answer(answer, viewer=asker)
    assert all(p.withheld for p in view.paragraphs) and not view.all_cards()
    trace = presentation.trace_for(answer, viewer=asker)
    assert trace["redacted"] and "4.2 million" not in str(trace)


def test_a_level_reweighted_or_deleted_while_a_question_is_answered_still_stores_the_answer(monkeypatch):
    """An admin reweights the document's level and another level is deleted during the ask: the answer is stored
    with the level slug it was retrieved with (citations keep a slug, not a foreign key)."""
    from rag_app.services import levels as level_services

    levels = factories.make_levels()
    factories.ingest_text(V1, source_id="refunds", level="official")
    staff = factories.make_user("staff1")

    def reweight_and_delete():
        level_services.level_update(user=None, level=levels["official"], weight=0.01)
        SourceLevel.objects.filter(slug="official").delete()  # the Django admin may delete a level

    _after_retrieval(monkeypatch, reweight_and_delete)
    answer = _ask_module().ask(user=staff, question=QUESTION, mode="extractive")
    assert answer.state == "answered", (answer.state, answer.reason)
    assert set(Citation.objects.filter(paragraph__answer=answer).values_list("level_slug", flat=True)) == {"official"}


def test_a_document_retired_while_a_question_is_answered_is_labelled_retired(monkeypatch):
    """Retired after retrieval: the answer that was already being made is stored, and every surface labels the
    citation retired (document_retire promises no NEW answer from the commit on; this one was under way)."""
    from rag_app import presentation
    from rag_app.services import documents as documents_service

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    staff = factories.make_user("staff1")
    doc = Document.objects.get(source_id="refunds")
    _after_retrieval(monkeypatch, lambda: documents_service.document_retire(user=None, document=doc))
    answer = _ask_module().ask(user=staff, question=QUESTION, mode="extractive")
    cards = presentation.present_answer(answer, viewer=staff).all_cards()
    assert cards and all(card.retired for card in cards)


# --- 3. feedback and verdicts on an answer deleted meanwhile -------------------------------------------------


def _answer_then_force_delete_on(monkeypatch, module, name):
    """An answer citing `refunds`; `module.name` (called inside the service after the answer was read) first
    lets an admin force-delete the document, which deletes the answer with it."""
    from rag_app.services import documents as documents_service

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    staff = factories.make_user("staff1")
    answer = _ask_module().ask(user=staff, question=QUESTION, mode="extractive")
    assert answer.state == "answered"
    doc = Document.objects.get(source_id="refunds")
    real = getattr(module, name)
    fired: list[int] = []

    def delete_first(*args, **kwargs):
        if not fired:
            fired.append(1)
            actor = run_now(lambda: documents_service.document_delete(user=None, document=doc, force=True))
            assert actor.error is None, actor.error
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, delete_first)
    return staff, answer


def test_feedback_on_an_answer_force_deleted_meanwhile_is_refused_cleanly(monkeypatch):
    """A reader marks an answer helpful (the view has read the answer) while an admin force-deletes its document
    (and so the answer). feedback_add inserts a Feedback row for a gone answer: PostgreSQL's foreign key check
    raises IntegrityError, which no view or API view catches (a 500), instead of a refusal or a 404."""
    from rag_app.services import feedback as feedback_service
    from rag_app.validation import InvalidInput

    staff, answer = _answer_then_force_delete_on(monkeypatch, feedback_service, "clean_comment")
    try:
        feedback_service.feedback_add(user=staff, answer=answer, kind="helpful", comment="thanks")
    except InvalidInput:
        pass
    except Exception as exc:
        pytest.fail(f"feedback on a deleted answer raised {type(exc).__name__}: {str(exc)[:200]}")
    assert not Feedback.objects.filter(answer_id=answer.pk).exists()


def test_a_verdict_on_an_answer_force_deleted_meanwhile_is_refused_cleanly(monkeypatch):
    """The same for a reviewer's verdict (answer_review): IntegrityError, a 500 on the page and the API."""
    from rag_app.services import feedback as feedback_service
    from rag_app.validation import InvalidInput

    _, answer = _answer_then_force_delete_on(monkeypatch, feedback_service, "clean_comment")
    reviewer = factories.make_user("rev1", groups=("staff", "reviewer"))
    try:
        feedback_service.answer_review(reviewer=reviewer, answer=answer, verdict="ok", note="fine")
    except InvalidInput:
        pass
    except Exception as exc:
        pytest.fail(f"a verdict on a deleted answer raised {type(exc).__name__}: {str(exc)[:200]}")


def test_replay_of_an_answer_whose_document_was_deleted_runs(monkeypatch):
    """An answer whose document was deleted while it was made (stored without citations, test_races.py #5) can be
    replayed: the replay runs and the deleted document's chunk is no longer a candidate. (An answer that cites a
    document cannot outlive it: a forced delete deletes it.)"""
    from rag_app.services import documents as documents_service
    from rag_app.services.answers import answer_replay

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    staff = factories.make_user("staff1")
    doc = Document.objects.get(source_id="refunds")
    _after_retrieval(monkeypatch, lambda: documents_service.document_delete(user=None, document=doc))
    answer = _ask_module().ask(user=staff, question=QUESTION, mode="extractive")
    rows, _ = answer_replay(answer=answer, user=staff, then={"refunds:v1:0": "kept"})
    assert all(row.record.source_id != "refunds" for row in rows)


# --- 4. trust levels changed while an ingest job is queued -------------------------------------------------


def _queued_job(admin, text, source_id, **options):
    from rag_app.services.ingest_jobs import ingest_job_create

    return ingest_job_create(
        user=admin, file_name=f"{source_id}.txt", size=len(text), read=lambda: text.encode(), source_id=source_id,
        **options,
    )  # fmt: skip


def test_a_level_deleted_while_its_job_is_being_ingested_does_not_fail_as_an_internal_error(monkeypatch):
    """A job asks for level `note`; the worker resolves the slug to its row (check_request), then an admin deletes
    the level (the Django admin allows it) before the version is written. The write points the document at a level
    row that is gone: the deferred foreign key fails at commit (IntegrityError), document_ingest retries it as if it
    were a creation race, and the job ends `internal_error` with the file dropped, instead of landing (without a
    level, as the level's documents did) or failing with `unknown_level`."""
    from rag_app.ingest import service
    from rag_app.tasks import ingest_file

    factories.make_levels()
    admin = factories.make_admin("admin1")
    job = _queued_job(admin, V1, "refunds", level="note")
    real_parse = service.parse
    fired: list[int] = []

    def parse_after_level_deleted(data, name):
        if not fired:
            fired.append(1)  # check_request has resolved `note` to its row
            actor = run_now(lambda: SourceLevel.objects.filter(slug="note").delete())
            assert actor.error is None, actor.error
        return real_parse(data, name)

    monkeypatch.setattr(service, "parse", parse_after_level_deleted)
    ingest_file.apply(args=[job.pk]).get()
    job.refresh_from_db()
    assert job.state == "done" or (job.state == "failed" and job.error_code != "internal_error"), (
        job.state,
        job.error_code,
        job.error[:300],
    )


def test_a_level_renamed_while_a_job_is_queued_keeps_the_chosen_level():
    """A job queued with level `note` stores the slug; an admin renames the level's slug (Django admin, audited by
    level_update) before a worker takes the job. The worker resolves the old slug: the job fails `unknown_level`
    and the uploaded file is dropped, though the level the uploader chose still exists."""
    from rag_app.services import levels as level_services
    from tests.workers import run_queued_jobs

    levels = factories.make_levels()
    admin = factories.make_admin("admin1")
    job = _queued_job(admin, V1, "refunds", level="note")
    level_services.level_update(user=admin, level=levels["note"], slug="team-note")
    run_queued_jobs()
    job.refresh_from_db()
    assert job.state == "done", (job.state, job.error_code, job.error)
    assert Document.objects.get(source_id="refunds").level.slug == "team-note"


def test_a_level_reweighted_while_a_job_is_queued_lands_with_that_level():
    from rag_app.services import levels as level_services
    from tests.workers import run_queued_jobs

    levels = factories.make_levels()
    admin = factories.make_admin("admin1")
    job = _queued_job(admin, V1, "refunds", level="note")
    level_services.level_update(user=admin, level=levels["note"], weight=42.0, label="Team note")
    run_queued_jobs()
    job.refresh_from_db()
    assert job.state == "done", (job.state, job.error_code, job.error)
    assert Document.objects.get(source_id="refunds").level.pk == levels["note"].pk


# --- 5. retire / restore / groups changed while an ingest job is queued or running --------------------------


def test_a_document_retired_while_its_job_runs_stays_retired():
    """Retired after the job was queued (and while it parses): the new version lands, the document stays retired."""
    from rag_app.services import documents as documents_service
    from tests.workers import run_queued_jobs

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    admin = factories.make_admin("admin1")
    job = _queued_job(admin, V2, "refunds")
    documents_service.document_retire(user=admin, document=Document.objects.get(source_id="refunds"))
    run_queued_jobs()
    job.refresh_from_db()
    assert job.state == "done"
    doc = Document.objects.get(source_id="refunds")
    assert doc.retired_at is not None
    assert DocumentVersion.objects.get(document=doc, is_current=True).version == 2


def test_a_document_restricted_while_its_job_is_queued_refuses_an_uploader_outside_the_groups():
    """An admin (not superuser) in `eng` queues a version; another admin restricts the document to `hr`. The worker
    re-checks the uploader's reach under the row lock: the job fails `not_found`, nothing is written."""
    from rag_app.services import documents as documents_service
    from tests.workers import run_queued_jobs

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    uploader = factories.make_user("admin2", groups=("staff", "admin", "eng"))
    job = _queued_job(uploader, V2, "refunds")
    documents_service.document_update(
        user=None, document=Document.objects.get(source_id="refunds"), groups=[factories.make_group("hr")]
    )
    run_queued_jobs()
    job.refresh_from_db()
    assert (job.state, job.error_code) == ("failed", "not_found")
    assert DocumentVersion.objects.filter(document__source_id="refunds").count() == 1


def test_a_queued_upload_that_sets_groups_after_a_later_restriction_is_audited():
    """Admin A queues a new version with "open to all staff" (groups=[]); before a worker takes it, admin B
    restricts the document to `hr` (document_update: a `document.groups` LevelChange row). The worker then applies
    A's choice: the document is open to all staff again, and nothing in the audit log says so (ingest's
    `doc.groups.set` records no LevelChange), so the log's last word is B's restriction while everyone can read
    the document."""
    from rag_app.services import documents as documents_service
    from tests.workers import run_queued_jobs

    factories.make_levels()
    factories.make_group("hr")
    factories.ingest_text(V1, source_id="refunds")
    admin_a = factories.make_admin("adminA")
    admin_b = factories.make_admin("adminB")
    job = _queued_job(admin_a, V2, "refunds", groups=[])
    doc = Document.objects.get(source_id="refunds")
    documents_service.document_update(user=admin_b, document=doc, groups=[factories.make_group("hr")])
    run_queued_jobs()
    job.refresh_from_db()
    assert job.state == "done", (job.state, job.error_code)
    actual = ",".join(sorted(doc.groups.values_list("name", flat=True)))
    # A's choice was made before B's: it does not widen the document again, and the job's result says so
    assert actual == "hr" and job.results[0]["groups_kept"] is True, (actual, job.results)
    assert "groups" not in job.results[0]["line"]  # the line stays the CLI's; the page and the API read the flag
    last = LevelChange.objects.filter(document=doc, field="document.groups").order_by("-pk").first()
    assert last is not None and last.new_value == actual, (
        f"the document's groups are {actual!r} but the audit log's last groups change says"
        f" {last.new_value if last else None!r}"
    )


def test_a_queued_upload_that_changes_groups_is_applied_and_audited_when_nobody_changed_them_since():
    from tests.workers import run_queued_jobs

    factories.make_levels()
    factories.make_group("hr")
    factories.ingest_text(V1, source_id="refunds", groups=["hr"])
    admin_a = factories.make_admin("adminA")
    job = _queued_job(admin_a, V2, "refunds", groups=[])
    run_queued_jobs()
    job.refresh_from_db()
    doc = Document.objects.get(source_id="refunds")
    assert job.state == "done" and "groups_kept" not in job.results[0] and not doc.groups.exists()
    change = LevelChange.objects.get(document=doc, field="document.groups")
    assert (change.user, change.old_value, change.new_value) == (admin_a, "hr", "")


def test_a_document_force_deleted_while_its_job_is_queued_lands_as_a_new_document():
    from rag_app.services import documents as documents_service
    from tests.workers import run_queued_jobs

    factories.make_levels()
    factories.ingest_text(V1, source_id="refunds")
    admin = factories.make_admin("admin1")
    job = _queued_job(admin, V2, "refunds")
    documents_service.document_delete(user=admin, document=Document.objects.get(source_id="refunds"), force=True)
    run_queued_jobs()
    job.refresh_from_db()
    assert job.state == "done" and job.results[0]["status"] == "new", job.results
    assert IngestJob.objects.get(pk=job.pk).version.version == 1


def test_a_double_click_on_a_vote_stores_one_vote_and_no_error():
    """Two requests of one reader at once (a double click, then a change of mind racing it): each is answered, and
    the reader has one vote (services.feedback: the answer's row orders them; one_vote_per_reader backs it)."""
    import threading

    from rag_app.services.feedback import feedback_add

    factories.make_levels()
    factories.ingest_text("Refunds are accepted within 30 days of purchase.", source_id="refunds")
    reader = factories.make_user("staff1")
    answer = importlib.import_module("rag_app.services.ask").ask(
        user=reader, question="Within how many days are refunds accepted?"
    )
    for kinds in (("helpful", "helpful"), ("not_helpful", "helpful")):
        barrier = threading.Barrier(2)

        def vote(kind, barrier=barrier):
            barrier.wait(30)
            return feedback_add(user=reader, answer=answer, kind=kind)

        actors = [Actor(lambda k=k: vote(k)) for k in kinds]
        for actor in actors:
            actor.start()
        for actor in actors:
            actor.finish()
        assert [actor.error for actor in actors] == [None, None]
        current = Feedback.objects.filter(answer=answer, user=reader, replaced_at__isnull=True)
        assert current.count() == 1 and current.get().kind in kinds
