"""Trial 38 in a real headless Chromium: a reviewer reads the candidates on a phone (390 px) and on a desktop."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests import factories
from tests.browser.conftest import login
from tests.test_trial38 import IT_RULES, LEAVE, TRAVEL

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _answer() -> int:
    from rag_app import services

    for text, source_id in ((TRAVEL, "policies/travel"), (IT_RULES, "policies/it"), (LEAVE, "policies/leave")):
        factories.ingest_text(text, source_id=source_id, file_name=f"{source_id.split('/')[1]}.md", level="official")
    factories.make_user("rev", groups=("staff", "reviewer"))
    asker = factories.make_user("asker", groups=("staff",))
    return services.ask(user=asker, question="Who approves business class?").pk


def _open_provenance(page: Page) -> None:
    """The reviewer opens the provenance of the answer `_answer` made."""
    pk = _answer()
    login(page, "rev")
    page.goto(reverse("answer_provenance", args=[pk]))


def test_on_a_phone_each_candidate_is_a_card_that_opens_with_its_decision(phone: Page) -> None:
    """At 390 px the 9-column table was 838 px wide in its scroll box, the decision (kept, or why not) off-screen."""
    _open_provenance(phone)
    table = phone.locator("table.candidates").first
    expect(table).to_be_visible()
    width = phone.evaluate("() => document.documentElement.clientWidth")
    assert table.evaluate("t => t.getBoundingClientRect().width") <= width
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= width
    first = table.locator("tbody tr").first
    decision = first.locator("td.decision")
    box, row = decision.bounding_box(), first.bounding_box()
    assert box and row and box["x"] + box["width"] <= width and abs(box["y"] - row["y"]) < 16  # first line of its card
    assert decision.evaluate("td => getComputedStyle(td, '::before').content").strip('"').startswith("Decision")


def test_on_a_desktop_the_candidates_stay_a_table(page: Page) -> None:
    _open_provenance(page)
    head = page.locator("table.candidates thead th").first
    expect(head).to_be_visible()
    assert page.locator("table.candidates td.decision").first.evaluate("td => getComputedStyle(td).display") == (
        "table-cell"
    )
