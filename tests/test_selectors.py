from __future__ import annotations

import pytest

from rag_app import selectors
from rag_app.services import ask
from tests import factories

pytestmark = pytest.mark.django_db


def test_chunks_follow_document_visibility():
    """A chunk is visible exactly when its document is: open, shared with a group of the user, or admin."""
    open_doc = factories.make_document("Open text.", source_id="open.txt")
    hr_doc = factories.make_document("Salary bands.", source_id="hr/pay.txt", groups=["hr"])
    staff = factories.make_user(groups=("staff",))
    hr = factories.make_user(groups=("staff", "hr"))
    admin = factories.make_admin()

    def visible(user) -> set[str]:
        return set(selectors.chunks_visible_to(user).values_list("version__document__source_id", flat=True))

    assert visible(staff) == {open_doc.source_id}
    assert visible(hr) == {open_doc.source_id, hr_doc.source_id}
    assert visible(admin) == {open_doc.source_id, hr_doc.source_id}


def test_current_versions_name_only_documents_the_user_may_read():
    """An old citation links its document's current version: only for a reader of that document."""
    factories.ingest_text("Open text.", source_id="open.txt")
    factories.ingest_text("Open text, second wording.", source_id="open.txt")
    factories.ingest_text("Salary bands.", source_id="hr/pay.txt", groups=["hr"])
    staff = factories.make_user(groups=("staff",))
    hr = factories.make_user(groups=("staff", "hr"))
    among = ["open.txt", "hr/pay.txt", "gone.txt"]
    assert selectors.current_versions(user=staff, source_ids=among) == {"open.txt": 2}
    assert selectors.current_versions(user=hr, source_ids=among) == {"open.txt": 2, "hr/pay.txt": 1}
    assert selectors.current_versions(user=None, source_ids=among) == {"open.txt": 2}
    assert selectors.chunk_get(user=staff, chunk_id="hr/pay.txt:v1:0") is None
    assert selectors.chunk_get(user=hr, chunk_id="hr/pay.txt:v1:0") is not None


def test_a_user_without_a_role_sees_nothing():
    """No role group: no documents, no chunks, no answers."""
    factories.make_document("Open text.")
    nobody = factories.make_user(groups=())
    assert not selectors.documents_visible_to(nobody).exists()
    assert not selectors.chunks_visible_to(nobody).exists()
    assert not selectors.answers_visible_to(nobody).exists()


def test_document_get_annotates_the_current_version():
    """current_version_number follows the newest version after a change."""
    factories.make_document("One.", source_id="d.txt")
    factories.make_document("Two, changed.", source_id="d.txt")
    document = selectors.document_get(user=factories.make_admin(), source_id="d.txt")
    assert document is not None
    assert document.current_version_number == 2
    assert [v.version for v in selectors.document_versions(document=document)] == [2, 1]


def test_answers_are_the_askers_own_unless_reviewer():
    """Staff see their own answers; reviewers see everyone's."""
    alice = factories.make_user("alice", groups=("staff",))
    bob = factories.make_user("bob", groups=("staff",))
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    answer = ask(user=alice, question="anything at all?")
    assert selectors.answer_get(user=alice, answer_id=answer.pk) == answer
    assert selectors.answer_get(user=bob, answer_id=answer.pk) is None
    assert selectors.answer_get(user=reviewer, answer_id=answer.pk) == answer
    assert list(selectors.answer_list(user=reviewer, username="alice")) == [answer]
    assert list(selectors.answer_list(user=reviewer, username="bob")) == []
