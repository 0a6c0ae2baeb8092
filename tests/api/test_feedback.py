"""The review loop in the API: feedback, verdicts, and both shown in the answer JSON."""

from __future__ import annotations

import pytest

from rag_app.models import AnswerReview, Document, Feedback
from rag_app.services.levels import document_set_groups
from tests import factories
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


def test_reviewers_read_every_verdict_newest_first(api_as, staff_user, reviewer_user, answer):
    other = factories.make_user("reviewer2", groups=("staff", "reviewer"))
    url = f"/api/v1/answers/{answer.pk}/review"
    api_as(reviewer_user).post(url, {"verdict": "wrong", "note": "30 is stale"}, format="json")
    api_as(other).post(url, {"verdict": "ok", "note": "fine by me"}, format="json")
    history = api_as(reviewer_user).get(url)
    assert history.status_code == 200
    assert [(r["verdict"], r["note"], r["reviewer"]) for r in history.json()] == [
        ("ok", "fine by me", "reviewer2"),
        ("wrong", "30 is stale", reviewer_user.username),
    ]
    assert api_as(staff_user).get(url).status_code == 403  # reviewers only, as the POST


def test_a_reviewer_not_shown_the_answer_cannot_record_a_verdict_but_sees_the_history(
    api_as, staff_user, reviewer_user, admin_user_role, answer
):
    """403 with its own code; the verdicts stay listed for them, without the notes (they may quote the answer)."""
    url = f"/api/v1/answers/{answer.pk}/review"
    api_as(reviewer_user).post(url, {"verdict": "wrong", "note": "30 is stale"}, format="json")
    document_set_groups(
        user=admin_user_role, document=Document.objects.get(source_id="refunds"), groups=[factories.make_group("fin")]
    )
    refused = api_as(reviewer_user).post(url, {"verdict": "ok"}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "review_withheld"
    # Withheld, not absent: the note is null and says so (docs/API.md: never an empty string for a text withheld).
    history = api_as(reviewer_user).get(url).json()
    assert [(r["verdict"], r["note"], r["note_withheld"]) for r in history] == [("wrong", None, True)]
    assert AnswerReview.objects.count() == 1


def test_a_refused_comment_keeps_its_code_in_chinese(api_as, staff_user, answer):
    body = (
        api_as(staff_user)
        .post(
            f"/api/v1/answers/{answer.pk}/feedback",
            {"kind": "not_helpful", "comment": "x" * 2001},
            format="json",
            HTTP_ACCEPT_LANGUAGE="zh-hans",
        )
        .json()
    )
    assert body["code"] == "comment_too_long"
    assert body["fields"] == {"comment": ["评论长 2,001 个字符，上限为 2,000 个字符。"]}


def test_one_reader_one_vote_through_the_api(api_as, staff_user, answer):
    url = f"/api/v1/answers/{answer.pk}/feedback"
    first = api_as(staff_user).post(url, {"kind": "helpful"}, format="json").json()
    again = api_as(staff_user).post(url, {"kind": "helpful"}, format="json")
    assert again.status_code == 201 and again.json()["id"] == first["id"]
    api_as(staff_user).post(url, {"kind": "not_helpful"}, format="json")
    body = api_as(staff_user).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["feedback"] == {"helpful": 0, "not_helpful": 1, "flags": 1}
