from __future__ import annotations

import json

import pytest

from rag_app.models import Answer
from rag_app.presentation import answer_payload
from tests import factories

REFUND = "The refund deadline is 30 days after purchase. Returns need a receipt."


def test_staff_asks_and_gets_the_stored_answer(api_as, staff_user):
    """201 with the answer JSON: linked paragraphs citing the document, exactly as stored."""
    factories.make_document(REFUND, source_id="policy/refund.txt")
    response = api_as(staff_user).post("/api/v1/ask", {"question": "What is the refund deadline?"}, format="json")
    assert response.status_code == 201
    body = response.json()
    assert (body["state"], body["reason"], body["mode"]) == ("answered", None, "extractive")
    assert body["paragraphs"][0]["evidence_status"] == "linked"
    assert body["sources"][0]["source_id"] == "policy/refund.txt"
    assert body["sources"][0]["chunk_id"] == "policy/refund.txt:v1:0"
    answer = Answer.objects.get(pk=body["id"])
    assert answer.user == staff_user
    # The API adds nothing and drops nothing: it is the presenter's JSON of the stored answer.
    assert body == json.loads(json.dumps(answer_payload(answer, viewer=staff_user)))


def test_every_cited_marker_is_in_sources_once(api_as, staff_user):
    """sources holds exactly the cited markers, each once, in first-citation order."""
    factories.make_document(REFUND, source_id="a.txt")
    factories.make_document("Refunds for damaged goods are paid within 5 days.", source_id="b.txt")
    body = api_as(staff_user).post("/api/v1/ask", {"question": "refund days"}, format="json").json()
    cited: list[str] = []
    for paragraph in body["paragraphs"]:
        cited += [marker for marker in paragraph["citation_ids"] if marker not in cited]
    assert [source["id"] for source in body["sources"]] == cited


def test_no_evidence_is_a_state_not_an_error(api_as, staff_user):
    """Nothing relevant: 201 with state no_evidence and a reason code, no paragraphs (rule 11)."""
    factories.make_document(REFUND)
    body = api_as(staff_user).post("/api/v1/ask", {"question": "Who won the 1966 world cup?"}, format="json").json()
    assert body["state"] == "no_evidence"
    assert body["reason"]
    assert body["paragraphs"] == body["sources"] == []


def test_an_unconfigured_model_is_a_stored_error_answer(api_as, staff_user, settings):
    """mode=llm without a model server: the answer is stored in state error with its reason."""
    settings.RAG = {**settings.RAG, "OPENAI_BASE_URL": ""}
    factories.make_document(REFUND)
    response = api_as(staff_user).post(
        "/api/v1/ask", {"question": "What is the refund deadline?", "mode": "llm"}, format="json"
    )
    assert response.status_code == 201
    assert (response.json()["state"], response.json()["reason"]) == ("error", "llm_not_configured")


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"question": ""}, "question"),
        ({"question": "   \n\t "}, "question"),
        ({"question": "x" * 100_000}, "question"),
        ({"question": "what\x00is this"}, "question"),
        ({"question": "bell \x07 and escape \x1b[31m"}, "question"),
        ({"question": 42}, "question"),
        ({"question": ["a", "b"]}, "question"),
        ({"question": None}, "question"),
        ({}, "question"),
        ({"question": "ok?", "mode": "poetry"}, "mode"),
        ({"question": "ok?", "temperature": 2}, "temperature"),
    ],
    ids=[
        "empty",
        "whitespace",
        "100kB",
        "nul",
        "control",
        "number",
        "list",
        "null",
        "missing",
        "bad-mode",
        "unknown-field",
    ],
)
def test_bad_questions_are_400_and_nothing_is_stored(api_as, staff_user, body, field):
    """Each bad input: 400 with a JSON body naming the field, and no answer row."""
    response = api_as(staff_user).post("/api/v1/ask", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["fields"]
    assert response.json()["detail"]
    assert not Answer.objects.exists()


def test_a_binary_body_is_rejected(api_as, staff_user):
    """Raw bytes as the body: 415 for a non-JSON type, 400 for undecodable JSON; nothing stored."""
    client = api_as(staff_user)
    octets = client.generic("POST", "/api/v1/ask", bytes(range(256)), content_type="application/octet-stream")
    garbage = client.generic("POST", "/api/v1/ask", b"\xff\xfe\x00q\x81", content_type="application/json")
    assert octets.status_code == 415
    assert garbage.status_code == 400
    assert not Answer.objects.exists()


def test_ask_needs_the_staff_role(api_as, db):
    """Anonymous: 401; signed in without a role: 403."""
    assert api_as(None).post("/api/v1/ask", {"question": "q"}, format="json").status_code == 401
    no_role = factories.make_user(groups=())
    assert api_as(no_role).post("/api/v1/ask", {"question": "q"}, format="json").status_code == 403
    assert not Answer.objects.exists()


def test_ask_is_throttled_per_user(api_as, staff_user, reviewer_user, settings):
    """Over RAG_ASK_THROTTLE: 429 with Retry-After; another user still has their own allowance."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "ask": "2/min"},
    }
    client = api_as(staff_user)
    codes = [client.post("/api/v1/ask", {"question": "q?"}, format="json").status_code for _ in range(3)]
    assert codes == [201, 201, 429]
    blocked = client.post("/api/v1/ask", {"question": "q?"}, format="json")
    assert blocked.json()["code"] == "throttled"
    assert int(blocked["Retry-After"]) > 0
    assert api_as(reviewer_user).post("/api/v1/ask", {"question": "q?"}, format="json").status_code == 201
    assert Answer.objects.count() == 3


def test_a_body_over_the_request_limit_is_a_413(api_as, staff_user):
    """A JSON body over DATA_UPLOAD_MAX_MEMORY_SIZE: 413 too_large, nothing stored."""
    body = json.dumps({"question": "x" * 3_000_000}).encode()
    response = api_as(staff_user).generic("POST", "/api/v1/ask", body, content_type="application/json")
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    assert not Answer.objects.exists()
