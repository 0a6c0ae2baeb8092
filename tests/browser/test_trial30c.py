"""Trial 30c in a real Chromium: a demanding Chinese-speaking staff member on a phone (390 x 844, touch, zh-CN), and a
keyboard-only / screen-reader user on a desktop. Each test was a defect such a user saw (found as a strict xfail, now
fixed)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from rag_app.models import Answer, Chunk
from tests import factories
from tests.browser.conftest import PASSWORD, PHONE
from tests.views.answers import Para, make_answer

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ZH_TEXT = "退款须在购买之日起三十天内申请，逾期不予受理。财务部在收到申请后十个工作日内付款。"


def _context_page(browser: Browser, live_server, **options) -> Iterator[Page]:
    context = browser.new_context(base_url=live_server.url, locale="zh-CN", **options)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


@pytest.fixture
def zh_phone(browser: Browser, live_server) -> Iterator[Page]:
    """A phone (390 px, touch) whose browser asks for Chinese (Accept-Language zh-CN)."""
    yield from _context_page(browser, live_server, viewport=PHONE, is_mobile=True, has_touch=True)


@pytest.fixture
def zh_desktop(browser: Browser, live_server) -> Iterator[Page]:
    """A desktop browser (1280 x 800) asking for Chinese, driven from the keyboard."""
    yield from _context_page(browser, live_server, viewport={"width": 1280, "height": 800})


def zh_login(page: Page, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.press("#id_password", "Enter")
    page.wait_for_url("**/")
    expect(page.locator("html")).to_have_attribute("lang", "zh-hans")


def cited_answer(user, *, text: str = ZH_TEXT, title: str = "退款规定", **doc) -> Answer:
    factories.make_levels()
    document = factories.make_document(text, source_id="policy/refunds", title=title, **doc)
    chunk = factories.chunks_of(document)[0]
    return make_answer(user=user, question="退款多久可以到账？", paragraphs=[Para(text, cites=[("S1", chunk)])])


# ------------------------------------------------------------------------------------------- the Chinese interface


def test_a_cited_page_number_is_chinese_in_the_card_and_the_source_panel(zh_phone: Page) -> None:
    user = factories.make_user("asker", groups=("staff",))
    answer = cited_answer(user)
    Chunk.objects.filter(version__document__source_id="policy/refunds").update(page=3)  # as a PDF's chunk has it
    zh_login(zh_phone, "asker")
    zh_phone.goto(answer.get_absolute_url())
    zh_phone.locator(".fn-marker").first.tap()
    card_location = zh_phone.locator(".fn .hovercard .hc-loc").first
    expect(card_location).to_be_visible()
    panel_location = zh_phone.locator(".source-entry .loc").first
    assert "p. 3" not in card_location.inner_text() + panel_location.inner_text()
    expect(card_location).to_contain_text("第 3 页")
    expect(panel_location).to_contain_text("第 3 页")


def test_a_section_heading_in_the_card_is_marked_in_its_own_language(zh_desktop: Page) -> None:
    user = factories.make_user("asker", groups=("staff",))
    factories.make_levels()
    text = "# Terms and Conditions\n\nThe licensee may copy and distribute verbatim copies of the licence document."
    document = factories.make_document(text, source_id="licences/demo", title="Demo licence", file_name="demo.md")
    chunk = factories.chunks_of(document)[0]
    assert chunk.section, "the Markdown heading gives the chunk its section path"
    answer = make_answer(
        user=user,
        question="许可证允许复制吗？",
        paragraphs=[Para("The licensee may copy and distribute verbatim copies.", cites=[("S1", chunk)])],
    )
    zh_login(zh_desktop, "asker")
    zh_desktop.goto(answer.get_absolute_url())
    zh_desktop.locator(".fn-marker").first.focus()
    expect(zh_desktop.locator(".fn .hovercard .hc-loc").first).to_contain_text("Terms and Conditions")
    langs = zh_desktop.locator(".hc-loc, .source-entry .loc").evaluate_all(
        "els => els.map(e => { const own = e.querySelector('[lang]'); return (own || e.closest('[lang]')).lang; })"
    )
    assert langs and all(lang == "en" for lang in langs), langs


# ------------------------------------------------------------------------------------------- scope and flags


def test_the_scope_summary_says_narrowed_after_a_scoped_ask(zh_phone: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.make_document(ZH_TEXT, source_id="policy/refunds", title="退款规定", level="official")
    factories.make_document("食堂早上八点开门，下午三点关门。", source_id="canteen", title="食堂", level="reviewed")
    zh_login(zh_phone, "asker")
    summary = zh_phone.locator("details.scope > summary")
    expect(summary).to_contain_text("您可查看的全部文档")
    summary.tap()
    zh_phone.locator("input[name=scope_levels][value=official]").check()
    zh_phone.fill("#id_question", "退款多久可以到账？")
    zh_phone.locator(".ask-form button[type=submit]").first.tap()
    expect(zh_phone.locator("#answer .scope-note")).to_contain_text("Official", timeout=60_000)
    expect(zh_phone.locator("input[name=scope_levels][value=official]")).to_be_checked()
    expect(summary).not_to_contain_text("您可查看的全部文档")


def test_flagging_a_source_on_a_phone_confirms_where_the_reader_is(zh_phone: Page) -> None:
    user = factories.make_user("asker", groups=("staff",))
    factories.make_levels()
    other = "报销须在出差结束后十五天内提交，附上全部发票原件，由部门经理签字后交财务部审核。" * 4
    first = factories.make_document(ZH_TEXT * 4, source_id="policy/refunds", title="退款规定")
    second = factories.make_document(other, source_id="policy/expenses", title="报销规定")
    answer = make_answer(
        user=user,
        question="退款和报销各要多久？",
        paragraphs=[
            Para(ZH_TEXT, cites=[("S1", factories.chunks_of(first)[0])]),
            Para(other[:40], cites=[("S2", factories.chunks_of(second)[0])]),
        ],
    )
    zh_login(zh_phone, "asker")
    zh_phone.goto(answer.get_absolute_url())
    entry = zh_phone.locator("#src-1")
    entry.locator("details.flag-source summary").tap()
    entry.locator("input[value=citation_unsupported]").tap()
    entry.locator("textarea[name=comment]").fill("这段没有说付款时间")
    statuses: list[int] = []
    zh_phone.on("response", lambda r: "/feedback/" in r.url and statuses.append(r.status))
    entry.locator("button[type=submit]").tap()
    expect(zh_phone.locator(".feedback .saved")).to_be_attached()
    assert statuses == [200]
    expect(zh_phone.locator("[role=status]:has-text('反馈已保存')").first).to_be_in_viewport()
    # The flag's form is closed and emptied: a second tap does not file the flag again.
    expect(entry.locator("details.flag-source")).not_to_have_attribute("open", "")
    expect(entry.locator("textarea[name=comment]")).to_have_value("")


# ------------------------------------------------------------------------------------------- keyboard and screen reader


def test_after_voting_from_the_keyboard_focus_stays_in_the_feedback(zh_desktop: Page) -> None:
    user = factories.make_user("asker", groups=("staff",))
    answer = cited_answer(user)
    zh_login(zh_desktop, "asker")
    zh_desktop.goto(answer.get_absolute_url())
    zh_desktop.locator(".feedback-form button[value=helpful]").focus()
    zh_desktop.keyboard.press("Enter")
    expect(zh_desktop.locator(".feedback .saved")).to_be_visible()
    expect(zh_desktop.locator(".feedback-form button[value=helpful]")).to_have_attribute("aria-pressed", "true")
    assert zh_desktop.evaluate(f"!!document.activeElement.closest('#feedback-{answer.pk}')"), zh_desktop.evaluate(
        "document.activeElement.tagName"
    )
    zh_desktop.keyboard.press("Tab")
    assert zh_desktop.evaluate(f"!!document.activeElement.closest('#feedback-{answer.pk}')")


def test_a_refused_question_is_tied_to_the_box(zh_desktop: Page) -> None:
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.make_document(ZH_TEXT, source_id="policy/refunds", title="退款规定")
    zh_login(zh_desktop, "asker")
    box = zh_desktop.locator("#id_question")
    box.fill("   ")  # spaces pass the browser's `required`; the server refuses the question
    zh_desktop.locator(".ask-form button[type=submit]").first.click()
    error = zh_desktop.locator("#answer [role=alert]")
    expect(error).to_contain_text("必填")
    error_id = error.locator("[id]").first.get_attribute("id")
    expect(box).to_have_attribute("aria-invalid", "true")
    assert error_id and error_id in (box.get_attribute("aria-describedby") or "").split()


def test_the_cards_link_on_a_phone_is_big_enough_to_tap(zh_phone: Page) -> None:
    user = factories.make_user("asker", groups=("staff",))
    answer = cited_answer(user)
    zh_login(zh_phone, "asker")
    zh_phone.goto(answer.get_absolute_url())
    zh_phone.locator(".fn-marker").first.tap()
    link = zh_phone.locator(".fn .hovercard .hc-link").first
    expect(link).to_be_visible()
    box = link.bounding_box()
    assert box is not None and box["height"] >= 24 and box["width"] >= 24, box
