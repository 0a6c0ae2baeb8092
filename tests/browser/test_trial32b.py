"""Trial 32b in a real Chromium: a Hong Kong staff member whose questions carry characters outside the Basic
Multilingual Plane (the Cantonese 𨋢, "lift"; the 𠮷 of a name; an emoji). Each test is a defect such a user saw,
asserting what the README describes: the live count shows the limit the server applies."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from rag_app.models import Answer
from tests import factories
from tests.browser.conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_live_count_counts_characters_as_the_server_does(page: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    question = "大廈部𨋢幾時維修？😀" * 300  # 10 characters, 2 of them outside the BMP
    page.fill("#id_question", question[:1990])
    counter = page.locator(".char-count")
    expect(counter).to_have_text("1990 / 2000")
    expect(counter).not_to_have_class("char-count muted over")
    page.fill("#id_question", question[:2001])
    expect(counter).to_have_text("2001 / 2000")
    expect(counter).to_have_class("char-count muted over")
    page.click(".ask-form button[type=submit]")
    expect(page.locator("#answer .panel.error")).to_contain_text("2,001 characters long; the limit is 2,000")
    assert not Answer.objects.exists()
