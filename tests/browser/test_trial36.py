"""Trial 36 in a real Chromium: the question being typed is not lost to a reload or to the header's language switch
(a user trial found the box empty after both), and is dropped once it has been asked and answered."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests import factories
from tests.browser.conftest import login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TYPED = "差旅报销的住宿标准是多少？\nAnd who approves it?"


@pytest.mark.parametrize("width", [1280, 390])
def test_a_question_typed_survives_a_reload_and_the_language_switch(page: Page, width: int) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.ingest_text("Travel policy\n\nHotel costs up to 150 euros per night are refunded.", source_id="travel")
    page.set_viewport_size({"width": width, "height": 900})
    login(page, "asker")
    page.fill("#id_question", TYPED)
    page.reload()
    assert page.input_value("#id_question") == TYPED
    page.select_option("#lang-select", "zh-hans")
    page.wait_for_load_state()
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    assert page.input_value("#id_question") == TYPED
    # Asked and answered: a fresh visit to the ask page starts with an empty box.
    page.fill("#id_question", "How much are hotel costs refunded per night?")
    page.click("#ask-form button[type=submit]:visible")
    expect(page.locator("#answer .question")).to_be_visible()
    page.goto("/")
    assert page.input_value("#id_question") == ""


def test_signing_out_leaves_no_typed_question_in_the_tab(page: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.make_user("next", groups=("staff",))
    login(page, "asker")
    page.fill("#id_question", "What is my salary band?")
    page.click(".logout-form button[type=submit]")
    page.wait_for_load_state()
    login(page, "next")
    assert page.input_value("#id_question") == ""


def test_a_follow_up_asked_and_answered_leaves_no_draft_behind(page: Page) -> None:
    """The answer's swap replaces the follow-up marker before the request ends: the draft of the thread it was asked
    in is dropped, not a new question's (the review of session 36 found the follow-up back in the next follow-up's
    box)."""
    from django.contrib.auth.models import User

    from rag_app import services

    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.ingest_text("Travel policy\n\nHotel costs up to 150 euros per night are refunded.", source_id="travel")
    first = services.ask(user=User.objects.get(username="asker"), question="How much are hotel costs refunded?")
    login(page, "asker")
    page.goto(f"/?parent={first.pk}")
    page.fill("#id_question", "Who approves trips?")
    page.click("#ask-form button[type=submit]:visible")
    expect(page.locator("#answer .question")).to_be_visible()
    page.goto(f"/?parent={first.pk}")
    assert page.input_value("#id_question") == ""


def test_a_draft_is_not_given_to_the_next_reader_of_the_tab(page: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.make_user("next", groups=("staff",))
    login(page, "asker")
    page.fill("#id_question", "What is my salary band?")
    page.context.clear_cookies()  # the session ended without signing out
    login(page, "next")
    assert page.input_value("#id_question") == ""


def test_a_refused_question_stays_in_the_tab(page: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    too_long = "How long? " * 210  # over the 2,000 characters a question may have
    page.fill("#id_question", too_long)
    page.click("#ask-form button[type=submit]:visible")
    expect(page.locator("#id_question_error")).to_be_visible()
    page.reload()
    assert page.input_value("#id_question") == too_long
