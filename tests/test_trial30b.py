"""Trial 30b: a demanding admin and reviewer over a working day (effective dates, retiring, replays, the API).

Each test was a defect a user saw (found as a strict xfail): it asserts the behaviour the README and docs/ describe.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.cache import cache
from django.urls import reverse
from django.utils import timezone
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app import services
from rag_app.models import Answer, Document
from rag_app.services.documents import document_retire
from tests import factories
from tests.views.conftest import HTMX, client_for

pytestmark = pytest.mark.django_db

QUESTION = "How many days do customers have to request a refund?"
POLICY = "Refund policy\n\nCustomers may request a refund within {days} days of purchase. Refunds go to the card."
NOTE = "Refund FAQ\n\nHow many days do customers have to request a refund? Customers have 7 days to request a refund."


@pytest.fixture(autouse=True)
def _fresh_throttle_counts() -> None:
    cache.clear()


def api_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def cited(answer: Answer) -> set[tuple[str, int]]:
    return {
        (c.chunk.version.document.source_id, c.chunk.version.version)
        for p in answer.paragraphs.all()
        for c in p.citations.all()
    }


def test_a_version_scheduled_for_later_leaves_the_version_in_force_answering(staff_user, levels):
    today = timezone.localdate()
    factories.ingest_text(
        POLICY.format(days=30), source_id="policy/refunds", title="Refund policy", effective_from=dt.date(2024, 1, 1)
    )
    factories.ingest_text(NOTE, source_id="faq/refunds", title="Refund FAQ (old)", level="note")
    before = services.ask(user=staff_user, question=QUESTION)
    assert ("policy/refunds", 1) in cited(before), "the setup: the policy in force answers"

    factories.ingest_text(POLICY.format(days=45), source_id="policy/refunds", effective_from=today + dt.timedelta(90))
    after = services.ask(user=staff_user, question=QUESTION)
    # Version 2 is not in effect until then: version 1 is still the official policy, and it should still answer
    # (ahead of the note, which disagrees with it).
    assert ("policy/refunds", 1) in cited(after)


def test_a_passage_not_yet_in_effect_is_not_called_not_relevant_enough(staff_user, levels):
    start = timezone.localdate() + dt.timedelta(days=90)
    factories.ingest_text(
        POLICY.format(days=45), source_id="policy/refunds", title="Refund policy", effective_from=start
    )
    answer = services.ask(user=staff_user, question=QUESTION)
    assert answer.state == Answer.State.NO_EVIDENCE
    html = client_for(staff_user).get(answer.get_absolute_url()).content.decode()
    assert "none was relevant enough" not in html
    assert "not yet in effect" in html or start.isoformat() in html


def test_a_replay_says_that_the_cited_source_is_no_longer_used(reviewer_user, admin_user_role, levels):
    factories.ingest_text(POLICY.format(days=30), source_id="policy/refunds", title="Refund policy")
    answer = services.ask(user=reviewer_user, question=QUESTION)
    assert cited(answer) == {("policy/refunds", 1)}, "the setup: the policy answers"
    chunk_id = "policy/refunds:v1:0"

    document_retire(user=admin_user_role, document=Document.objects.get(source_id="policy/refunds"))
    html = client_for(reviewer_user).get(reverse("answer_replay", args=[answer.pk]), **HTMX).content.decode()
    assert "0 chunks changed their fate." not in html
    assert chunk_id in html  # kept (cited) then, not a candidate now: a change


def test_an_api_client_can_flag_a_source_of_the_answer_it_read(staff_user, levels):
    factories.ingest_text(POLICY.format(days=30), source_id="policy/refunds", title="Refund policy")
    factories.ingest_text("Unrelated text about parking.", source_id="parking")  # citation pks no longer start at 1
    services.ask(user=staff_user, question="Where do we park?")
    answer = services.ask(user=staff_user, question=QUESTION)
    client = api_for(staff_user)
    source = client.get(reverse("api_answer", args=[answer.pk])).json()["sources"][0]
    response = client.post(
        reverse("api_answer_feedback", args=[answer.pk]),
        {"kind": "citation_wrong", "citation_id": source.get("citation_id", source["id"]), "comment": "outdated"},
        format="json",
    )
    assert response.status_code == 201, response.json()


def test_the_apis_updated_at_moves_with_a_new_version(admin_user_role, levels):
    factories.ingest_text(POLICY.format(days=30), source_id="policy/refunds", title="Refund policy")
    Document.objects.filter(source_id="policy/refunds").update(updated_at=timezone.now() - dt.timedelta(days=30))
    factories.ingest_text(POLICY.format(days=45), source_id="policy/refunds")
    version = factories.current_version("policy/refunds")
    body = api_for(admin_user_role).get(reverse("api_document", args=["policy/refunds"])).json()
    assert body["current_version"] == 2
    assert dt.datetime.fromisoformat(body["updated_at"].replace("Z", "+00:00")) >= version.created_at
