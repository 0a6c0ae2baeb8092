"""`manage.py retire`, `restore` and `delete_document`: the operator's tools (user=None)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from rag_app.models import Answer, Document, DocumentEvent
from rag_app.search.hybrid import search
from tests import factories
from tests.views.answers import Para, make_answer

pytestmark = pytest.mark.django_db

QUESTION = "Within how many days are refunds accepted?"


@pytest.fixture
def documents(levels) -> None:
    factories.ingest_text("Refunds are accepted within 30 days of purchase.", source_id="policy/refund.txt")
    factories.ingest_text("Board pay rises.", source_id="board/pay", groups=["board"])


def run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def found(source_id: str) -> bool:
    return source_id in {r.source_id for r in search(user=None, question=QUESTION)}


def test_retire_and_restore(documents):
    assert found("policy/refund.txt")
    out, _ = run("retire", "policy/refund.txt")
    assert out == "policy/refund.txt retired\n"
    assert not found("policy/refund.txt")
    assert run("retire", "policy/refund.txt")[0] == "policy/refund.txt already retired\n"

    out, _ = run("restore", "policy/refund.txt")
    assert out == "policy/refund.txt restored\n"
    assert found("policy/refund.txt")
    assert run("restore", "policy/refund.txt")[0] == "policy/refund.txt not retired\n"
    events = list(DocumentEvent.objects.order_by("id").values_list("action", "user", "username"))
    assert events == [("retired", None, ""), ("restored", None, "")]


def test_the_operator_reaches_restricted_documents(documents):
    out, _ = run("retire", "board/pay")
    assert out == "board/pay retired\n"
    assert Document.objects.get(source_id="board/pay").retired_at is not None


@pytest.mark.parametrize("command", ["retire", "restore", "delete_document"])
def test_an_unknown_id_is_an_error_line_and_a_non_zero_exit_the_others_go_on(documents, command):
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="1 of 2 failed"):
        call_command(command, "no/such.txt", "board/pay", stdout=out, stderr=err)
    assert "error: 'no/such.txt': no such document" in err.getvalue()
    assert out.getvalue().startswith("board/pay ")


def test_delete_document(documents):
    out, _ = run("delete_document", "policy/refund.txt")
    assert out == "policy/refund.txt deleted: 1 versions, 1 chunks\n"
    assert not Document.objects.filter(source_id="policy/refund.txt").exists()
    assert not found("policy/refund.txt")
    event = DocumentEvent.objects.get()
    assert (event.action, event.source_id, event.user, event.username) == ("deleted", "policy/refund.txt", None, "")


def test_delete_document_is_refused_while_cited_unless_forced(documents, staff_user):
    chunk = factories.chunks_of("policy/refund.txt")[0]
    answer = make_answer(user=staff_user, paragraphs=[Para("Within 30 days.", cites=[("S1", chunk)])])
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="1 of 1 failed"):
        call_command("delete_document", "policy/refund.txt", stdout=out, stderr=err)
    assert "error: 'policy/refund.txt': 1 answer cites document 'policy/refund.txt'" in err.getvalue()
    assert "(--force)" in err.getvalue()
    assert Document.objects.filter(source_id="policy/refund.txt").exists()

    out_text, _ = run("delete_document", "policy/refund.txt", "--force")
    assert out_text == "policy/refund.txt deleted: 1 versions, 1 chunks, 1 citing answers deleted\n"
    assert not Answer.objects.filter(pk=answer.pk).exists()
    assert DocumentEvent.objects.get().detail["answers_deleted"] == [answer.pk]
