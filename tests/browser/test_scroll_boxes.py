"""Boxes that scroll (a card's long snippet, the trace's context, prompt and model output) in a real Chromium, from
the keyboard: Chromium makes a scroller with nothing focusable inside a tab stop, so a keyboard user can scroll it;
each such stop must say what it holds (a screen reader announced an unnamed group)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from rag_app.models import Answer
from tests import factories
from tests.browser.conftest import login
from tests.views.answers import Para, make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LONG = " ".join(f"Clause {i}: refunds are paid within {i + 10} days of the request." for i in range(40))


def _name(page: Page) -> str:
    return page.evaluate(
        "() => { const e = document.activeElement; const l = e.getAttribute('aria-labelledby');"
        " return (e.getAttribute('aria-label') || (l ? document.getElementById(l).textContent : '')).trim(); }"
    )


def _answer(snippet: str = LONG, **kwargs: object) -> Answer:
    """An answer of the asker's quoting the refund policy, its card showing `snippet`."""
    factories.make_levels()
    user = factories.make_user("asker", groups=("staff",))
    document = factories.make_document(LONG, source_id="policy/refunds", title="Refund policy")
    chunk = factories.chunks_of(document)[0]
    return make_answer(
        user=user,
        question="When are refunds paid?",
        paragraphs=[Para(LONG[:200], cites=[("S1", chunk)], snippets={"S1": snippet})],
        **kwargs,  # type: ignore[arg-type]
    )


def test_a_long_snippet_in_a_card_is_a_named_stop_that_scrolls(page: Page) -> None:
    answer = _answer()
    login(page, "asker")
    page.goto(answer.get_absolute_url())
    page.locator(".fn-marker").first.focus()
    snippet = page.locator(".fn .hovercard .hc-snippet").first
    expect(snippet).to_be_visible()
    assert snippet.evaluate("e => e.scrollHeight > e.clientHeight"), "the snippet is short: nothing to scroll"
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.classList.contains('hc-snippet')"), page.evaluate(
        "document.activeElement.outerHTML.slice(0, 200)"
    )
    assert _name(page), "the snippet's tab stop has no name"
    expect(snippet).to_be_visible()  # the card stays open while its snippet has focus
    page.keyboard.press("PageDown")
    page.wait_for_function("() => document.activeElement.scrollTop > 0")  # scrolled (smoothly) from the keyboard


def test_the_traces_boxes_are_named_stops(page: Page) -> None:
    answer = _answer(trace={"context": LONG, "prompt": LONG})
    factories.make_user("rev", groups=("staff", "reviewer"))
    login(page, "rev")
    page.goto(f"/review/answers/{answer.pk}/")
    context = page.locator("pre.trace-text").first
    assert context.evaluate("e => e.scrollHeight > e.clientHeight")
    context.focus()
    assert page.evaluate("document.activeElement.classList.contains('trace-text')")
    assert _name(page) in ("Context", "上下文"), _name(page)


def test_the_marker_is_described_by_the_snippet_itself_not_its_boxs_name(page: Page) -> None:
    answer = _answer("Clause 7 says twelve days.")
    login(page, "asker")
    page.goto(answer.get_absolute_url())
    nodes = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    described = [
        n["description"]["value"]
        for n in nodes
        if n.get("name", {}).get("value") == "[1]" and n.get("role", {}).get("value") == "link" and "description" in n
    ]
    assert described, "the marker has no description"
    assert "Refund policy" in described[0] and "version 1" in described[0], described
    assert "Clause 7 says twelve days." in described[0], described
    assert "The passage the answer saw" not in described[0], described
