"""The review loop in the API: feedback, verdicts, and both shown in the answer JSON."""

from __future__ import annotations

import pytest

from rag_app.models import Feedback
from tests.views.answers import refund_answer

pytestmark = pytest.mark.django_db


@pytest.fixture
def answer(staff_user, levels):
    return refund_answer(user=staff_user)


def test_feedback_and_verdict_round_trip(api_as, staff_user, reviewer_user, answer):
    """A flag through the API is listed as flagged; a verdict clears it and shows on the answer JSON."""
    citation = answer.paragraphs.get().citations.get()
    created = api_as(staff_user).post(
        f"/api/v1/answers/{answer.pk}/feedback",
        {"kind": "citation_wrong", "citation_id": citation.pk, "comment": "Other policy"},
        format="json",
    )
    assert created.status_code == 201 and created.json()["citation_id"] == citation.pk
    flagged = api_as(reviewer_user).get("/api/v1/answers/", {"status": "flagged"}).json()
    assert [a["id"] for a in flagged["results"]] == [answer.pk]
    review = api_as(reviewer_user).post(
        f"/api/v1/answers/{answer.pk}/review", {"verdict": "wrong", "note": "Cites the old policy"}, format="json"
    )
    assert review.status_code == 201 and review.json()["reviewer"] == reviewer_user.username
    body = api_as(staff_user).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["review"]["verdict"] == "wrong" and body["review"]["note"] == "Cites the old policy"
    assert body["feedback"] == {"helpful": 0, "not_helpful": 0, "flags": 1}
    assert api_as(reviewer_user).get("/api/v1/answers/", {"status": "flagged"}).json()["count"] == 0


def test_bad_feedback_is_a_400_naming_the_field(api_as, staff_user, answer):
    """Unknown kind, a citation flag without a citation, an unknown citation: 400, nothing stored."""
    client = api_as(staff_user)
    url = f"/api/v1/answers/{answer.pk}/feedback"
    assert "kind" in client.post(url, {"kind": "meh"}, format="json").json()["fields"]
    assert "citation_id" in client.post(url, {"kind": "citation_wrong"}, format="json").json()["fields"]
    assert (
        "citation_id"
        in client.post(url, {"kind": "citation_wrong", "citation_id": 999}, format="json").json()["fields"]
    )
    assert not Feedback.objects.exists()


def test_staff_cannot_review(api_as, staff_user, answer):
    """Verdicts need the reviewer role."""
    response = api_as(staff_user).post(f"/api/v1/answers/{answer.pk}/review", {"verdict": "ok"}, format="json")
    assert response.status_code == 403
