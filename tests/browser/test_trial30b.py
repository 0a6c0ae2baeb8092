"""Trial 30b in a real Chromium: an admin and a reviewer over a working day. Each test pins a defect a user saw, as a
strict xfail asserting the behaviour the README describes (tests/test_trial30b.py has the view and API ones)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone
from playwright.sync_api import Page, expect

from rag_app import services
from rag_app.models import Document
from rag_app.services.documents import document_retire
from tests import factories
from tests.browser.conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

QUESTION = "How many days do customers have to request a refund?"
POLICY = "Refund policy\n\nCustomers may request a refund within {days} days of purchase. Refunds go to the card."
NOTE = "Refund FAQ\n\nHow many days do customers have to request a refund? Customers have 7 days to request a refund."


def ask(page: Page, question: str) -> None:
    page.fill("#id_question", question)
    page.click(".ask-form button[type=submit]")
    expect(page.locator("#answer h2, #answer h1").first).to_contain_text(question)


def test_the_policy_in_force_still_answers_while_its_next_version_is_scheduled(page: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.ingest_text(
        POLICY.format(days=30), source_id="policy/refunds", title="Refund policy", effective_from=dt.date(2024, 1, 1)
    )
    factories.ingest_text(NOTE, source_id="faq/refunds", title="Refund FAQ (old)", level="note")
    later = timezone.localdate() + dt.timedelta(days=90)
    factories.ingest_text(POLICY.format(days=45), source_id="policy/refunds", effective_from=later)
    login(page, "asker")
    ask(page, QUESTION)
    answer = page.locator("#answer")
    expect(answer).to_contain_text("30 days")
    expect(answer.locator(".sources")).to_contain_text("Refund policy")


def test_a_replay_after_the_cited_document_was_retired_says_so(page: Page) -> None:
    factories.make_levels()
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    admin = factories.make_admin("boss")
    factories.ingest_text(POLICY.format(days=30), source_id="policy/refunds", title="Refund policy")
    answer = services.ask(user=reviewer, question=QUESTION)
    assert answer.state == "answered"
    document_retire(user=admin, document=Document.objects.get(source_id="policy/refunds"))
    login(page, "rev")
    page.goto(reverse("answer_provenance", args=[answer.pk]))
    page.click("a:has-text('Replay retrieval')")
    summary = page.locator("#replay-body .replay-summary")
    expect(summary).to_be_visible()
    expect(summary).not_to_have_text("0 chunks changed their fate.")
    expect(page.locator("#replay-body")).to_contain_text("policy/refunds:v1:0")
