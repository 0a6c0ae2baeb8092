"""Access-control probes, session 28: what a viewer outside a restricted document's group learns of a stored answer.

Each test is a confirmed defect, marked xfail(strict=True): it fails today for the reason given and passes once the
defect is fixed."""

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


@pytest.mark.xfail(
    strict=True,
    reason="two readable sources that agree (30 days, 30 days) are shown as 'Sources disagree' to a viewer who may "
    "not read the hidden note both disagree with: the banner tells them a hidden document gives another value",
)
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
