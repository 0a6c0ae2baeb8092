"""What a user sees (session 28 helper's probes): the answer page, the document viewer and the provenance page in
a real headless Chromium, at 1280 and 390 px, in the English and the Chinese interface.

Each test was a defect a staff user, a keyboard user or a screen-reader user met (found as a strict xfail), now
fixed. The file sits beside the other browser tests, whose fixtures (tests/browser/conftest.py) it uses: a second
import of the session's Playwright would start another one inside its event loop.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from rag_app.models import Answer
from tests import factories
from tests.browser.conftest import login
from tests.views.answers import Para, make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ZH_REFUNDS = "退款须在购买之日起三十天内申请，逾期不予受理。财务部在收到申请后十个工作日内付款。"
EN_REFUNDS = "Refunds are paid within 30 days of the purchase date. Refund requests go to the finance office."


def lang_of(page: Page, selector: str) -> list[str]:
    """The language each element matching `selector` is read in (its own lang= or its nearest ancestor's)."""
    return page.locator(selector).evaluate_all("els => els.map(e => (e.closest('[lang]') || {}).lang || '')")


def refund_corpus() -> None:
    factories.make_levels()
    factories.make_document(
        EN_REFUNDS,
        source_id="policy/refunds-2022",
        title="Refund policy 2022",
        level="official",
        effective_from=dt.date(2022, 1, 1),
    )
    factories.make_document(
        EN_REFUNDS.replace("30", "14"),
        source_id="policy/refunds-2024",
        title="Refund policy 2024",
        level="official",
        effective_from=dt.date(2024, 1, 1),
    )
    factories.make_document(
        "The canteen opens at eight in the morning and closes at three.",
        source_id="canteen",
        title="Canteen",
        level="reviewed",
    )


def ask(page: Page, question: str) -> None:
    page.goto("/")
    page.fill("#id_question", question)
    page.locator(".ask-form button[type=submit]").first.click()
    expect(page.locator("#answer .answer")).to_be_visible(timeout=60_000)


# ---------------------------------------------------------------------------------------------- no evidence


def test_a_related_passage_opens_in_the_viewer_without_being_called_cited(page: Page) -> None:
    refund_corpus()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    ask(page, "Who signs the refund requests in the finance office?")
    related = page.locator("#answer ul.related > li > a").first
    expect(related).to_be_visible()
    assert Answer.objects.get().state == Answer.State.NO_EVIDENCE
    assert page.locator("#answer .fn-marker").count() == 0  # the panel itself cites nothing
    related.click()
    page.wait_for_load_state("load")
    expect(page).to_have_url(re.compile(r"/documents/policy/refunds-20\d\d/v1/"))
    index = re.search(r"#chunk-(\d+)", page.url)
    assert index, page.url
    chunk = page.locator(f"#chunk-{index.group(1)}")
    expect(chunk).to_be_visible()
    # the answer said no passage was good enough to cite; the viewer must not say this one was
    expect(chunk.locator(".chunk-meta")).not_to_contain_text("cited")
    expect(chunk).not_to_have_class(re.compile(r"\bcited\b"))


def test_the_question_and_related_excerpts_carry_their_own_language(page: Page) -> None:
    refund_corpus()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    page.select_option("#lang-select", "zh-hans")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")
    ask(page, "Who signs the refund requests in the finance office?")
    expect(page.locator("#answer .related-excerpt").first).to_be_visible()
    langs = {
        "question": lang_of(page, "#answer .question"),  # the h1 of the page the ask leads to
        "excerpts": lang_of(page, "#answer .related-excerpt"),
    }
    assert all(v and all(x.startswith("en") for x in v) for v in langs.values()), langs


# ---------------------------------------------------------------------------------------------- language of parts


def test_a_snippet_in_the_other_language_is_marked_as_such(page: Page) -> None:
    factories.make_levels()
    user = factories.make_user("asker", groups=("staff",))
    zh = factories.make_document(ZH_REFUNDS, source_id="zh/refunds", title="退款政策")
    answer = make_answer(
        user=user, question="退款多久到账？", paragraphs=[Para(ZH_REFUNDS, cites=[("S1", factories.chunks_of(zh)[0])])]
    )
    login(page, "asker")
    page.goto(answer.get_absolute_url())
    expect(page.locator("html")).to_have_attribute("lang", "en")
    assert lang_of(page, "#para-0 .para-text") == ["zh"]  # the paragraph itself is marked: so must its sources be
    langs = {
        "question": lang_of(page, ".question"),  # the answer page's h1
        "card": lang_of(page, ".hc-snippet"),
        "panel": lang_of(page, ".source-entry .snippet"),
    }
    assert all(v and all(x.startswith("zh") for x in v) for v in langs.values()), langs


def test_the_viewer_marks_a_documents_text_in_its_language(page: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.make_document(ZH_REFUNDS, source_id="zh/refunds", title="退款政策")
    login(page, "asker")
    page.goto(reverse("document_version", args=["zh/refunds", 1]) + "?chunk=0#chunk-0")
    expect(page.locator("#chunk-0")).to_be_visible()
    langs = lang_of(page, ".chunk-text") + lang_of(page, "h1.doc-title")
    assert langs and all(x.startswith("zh") for x in langs), langs


# ---------------------------------------------------------------------------------------------- keyboard / structure


@pytest.mark.parametrize("where", ["documents", "viewer", "provenance"])
def test_the_first_tab_offers_a_visible_skip_link_to_the_main_content(page: Page, where: str) -> None:
    factories.make_levels()
    boss = factories.make_user("boss", groups=("staff", "reviewer", "admin"))
    doc = factories.make_document(EN_REFUNDS, source_id="refunds", title="Refunds")
    answer = make_answer(user=boss, paragraphs=[Para(EN_REFUNDS, cites=[("S1", factories.chunks_of(doc)[0])])])
    login(page, "boss")
    url = {
        "documents": reverse("document_list"),
        "viewer": reverse("document_version", args=["refunds", 1]),
        "provenance": reverse("answer_provenance", args=[answer.pk]),
    }[where]
    page.goto(url)
    page.locator("body").focus()
    page.keyboard.press("Tab")
    first = page.evaluate(
        "() => { const a = document.activeElement; const r = a.getBoundingClientRect();"
        " return {href: a.getAttribute('href') || '', visible: r.width > 0 && r.height > 0}; }"
    )
    assert first["href"] == "#main" and first["visible"], first
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    in_main = page.evaluate("!!document.activeElement.closest('main')")
    assert in_main


def test_the_ask_and_answer_pages_have_one_top_level_heading(page: Page) -> None:
    factories.make_levels()
    user = factories.make_user("asker", groups=("staff",))
    doc = factories.make_document(EN_REFUNDS, source_id="refunds", title="Refunds")
    answer = make_answer(user=user, paragraphs=[Para(EN_REFUNDS, cites=[("S1", factories.chunks_of(doc)[0])])])
    login(page, "asker")
    found = {}
    for url in (reverse("ask"), answer.get_absolute_url()):
        page.goto(url)
        found[url] = page.locator("h1").count()
    # the other pages (documents, viewer, provenance) open with one h1; these must too
    assert all(n == 1 for n in found.values()), found


def test_an_answer_page_is_titled_by_its_question(page: Page) -> None:
    refund_corpus()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    ask(page, "How many days until refunds are paid?")
    answer = Answer.objects.get()
    titles = {"after htmx ask": page.title()}
    page.goto(answer.get_absolute_url())
    titles["answer page"] = page.title()
    assert all("refunds are paid" in t.lower() for t in titles.values()), titles


# ---------------------------------------------------------------------------------------------- conflicts


def test_the_conflict_banner_puts_the_newer_of_two_equally_trusted_sources_first(page: Page) -> None:
    refund_corpus()
    user = factories.make_user("asker", groups=("staff",))
    old = factories.chunks_of("policy/refunds-2022")[0]
    new = factories.chunks_of("policy/refunds-2024")[0]
    # a model's answer that quotes last year's policy first (the prompt asks for the newer first; models slip)
    answer = make_answer(
        user=user,
        mode=Answer.Mode.LLM,
        conflict=True,
        question="How many days until refunds are paid?",
        paragraphs=[
            Para("Refunds are paid within 30 days of the purchase date.", cites=[("S1", old)]),
            Para("Refunds are paid within 14 days of the purchase date.", cites=[("S2", new)]),
        ],
    )
    login(page, "asker")
    page.goto(answer.get_absolute_url())
    items = page.locator(".banner.conflict li")
    expect(items).to_have_count(2)
    # both official: the one in force since 2024 comes first, as the extractive answer and the prompt order them
    expect(items.first).to_contain_text("Refund policy 2024")
