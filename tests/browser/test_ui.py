"""The UI in a real headless Chromium: ask, hover cards by mouse and keyboard, matching numbers,
the insufficient badge, and documents full of script payloads that stay inert."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests import factories
from tests.browser.conftest import login
from tests.views.answers import Para, make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SCREENSHOTS = Path(settings.BASE_DIR) / "docs" / "screenshots"


def save_screenshot(page: Page, tmp_path: Path, name: str, *, full_page: bool = True) -> Path:
    """Always taken; copied to docs/screenshots/ when RAG_SAVE_SCREENSHOTS=1 (for the README)."""
    shot = tmp_path / name
    page.screenshot(path=str(shot), full_page=full_page)
    if os.environ.get("RAG_SAVE_SCREENSHOTS") == "1":
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, SCREENSHOTS / name)
    return shot


def load_demo() -> None:
    """The bundled demo corpus; levels re-seeded first because transactional tests flush tables."""
    factories.make_levels()
    call_command("loaddemo", "--no-users", verbosity=0)


def numbers(page: Page, selector: str) -> list[str]:
    return page.eval_on_selector_all(selector, "els => els.map(e => e.dataset.number)")


def test_ask_on_the_demo_corpus_and_read_the_footnotes(page: Page, tmp_path: Path) -> None:
    """Ask through the form (htmx swap, no reload); the card opens by mouse and by keyboard,
    and every footnote number is the same on the paragraph, in its card and in the source panel."""
    load_demo()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    page.fill("#id_question", "What are the conditions for redistribution under the Apache License?")
    page.evaluate("window.__sameDocument = true")
    page.click(".ask-form button[type=submit]")
    answer = page.locator("#answer .answer")
    expect(answer).to_be_visible(timeout=60_000)
    assert page.evaluate("window.__sameDocument") is True  # swapped in, not a page load
    assert answer.get_attribute("data-state") == "answered"

    markers = page.locator(".fn-marker")
    assert markers.count() >= 1
    first = markers.first
    card = page.locator(".fn").first.locator(".hovercard")
    expect(card).to_be_hidden()
    first.hover()
    expect(card).to_be_visible()
    expect(card.locator(".hc-title")).not_to_be_empty()
    expect(card.locator(".badge.level")).to_be_visible()
    expect(card.locator(".similarity")).to_contain_text("similarity")
    expect(card.locator(".hc-ver")).to_contain_text("version")

    page.mouse.move(0, 0)
    expect(card).to_be_hidden()
    page.locator("#id_question").focus()
    page.keyboard.press("Tab")  # the Ask button
    for _ in range(5):
        if page.evaluate("document.activeElement.classList.contains('fn-marker')"):
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('fn-marker')")
    focused_card = page.locator(".fn:focus-within .hovercard")
    expect(focused_card).to_be_visible()
    page.keyboard.press("Escape")
    expect(focused_card).to_be_hidden()

    on_paragraphs = numbers(page, ".para .fn-marker")
    in_cards = numbers(page, ".hovercard .hc-number")
    in_panel = numbers(page, ".source-entry > .src-number")
    assert on_paragraphs == in_cards
    assert sorted(set(on_paragraphs), key=int) == sorted(in_panel, key=int)
    page.mouse.move(0, 0)
    page.locator("#id_question").focus()
    save_screenshot(page, tmp_path, "ask-answer.png")

    first.hover()  # after Escape, pointing at the marker opens its card again
    expect(card).to_be_visible()
    save_screenshot(page, tmp_path, "ask-hovercard.png", full_page=False)
    assert page.dialogs == []  # type: ignore[attr-defined]
    # Nothing on the page (htmx included) needed an inline script or style the CSP refused.
    assert [e for e in page.console_errors if "Content Security Policy" in e] == []  # type: ignore[attr-defined]


def test_an_unsupported_paragraph_shows_the_insufficient_badge(page: Page) -> None:
    """A paragraph built without a valid citation carries the visible badge and no marker."""
    user = factories.make_user("asker", groups=("staff",))
    doc = factories.make_document("Refunds are paid within 30 days of purchase.", source_id="refunds", title="Refunds")
    answer = make_answer(
        user=user,
        paragraphs=[
            Para("Refunds are paid within 30 days of purchase.", cites=[("S1", factories.chunks_of(doc)[0])]),
            Para("Gift cards can be refunded at any time.", insufficient=True),
        ],
    )
    login(page, "asker")
    page.goto(answer.get_absolute_url())
    unsupported = page.locator("#para-1")
    expect(unsupported.locator(".badge.insufficient")).to_be_visible()
    expect(unsupported.locator(".badge.insufficient")).to_have_text("insufficient evidence")
    assert unsupported.locator(".fn-marker").count() == 0
    expect(page.locator("#para-0 .badge.insufficient")).to_have_count(0)


PAYLOAD_TITLE = "<img src=x onerror=\"alert('title');window.__pwned=1\"><script>alert('t2')</script>"
PAYLOAD_TEXT = (
    "Payload policy. <script>alert('text');window.__pwned=1</script> "
    "<img src=y onerror=\"alert('img');window.__pwned=1\"> <svg onload=\"alert('svg')\"></svg> "
    "<a href=\"javascript:alert('js')\">click</a> The payload policy applies to everyone."
)


def test_script_payloads_in_a_document_stay_inert(page: Page) -> None:
    """Title and text full of <script>/onerror= payloads render as text everywhere: no dialog, no script."""
    user = factories.make_user("asker", groups=("staff",))
    doc = factories.make_document(PAYLOAD_TEXT, source_id="evil/doc", title=PAYLOAD_TITLE)
    chunk = factories.chunks_of(doc)[0]
    answer = make_answer(
        user=user,
        question="<script>alert('q')</script> payload policy?",
        paragraphs=[
            Para("<img src=z onerror=alert('para')> The payload policy applies to everyone.", cites=[("S1", chunk)])
        ],
    )
    login(page, "asker")
    for url in (answer.get_absolute_url(), reverse("document_version", args=["evil/doc", 1]), reverse("document_list")):
        page.goto(url)
        page.wait_for_load_state("load")
        if page.locator(".fn-marker").count():
            page.locator(".fn-marker").first.hover()
            expect(page.locator(".hovercard").first).to_be_visible()
            expect(page.locator(".hovercard .hc-title").first).to_have_text(PAYLOAD_TITLE)
        page.wait_for_timeout(300)
        assert page.evaluate("window.__pwned") is None
        assert page.locator("main script, main img, main svg, main a[href^='javascript']").count() == 0
    page.goto(reverse("document_version", args=["evil/doc", 1]))
    expect(page.locator(".doc-title")).to_have_text(PAYLOAD_TITLE)
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_the_provenance_page_and_its_replay(page: Page, tmp_path: Path) -> None:
    """A reviewer opens an answer's provenance and runs the replay in place (htmx)."""
    load_demo()
    factories.make_user("asker", groups=("staff",))
    factories.make_user("rev", groups=("staff", "reviewer"))
    from rag_app import services

    answer = services.ask(
        user=factories.User.objects.get(username="asker"),
        question="What are the conditions for redistribution under the Apache License?",
    )
    login(page, "rev")
    page.goto(reverse("answer_provenance", args=[answer.pk]))
    expect(page.locator("table.candidates").first).to_be_visible()
    page.click("#replay a.button")
    expect(page.locator("#replay-body table.replay-table").first).to_be_visible(timeout=30_000)
    assert page.locator("#replay-body tr.was-used").count() >= 1
    save_screenshot(page, tmp_path, "provenance.png")
    assert page.dialogs == []  # type: ignore[attr-defined]


