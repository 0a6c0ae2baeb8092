"""Trial 30 in a real Chromium: a new staff user and a reviewer. Each test was a defect a user saw (found as a strict
xfail, now fixed): a line break typed in a box (posted as CRLF), and the box above an htmx answer still following up
the question before it."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from rag_app.models import Answer, AnswerReview
from tests import factories
from tests.browser.conftest import login
from tests.views.answers import refund_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def ask(page: Page, question: str) -> None:
    page.fill("#id_question", question)
    page.click(".ask-form button[type=submit]")
    expect(page.locator("#answer h2, #answer h1").first).to_contain_text(question)


def test_a_reviewer_saves_a_verdict_whose_note_has_two_lines(page: Page) -> None:
    staff = factories.make_user("asker", groups=("staff",))
    factories.make_user("rev", groups=("staff", "reviewer"))
    factories.make_levels()
    answer = refund_answer(user=staff)
    login(page, "rev")
    page.goto(reverse("answer_provenance", args=[answer.pk]))
    page.select_option("#id_verdict", "needs_document_update")
    page.click("#id_note")
    page.keyboard.type("The policy says 45 days now.")
    page.keyboard.press("Enter")
    page.keyboard.type("Ask finance for v2.")
    page.click(".verdict-form button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("Review saved.")
    assert AnswerReview.objects.filter(answer=answer).exists()


def test_without_javascript_a_question_on_two_lines_is_asked(browser: Browser, live_server) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.ingest_text("Refunds are paid within 30 days.", source_id="refunds")
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        login(page, "asker")
        page.click("#id_question")
        page.keyboard.type("How long do")
        page.keyboard.press("Enter")
        page.keyboard.type("refunds take?")
        page.click(".ask-form button[type=submit]")
        page.wait_for_load_state()
        expect(page.locator("main")).not_to_contain_text("control or non-text characters")
        assert Answer.objects.filter(user__username="asker").count() == 1
    finally:
        context.close()


def test_a_second_follow_up_continues_from_the_answer_just_shown(page: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.ingest_text(
        "Travel costs are reimbursed within 10 days. Meals abroad are reimbursed up to 40 EUR a day.",
        source_id="policy/travel",
        title="Travel policy",
    )
    login(page, "asker")
    ask(page, "Within how many days are travel costs reimbursed?")
    first = Answer.objects.get()
    page.click("a.button:has-text('Ask a follow-up')")
    expect(page.locator(".ask-form .follow-up-of")).to_contain_text("Within how many days")
    ask(page, "And meals abroad?")
    second = Answer.objects.exclude(pk=first.pk).get()
    assert second.parent_id == first.pk
    # The reader goes on in the box above the answer just shown.
    ask(page, "Is that per day?")
    third = Answer.objects.exclude(pk__in=[first.pk, second.pk]).get()
    assert third.parent_id != first.pk, "the third question's thread skips 'And meals abroad?'"


def test_the_ask_page_loads_without_a_console_error(page: Page) -> None:
    """The tab's icon is served (it was a 404, the first load's one console error)."""
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    page.goto(reverse("ask"))
    icon = page.locator("link[rel=icon]").get_attribute("href")
    assert icon and page.request.get(icon).status == 200
    page.reload()
    page.wait_for_load_state("networkidle")
    assert page.console_errors == []  # type: ignore[attr-defined]
