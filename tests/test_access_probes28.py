"""Access-control probes, session 28: what a viewer outside a restricted document's group learns of a stored answer.

Each test was a confirmed defect (found as a strict xfail), now fixed: the "sources disagree" banner and every
`conflict` flag are built from the recorded disagreements the viewer is shown whole (conflict.shown_disagreement)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app import services
from rag_app.models import Answer
from tests import factories
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db

QUESTION = "Within how many days of purchase are refunds accepted?"


def api(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def three_sides_answer() -> tuple[User, Answer]:
    """Two open documents that agree (30 days) and an hr-only note that disagrees with both (47 days); an hr member
    asks, so the conflict check pairs the hidden note with each open document."""
    factories.ingest_text("Refunds are accepted within 30 days of purchase.", source_id="policy/refunds.txt")
    factories.ingest_text(
        "Refunds are accepted within 30 days of purchase, with the receipt.",
        source_id="faq/refunds.txt",
        level="reviewed",
    )
    factories.ingest_text(
        "Refunds are accepted within 47 days of purchase.", source_id="hr/refunds.txt", level="note", groups=["hr"]
    )
    asker = factories.make_user("asker", groups=("staff", "hr"))
    answer = services.ask(user=asker, question=QUESTION)
    assert answer.state == Answer.State.ANSWERED and answer.conflict
    return asker, answer


def test_a_member_of_the_group_is_shown_the_disagreement(levels):
    """The control: a reader of every side sees the banner and the API's conflict."""
    asker, answer = three_sides_answer()
    assert api(asker).get(f"/api/v1/answers/{answer.pk}").json()["conflict"] is True
    page = client_for(asker).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    assert "Sources disagree" in page


@pytest.mark.parametrize("who", ["outside_reviewer", "asker_left_group"])
def test_the_banner_does_not_pair_two_readable_sources_that_only_disagree_with_a_hidden_one(levels, who):
    asker, answer = three_sides_answer()
    viewer = factories.make_user("rev", groups=("staff", "reviewer"))
    if who == "asker_left_group":
        asker.groups.remove(factories.make_group("hr"))
        viewer = User.objects.get(pk=asker.pk)
    body = api(viewer).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["withheld_paragraphs"] == 1  # the note's quotation is withheld, as it should be
    page = client_for(viewer).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    # What the trace shows this viewer agrees: no disagreement whose every side they may read.
    if who == "outside_reviewer":
        trace = api(viewer).get(f"/api/v1/answers/{answer.pk}/trace").json()
        assert trace["settings_snapshot"]["conflicts"] == []
        assert trace["settings_snapshot"]["conflicting_markers"] == []
    assert body["conflict"] is False, "policy/refunds.txt and faq/refunds.txt both say 30 days"
    assert "Sources disagree" not in page


def test_the_answer_lists_flag_the_disagreement_exactly_where_the_answer_shows_it(levels):
    """The reviewers' answer lists (API and review queue) and their conflict filter agree with the answer itself: the
    flag for a reader of every side, none for a reviewer outside the group, also once removed from it."""
    _, answer = three_sides_answer()
    insider = factories.make_user("insider", groups=("staff", "reviewer", "hr"))
    outsider = factories.make_user("rev", groups=("staff", "reviewer"))
    for reviewer, expected in ((insider, True), (outsider, False)):
        shown = api(reviewer).get(f"/api/v1/answers/{answer.pk}").json()["conflict"]
        rows = {r["id"]: r["conflict"] for r in api(reviewer).get("/api/v1/answers/").json()["results"]}
        filtered = [r["id"] for r in api(reviewer).get("/api/v1/answers/", {"status": "conflict"}).json()["results"]]
        queue = client_for(reviewer).get(reverse("review_list"), {"flag": "conflict"}).content.decode()
        assert (shown, rows[answer.pk], filtered, "badge conflict" in queue) == (
            expected,
            expected,
            [answer.pk] if expected else [],
            expected,
        ), reviewer.username
    insider.groups.remove(factories.make_group("hr"))
    left = User.objects.get(pk=insider.pk)
    assert api(left).get("/api/v1/answers/").json()["results"][0]["conflict"] is False
    assert api(left).get("/api/v1/answers/", {"status": "conflict"}).json()["results"] == []