def test_a_tap_opens_the_card_without_jumping_away(browser, live_server) -> None:
    """On a touch screen the first tap on a marker opens its card instead of following the link."""
    user = factories.make_user("asker", groups=("staff",))
    doc = factories.make_document("Refunds are paid within 30 days of purchase.", source_id="refunds", title="Refunds")
    answer = make_answer(
        user=user, paragraphs=[Para("Refunds are paid within 30 days.", cites=[("S1", factories.chunks_of(doc)[0])])]
    )
    context = browser.new_context(
        base_url=live_server.url, has_touch=True, is_mobile=True, viewport={"width": 390, "height": 844}
    )
    try:
        phone = context.new_page()
        login(phone, "asker")
        phone.goto(answer.get_absolute_url())
        card = phone.locator(".fn .hovercard").first
        expect(card).to_be_hidden()
        phone.locator(".fn-marker").first.tap()
        expect(card).to_be_visible()
        expect(phone.locator(".fn-marker").first).to_have_attribute("aria-expanded", "true")
        assert "#src-" not in phone.url
        phone.wait_for_function(
            "() => { const r = document.querySelector('.fn .hovercard').getBoundingClientRect();"
            " return r.left >= 0 && r.right <= document.documentElement.clientWidth; }"
        )  # the card was moved to fit on the narrow screen
    finally:
        context.close()


