"""Trial 32h in a real Chromium with JavaScript off: a question interrupted by an expired session, or sent from a tab
opened before its reader signed out and in again in another one, comes back in the ask box, a follow-up with its
thread, on pages in the reader's language."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from rag_app.models import Answer
from tests import factories
from tests.browser.conftest import PASSWORD, login
from tests.views.answers import make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_question_sent_as_the_session_expired_is_in_the_box_after_signing_in(browser: Browser, live_server) -> None:
    user = factories.make_user("asker", groups=("staff",))
    earlier = make_answer(user=user, question="When was version 3 released?")
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        login(page, "asker")
        page.goto(f"/?parent={earlier.pk}")
        page.fill("#id_question", "And version 2?\n")
        context.clear_cookies(name="sessionid")  # the session expired while the reader typed
        page.click(".ask-form button[type=submit]")
        page.wait_for_url("**/accounts/login/**")
        # The login page says why the reader is there, and that the question was not asked (session 32's note: the
        # question came back in the box with nothing saying it had not been asked).
        expect(page.locator(".messages")).to_contain_text("your question was not asked")
        page.fill("#id_username", "asker")
        page.fill("#id_password", PASSWORD)
        page.click("main button[type=submit]")
        page.wait_for_load_state()
        assert page.input_value("#id_question").strip() == "And version 2?"
        assert page.locator("input[name=parent]").get_attribute("value") == str(earlier.pk)
        assert Answer.objects.count() == 1  # nothing was asked behind the reader's back
    finally:
        context.close()


def _sign_in(page: Page) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", "asker")
    page.fill("#id_password", PASSWORD)
    page.click("main button[type=submit]")
    page.wait_for_url("**/")


def test_a_form_from_before_signing_in_again_elsewhere_says_so_in_chinese(browser: Browser, live_server) -> None:
    factories.make_user("asker", groups=("staff",))
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False, locale="zh-CN")
    try:
        first = context.new_page()
        _sign_in(first)
        second = context.new_page()
        second.goto("/")
        second.fill("#id_question", "退款期限是多久？")
        first.click("form[action*=logout] button")
        first.wait_for_load_state()
        _sign_in(first)  # signing in again gives the browser a new CSRF token: the second tab's form is stale
        second.click(".ask-form button[type=submit]")
        expect(second.locator("h1")).to_have_text("此表单已过期")
        second.click("text=重新提问")
        second.wait_for_load_state()
        assert second.input_value("#id_question") == "退款期限是多久？"
        assert not Answer.objects.exists()
    finally:
        context.close()


def test_an_htmx_ask_from_before_signing_in_again_elsewhere_keeps_the_question(browser: Browser, live_server) -> None:
    """With JavaScript: the window goes back to the ask box with the question and says why; "reload the page" would
    have emptied the box."""
    factories.make_user("asker", groups=("staff",))
    context = browser.new_context(base_url=live_server.url)
    try:
        first = context.new_page()
        login(first, "asker")
        second = context.new_page()
        second.goto("/")
        second.fill("#id_question", "A long question typed slowly")
        first.click("form[action*=logout] button")
        first.wait_for_load_state()
        login(first, "asker")
        second.click(".ask-form button[type=submit]")
        expect(second.locator(".messages")).to_contain_text("nothing was saved. Send it again.")
        assert second.input_value("#id_question") == "A long question typed slowly"
        second.click(".ask-form button[type=submit]")  # and sent again, it is answered
        second.wait_for_url("**/answers/*/")
        assert Answer.objects.count() == 1
    finally:
        context.close()


def test_enter_in_the_document_search_searches_without_javascript(browser: Browser, live_server) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.make_document("The GPL is a copyleft licence.", source_id="licenses/gpl", title="GNU GPL")
    context = browser.new_context(base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        login(page, "asker")
        page.fill("#id_question", "What does the GPL require?")
        page.click("details.scope summary")
        page.fill("input[name=doc_q]", "GPL")
        page.press("input[name=doc_q]", "Enter")
        page.wait_for_load_state()
        expect(page.locator("#doc-choices")).to_contain_text("licenses/gpl")
        assert page.input_value("#id_question") == "What does the GPL require?"  # still to be asked, in scope
        assert not Answer.objects.exists()
    finally:
        context.close()


def test_a_vote_on_an_answer_deleted_meanwhile_says_it_is_gone(browser: Browser, live_server) -> None:
    """Voting from the keyboard on an answer deleted meanwhile: the box says it no longer exists, and closing it
    returns focus to the button that sent the vote, not to <body> (the close button hides itself, and the next Tab
    started again at the top of the page: session 33)."""
    user = factories.make_user("asker", groups=("staff",))
    answer = make_answer(user=user, question="How long is the refund window?")
    context = browser.new_context(base_url=live_server.url)
    try:
        page = context.new_page()
        login(page, "asker")
        page.goto(answer.get_absolute_url())
        Answer.objects.filter(pk=answer.pk).delete()  # deleted with its document, in another tab
        page.locator("button:has-text('Helpful')").first.focus()
        page.keyboard.press("Enter")
        box = page.locator("#request-error")
        expect(box).to_be_visible()
        expect(box).to_contain_text("no longer exists")
        expect(box).not_to_contain_text("try again in a moment")
        box.locator(".request-error-close").focus()
        page.keyboard.press("Enter")
        expect(box).to_be_hidden()
        assert page.evaluate("document.activeElement.value") == "helpful"
    finally:
        context.close()
