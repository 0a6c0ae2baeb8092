"""API: POST documents/<id>/retire and /restore, DELETE documents/<id> (409 while cited, ?force=1)."""

from __future__ import annotations

import pytest
import yaml

from rag_app.models import Answer, Document, DocumentEvent
from tests import factories
from tests.views.answers import Para, make_answer

SOURCE = "policy/refund.txt"
URL = f"/api/v1/documents/{SOURCE}"


@pytest.fixture
def document(levels) -> Document:
    return factories.make_document("Refunds are accepted within 30 days of purchase.", source_id=SOURCE)


def test_retire_and_restore(api_as, admin_user_role, staff_user, document):
    client = api_as(admin_user_role)
    assert client.get(URL).json()["retired_at"] is None

    response = client.post(f"{URL}/retire")
    assert response.status_code == 200
    body = response.json()
    assert body["source_id"] == SOURCE and body["retired_at"] is not None
    # Still readable by staff, labelled.
    assert api_as(staff_user).get(URL).json()["retired_at"] == body["retired_at"]
    listed = api_as(staff_user).get("/api/v1/documents/").json()["results"]
    assert [d["retired_at"] is not None for d in listed] == [True]

    response = client.post(f"{URL}/restore")
    assert response.status_code == 200 and response.json()["retired_at"] is None
    assert list(DocumentEvent.objects.order_by("id").values_list("action", "username")) == [
        ("retired", "admin1"),
        ("restored", "admin1"),
    ]


def test_answer_sources_carry_the_retired_flag(api_as, staff_user, document):
    chunk = factories.chunks_of(document)[0]
    answer = make_answer(user=staff_user, paragraphs=[Para("Within 30 days.", cites=[("S1", chunk)])])
    client = api_as(staff_user)
    assert [s["retired"] for s in client.get(f"/api/v1/answers/{answer.pk}").json()["sources"]] == [False]
    Document.objects.filter(pk=document.pk).update(retired_at="2026-01-02T03:04:05Z")
    body = client.get(f"/api/v1/answers/{answer.pk}").json()
    assert [s["retired"] for s in body["sources"]] == [True]
    assert body["paragraphs"][0]["evidence_status"] == "linked"


def test_delete_without_citations(api_as, admin_user_role, document):
    response = api_as(admin_user_role).delete(URL)
    assert response.status_code == 200
    assert response.json() == {"source_id": SOURCE, "versions": 1, "chunks": 1, "answers_deleted": []}
    assert not Document.objects.filter(source_id=SOURCE).exists()
    assert api_as(admin_user_role).get(URL).status_code == 404
    event = DocumentEvent.objects.get()
    assert (event.action, event.source_id, event.username, event.document_id) == ("deleted", SOURCE, "admin1", None)


def test_delete_is_409_while_cited_and_force_deletes_the_answers(api_as, admin_user_role, staff_user, document):
    chunk = factories.chunks_of(document)[0]
    answer = make_answer(user=staff_user, paragraphs=[Para("Within 30 days.", cites=[("S1", chunk)])])
    client = api_as(admin_user_role)

    response = client.delete(URL)
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "document_cited"
    assert "1 answer cites document 'policy/refund.txt'" in body["detail"]
    assert Document.objects.filter(pk=document.pk).exists() and Answer.objects.filter(pk=answer.pk).exists()

    response = client.delete(f"{URL}?force=1")
    assert response.status_code == 200 and response.json()["answers_deleted"] == [answer.pk]
    assert not Answer.objects.filter(pk=answer.pk).exists()


def test_force_must_be_a_boolean(api_as, admin_user_role, document):
    response = api_as(admin_user_role).delete(f"{URL}?force=maybe")
    assert response.status_code == 400 and "force" in response.json()["fields"]
    assert Document.objects.filter(pk=document.pk).exists()


@pytest.mark.parametrize(("method", "suffix"), [("post", "/retire"), ("post", "/restore"), ("delete", "")])
def test_only_admins_who_may_read_it(api_as, staff_user, reviewer_user, levels, method, suffix):
    factories.make_document("Board pay rises.", source_id="board/pay", groups=["board"])
    url = f"/api/v1/documents/board/pay{suffix}"
    for user in (staff_user, reviewer_user):
        assert getattr(api_as(user), method)(url).status_code == 403
    outsider_admin = factories.make_user("admin-b", groups=("staff", "admin"))
    response = getattr(api_as(outsider_admin), method)(url)
    assert response.status_code == 404 and response.json()["code"] == "not_found"
    assert getattr(api_as(outsider_admin), method)(f"/api/v1/documents/nope{suffix}").status_code == 404
    assert api_as(None).post(url).status_code == 401
    assert Document.objects.get(source_id="board/pay").retired_at is None
    member_admin = factories.make_user("admin-board", groups=("staff", "admin", "board"))
    assert getattr(api_as(member_admin), method)(url).status_code == 200


def test_a_source_id_ending_in_retire_is_still_reachable(api_as, admin_user_role, levels):
    """GET, PATCH and DELETE on documents/<x>/retire name the document "<x>/retire"; POST retires "<x>"."""
    factories.make_document("Notes on retiring.", source_id="notes/retire")
    client = api_as(admin_user_role)
    assert client.get("/api/v1/documents/notes/retire").json()["source_id"] == "notes/retire"
    response = client.patch("/api/v1/documents/notes/retire", {"title": "Retiring"}, format="json")
    assert response.status_code == 200 and response.json()["title"] == "Retiring"
    assert client.post("/api/v1/documents/notes/retire/retire").json()["retired_at"] is not None
    assert client.post("/api/v1/documents/notes/retire").status_code == 404  # there is no document "notes"
    assert client.delete("/api/v1/documents/notes/retire").status_code == 200
    assert not Document.objects.exists()


def test_the_schema_lists_the_new_operations(api_as, staff_user):
    paths = yaml.safe_load(api_as(staff_user).get("/api/v1/schema/").content)["paths"]
    assert set(paths["/api/v1/documents/{source_id}"]) >= {"get", "patch", "delete"}
    assert set(paths["/api/v1/documents/{source_id}/retire"]) == {"post"}
    assert set(paths["/api/v1/documents/{source_id}/restore"]) == {"post"}
    assert "409" in paths["/api/v1/documents/{source_id}"]["delete"]["responses"]


@pytest.mark.parametrize(("method", "path"), [("post", f"{URL}/retire"), ("post", f"{URL}/restore"), ("delete", URL)])
def test_a_body_sent_to_an_action_that_reads_none_is_refused(api_as, admin_user_role, document, method, path):
    """Retire, restore and delete read no body: {"force": true} sent to DELETE (force is a query parameter) or a
    reason sent to retire is a 400 naming the field, and nothing is done; an empty body is fine."""
    client = api_as(admin_user_role)
    response = getattr(client, method)(path, {"force": True, "reason": "cleanup"}, format="json")
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "invalid" and {"force", "reason"} <= set(body.get("fields", {})), body
    assert Document.objects.get(source_id=SOURCE).retired_at is None
    assert not DocumentEvent.objects.exists()
    assert getattr(client, method)(path, format="json").status_code == 200