def test_an_admin_changes_levels_in_bulk_and_sees_the_log(page: Page, tmp_path: Path) -> None:
    """On the levels page an admin selects documents, picks a level, and the change log lists each change."""
    factories.make_levels()
    factories.make_admin("boss", password="pw-for-tests-only")
    for i in range(3):
        factories.make_document(f"Document number {i}.", source_id=f"memo/{i}", title=f"Memo {i}", level="note")
    login(page, "boss")
    page.goto(reverse("levels"))
    page.locator("label:has-text('Memo 0')").click()
    page.locator("label:has-text('Memo 1')").click()
    page.select_option("#bulk-level select[name=level]", label="Official (official)")
    page.click("#bulk-level button[type=submit]")
    expect(page.locator("table.confirm-changes tbody tr")).to_have_count(2)  # what will change, before it does
    page.click("#confirm-level button[type=submit]")
    expect(page.locator(".messages")).to_contain_text("2 documents changed.")
    log = page.locator("table.changes tbody")
    expect(log.locator("tr")).to_have_count(2)
    expect(log).to_contain_text("memo/0")
    expect(log).to_contain_text("official")
    save_screenshot(page, tmp_path, "levels.png")


def test_the_language_switch_turns_the_page_chinese(page: Page) -> None:
    """Choosing 简体中文 in the switch (auto-submitted by app.js) shows the Chinese UI."""
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    page.select_option("#lang-select", "zh-hans")
    expect(page.locator("label[for=id_question]")).to_have_text("就文档内容提问")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")


def test_the_card_link_opens_the_viewer_at_the_cited_chunk(page: Page, tmp_path: Path) -> None:
    """The hover card's link opens the document viewer with the cited chunk highlighted and in view."""
    user = factories.make_user("asker", groups=("staff",))
    text = "\n\n".join(f"Section {i}. " + f"Rule {i} applies to travel expenses and receipts. " * 10 for i in range(8))
    doc = factories.make_document(text, source_id="hr/travel", title="Travel rules")
    chunks = factories.chunks_of(doc)
    cited = chunks[-1]
    assert cited.index > 2
    answer = make_answer(user=user, paragraphs=[Para(cited.text[:60], cites=[("S1", cited)])])
    login(page, "asker")
    page.goto(answer.get_absolute_url())
    page.locator(".fn-marker").first.hover()
    page.locator(".hovercard .hc-link").first.click()
    page.wait_for_url(f"**/documents/hr/travel/v1/?chunk={cited.index}#chunk-{cited.index}")
    target = page.locator(f"#chunk-{cited.index}")
    expect(target).to_have_class("chunk cited")
    expect(target).to_be_in_viewport()
    expect(page.locator("#chunk-0")).not_to_be_in_viewport()
    save_screenshot(page, tmp_path, "document.png", full_page=False)


def test_asking_again_from_an_answers_page_leaves_the_page_its_url_gives(page: Page) -> None:
    """From an answer's page (its question the h1), an htmx ask swaps in the new answer: one h1, the new question,
    and the tab titled by it; a form error swapped in brings back the ask page's h1, and htmx logs no error (the
    out-of-band heading always has its target)."""
    factories.make_levels()
    user = factories.make_user("asker", groups=("staff",))
    doc = factories.make_document("Refunds are paid within 30 days of the purchase date.", source_id="refunds")
    first = make_answer(user=user, question="First question?", paragraphs=[Para("Refunds are paid within 30 days.",
                        cites=[("S1", factories.chunks_of(doc)[0])])])  # fmt: skip
    login(page, "asker")
    page.goto(first.get_absolute_url())
    expect(page.locator("h1")).to_have_text("First question?")
    page.fill("#id_question", "When are refunds paid after a purchase?")
    page.locator(".ask-form button[type=submit]").first.click()
    expect(page.locator("#answer .answer h1.question")).to_have_text("When are refunds paid after a purchase?")
    expect(page.locator("h1")).to_have_count(1)
    expect(page).to_have_title("When are refunds paid after a purchase? · Document assistant")
    page.evaluate("document.querySelector('#id_question').removeAttribute('maxlength')")
    page.fill("#id_question", "x" * 2001)  # over the limit: refused, the error swapped in
    page.locator(".ask-form button[type=submit]").first.click()
    expect(page.locator("#answer .panel.error")).to_be_visible()
    expect(page.locator("h1")).to_have_count(1)
    expect(page.locator("h1")).to_have_text("Ask a question")
    errors = [e for e in page.console_errors if "Failed to load resource" not in e]  # type: ignore[attr-defined]
    assert errors == []  # (the refused question's 400 aside)
