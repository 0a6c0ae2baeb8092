"""Daily use in a real Chromium, on a desktop and on a 390 px phone: the traps and flows of issue 15."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.urls import reverse
from playwright.sync_api import Browser, Page, expect

from rag_app.models import Answer, AnswerReview, Document, Feedback
from tests import factories
from tests.browser.conftest import PHONE, login
from tests.browser.test_ui import save_screenshot
from tests.views.answers import Para, make_answer
from tests.workers import run_queued_jobs

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def no_sideways_scroll(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"))


def two_source_answer(user) -> Answer:
    """An answer whose first paragraph cites S2 and whose second cites S1: reading order is [1] [2]."""
    factories.make_levels()
    a = factories.make_document("Refunds take 30 days from the purchase date.", source_id="policy/a", title="Policy A")
    b = factories.make_document("Receipts must be kept for seven years.", source_id="policy/b", title="Policy B")
    return make_answer(
        user=user,
        paragraphs=[
            Para("Receipts must be kept for seven years.", cites=[("S2", factories.chunks_of(b)[0])]),
            Para("Refunds take 30 days from the purchase date.", cites=[("S1", factories.chunks_of(a)[0])]),
        ],
    )


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_footnotes_read_1_2_everywhere_in_reading_order(page: Page, viewport: dict[str, int]) -> None:
    """Paragraphs, hover cards, source panel and the API all say [1] for the first source read."""
    page.set_viewport_size(viewport)
    user = factories.make_user("asker", groups=("staff",))
    answer = two_source_answer(user)
    login(page, "asker")
    page.goto(answer.get_absolute_url())
    numbers = "els => els.map(e => e.dataset.number)"
    assert page.eval_on_selector_all(".para .fn-marker", numbers) == ["1", "2"]
    assert page.eval_on_selector_all(".hovercard .hc-number", numbers) == ["1", "2"]
    assert page.eval_on_selector_all(".source-entry > .src-number", numbers) == ["1", "2"]
    expect(page.locator("#src-1")).to_contain_text("seven years")
    body = page.request.get(f"/api/v1/answers/{answer.pk}").json()
    assert [(s["id"], s["display_number"]) for s in body["sources"]] == [("S2", 1), ("S1", 2)]
    assert [p["display_numbers"] for p in body["paragraphs"]] == [[1], [2]]


def test_an_expired_session_during_an_ask_goes_to_login_and_back(page: Page) -> None:
    """The login page is never swapped into the answer panel; after logging in the question is back."""
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    page.fill("#id_question", "How long do refunds take?")
    keep = [c for c in page.context.cookies() if c["name"] != "sessionid"]
    page.context.clear_cookies()  # the session expires while the page is open (the CSRF cookie stays)
    page.context.add_cookies(keep)  # type: ignore[arg-type]
    page.click(".ask-form button[type=submit]")
    page.wait_for_url("**/accounts/login/?next=*")
    assert page.locator("#answer").count() == 0
    page.fill("#id_username", "asker")
    page.fill("#id_password", "pw-for-tests-only")
    page.click("button[type=submit]:has-text('Log in')")
    page.wait_for_url("**/?q=*")
    expect(page.locator("#id_question")).to_have_value("How long do refunds take?")


def test_feedback_reaches_the_reviewer_queue_and_the_verdict_comes_back(browser: Browser, live_server) -> None:
    """Staff flag a citation on the page; a reviewer finds it under "flagged", records a verdict; staff see it."""
    staff = factories.make_user("asker", groups=("staff",))
    factories.make_user("rev", groups=("staff", "reviewer"))
    answer = two_source_answer(staff)
    staff_ctx = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    review_ctx = browser.new_context(base_url=live_server.url, viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        page = staff_ctx.new_page()
        login(page, "asker")
        page.goto(answer.get_absolute_url())
        entry = page.locator("#src-2")
        entry.locator("details.flag-source summary").click()
        entry.locator("input[value=citation_unsupported]").check()
        entry.locator("textarea[name=comment]").fill("The policy says 45 days now")
        entry.locator("button[type=submit]").click()
        expect(page.locator(".feedback .saved")).to_be_visible()
        page.locator(".feedback-form button[value=not_helpful]").click()
        expect(page.locator(".feedback-form button[value=not_helpful]")).to_have_attribute("aria-pressed", "true")
        assert Feedback.objects.filter(kind="citation_unsupported", citation__marker="S1").exists()

        reviewer = review_ctx.new_page()
        login(reviewer, "rev")
        reviewer.goto(reverse("review_list") + "?flag=flagged")
        reviewer.locator(f"a[href='{reverse('answer_provenance', args=[answer.pk])}']").first.click()
        expect(reviewer.locator(".feedback-table")).to_contain_text("The policy says 45 days now")
        assert no_sideways_scroll(reviewer)
        reviewer.select_option("#id_verdict", "needs_document_update")
        reviewer.fill("#id_note", "Refund policy v2 pending")
        reviewer.click(".verdict-form button[type=submit]")
        expect(reviewer.locator(".messages")).to_contain_text("Review saved.")
        assert AnswerReview.objects.filter(answer=answer).exists()
        reviewer.goto(reverse("review_list") + "?flag=flagged")
        expect(reviewer.locator(f"a[href='{reverse('answer_provenance', args=[answer.pk])}']")).to_have_count(0)

        page.reload()
        expect(page.locator(".review-status")).to_contain_text("needs a document update")
        expect(page.locator(".review-status")).to_contain_text("Refund policy v2 pending")
    finally:
        staff_ctx.close()
        review_ctx.close()


def test_on_a_phone_cards_stay_on_screen_and_targets_are_big_enough(phone: Page, tmp_path: Path) -> None:
    """A tapped card is wholly inside the screen, even for a marker near the bottom; markers are at
    least 24 x 24 px; Chinese quotations are upright; nothing scrolls sideways."""
    user = factories.make_user("asker", groups=("staff",))
    factories.make_levels()
    zh = factories.make_document("退款在购买后三十日内办理。", source_id="zh/refund", title="退款规定")
    filler = [Para(f"Paragraph {i} says nothing in particular but takes some room on the screen.") for i in range(14)]
    answer = make_answer(
        user=user, paragraphs=[*filler, Para("退款在购买后三十日内办理。", cites=[("S1", factories.chunks_of(zh)[0])])]
    )
    login(phone, "asker")
    phone.goto(answer.get_absolute_url())
    marker = phone.locator(".fn-marker").first
    marker.scroll_into_view_if_needed()
    box = marker.bounding_box()
    assert box is not None and box["width"] >= 24 and box["height"] >= 24
    marker.tap()
    card = phone.locator(".fn .hovercard").first
    expect(card).to_be_visible()
    phone.wait_for_function(
        "() => { const r = document.querySelector('.fn .hovercard').getBoundingClientRect();"
        " return r.top >= 0 && r.left >= 0 && r.right <= document.documentElement.clientWidth"
        " && r.bottom <= window.innerHeight; }"
    )
    quote = phone.locator(".para blockquote.para-text[lang=zh]").first
    assert quote.evaluate("el => getComputedStyle(el).fontStyle") == "normal"
    assert no_sideways_scroll(phone)
    save_screenshot(phone, tmp_path, "phone-hovercard.png", full_page=False)


def test_on_a_phone_admin_and_review_pages_do_not_overflow(phone: Page) -> None:
    """The nav with "Add a document", the levels page, the review list and provenance fit 390 px."""
    factories.make_levels()
    admin = factories.make_user("boss", groups=("staff", "reviewer", "admin"))
    answer = two_source_answer(admin)
    login(phone, "boss")
    for url in (
        reverse("ask"),
        reverse("levels"),
        reverse("document_upload"),
        reverse("review_list"),
        reverse("answer_provenance", args=[answer.pk]),
        reverse("document_list"),
    ):
        phone.goto(url)
        assert no_sideways_scroll(phone), url
    expect(phone.locator("nav >> text=Add a document")).to_be_in_viewport()


# Every part of a row a reader needs, right edge and left edge inside the window (not scrolled off in the table's box).
IN_VIEW = """sel => [...document.querySelectorAll(sel)].map(el => { const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.left >= 0 && r.right <= window.innerWidth; })"""


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_the_documents_list_is_read_without_scrolling_sideways(page: Page, viewport: dict[str, int], tmp_path: Path):
    """A user report: at 390 px the documents table scrolled sideways, its level and more columns off-screen. Each
    document's title, level and status (retired) are in the window, on a phone as on a desktop, and neither the page
    nor the table's box scrolls sideways."""
    from rag_app.services.documents import document_retire

    page.set_viewport_size(viewport)
    factories.make_levels()
    admin = factories.make_admin("boss")
    factories.make_document(
        "Hotel costs up to 150 euros per night are refunded.",
        source_id="policies/finance/travel-and-accommodation-expenses-2025-edition",
        title="Travel and accommodation expenses for staff on business trips abroad",
        level="official",
    )
    factories.make_document(
        "会议室需提前一天预订。", source_id="行政/会议室预订规定", title="会议室预订规定", level="note"
    )
    old = factories.make_document(
        "Parking opens at seven.", source_id="facilities/parking", title="Parking", level="reviewed"
    )
    document_retire(user=admin, document=old)
    factories.make_document("Salary bands.", source_id="hr/salary-bands", title="Salary bands", groups=["hr-comp"])
    login(page, "boss")
    page.goto(reverse("document_list"))
    expect(page.locator("table.documents tbody tr")).to_have_count(4)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.evaluate("[...document.querySelectorAll('.table-scroll')].every(b => b.scrollWidth <= b.clientWidth)")
    for part in ("td:first-child a", "td .badge.level", "td:first-child .badge.retired"):
        shown = page.evaluate(IN_VIEW, f"table.documents tbody {part}")
        assert shown and all(shown), (part, shown)
    expect(page.locator("table.documents .badge.retired")).to_have_count(1)
    save_screenshot(page, tmp_path, f"documents-{viewport['width']}.png")


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_the_provenance_page_says_which_question_words_each_candidate_holds(
    page: Page, viewport: dict[str, int], tmp_path: Path
) -> None:
    """Rule 1, why a chunk was retrieved: a real ask whose question word the passage writes as another word
    ("wrote" / "written"); the reviewer reads it in the candidate table, the table scrolls inside its box."""
    from rag_app import services

    page.set_viewport_size(viewport)
    factories.make_levels()
    asker = factories.make_user("asker", groups=("staff",))
    factories.make_user("rev", groups=("staff", "reviewer"))
    factories.make_document(
        "Gnomovision (which makes passes at compilers) was written by James Hacker.", source_id="notice", title="Notice"
    )
    factories.make_document("The parking garage opens at seven.", source_id="parking", title="Parking")
    answer = services.ask(user=asker, question="Who wrote Gnomovision?")
    login(page, "rev")
    page.goto(reverse("answer_provenance", args=[answer.pk]))
    row = page.locator("table.candidates tr", has_text="notice:v1:0").first
    words = row.locator("td.words")
    expect(words).to_contain_text("wrote → written (synonym)")
    expect(words).to_contain_text("Gnomovision")
    assert "not held" not in words.inner_text()
    # the relevance beside the bar the chunk had to reach (the threshold's share for an English question)
    bar = next(c["bar"] for c in answer.trace.candidates if c["chunk_id"] == "notice:v1:0")
    expect(row.locator("td").nth(2)).to_contain_text(f"/ {bar:.3f}")
    assert no_sideways_scroll(page)
    save_screenshot(page, tmp_path, "provenance-words.png")


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_no_evidence_names_the_question_words_no_related_passage_mentions(
    page: Page, viewport: dict[str, int], tmp_path: Path
) -> None:
    """A question about a licence the corpus lacks, asked through the form on the demo corpus: the related
    licence passages are listed, each saying it does not mention "Boost", and the advice names it."""
    from tests.browser.test_ui import load_demo

    page.set_viewport_size(viewport)
    load_demo()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    page.fill("#id_question", "What does the Boost Software License say about redistribution?")
    page.locator(".ask-form button[type=submit]").first.click()
    panel = page.locator("#answer .panel.no-evidence.not-enough")
    expect(panel).to_be_visible(timeout=60_000)
    lacks = panel.locator(".related-lacks")
    assert lacks.count() >= 1
    for i in range(lacks.count()):
        expect(lacks.nth(i)).to_contain_text("Does not mention: Boost")
    expect(panel.locator(".unmatched")).to_have_text("None of the related passages mentions Boost.")
    expect(panel).to_contain_text("Search terms: Boost Software License redistribution")  # words, not stems
    assert no_sideways_scroll(page)
    save_screenshot(page, tmp_path, "no-evidence-unmatched.png")


def test_after_asking_on_a_phone_the_answer_is_in_view(phone: Page) -> None:
    """The answer swaps in below the form and the page brings it into view."""
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    for i in range(6):
        factories.make_document(f"Section {i}: the parking policy covers bay {i}.", source_id=f"p/{i}", title=f"P{i}")
    factories.make_document("Refunds take 30 days from the purchase date.", source_id="refunds", title="Refunds")
    login(phone, "asker")
    phone.fill("#id_question", "How many days do refunds take from the purchase date?")
    phone.locator(".ask-form button[type=submit]").first.tap()
    answer = phone.locator("#answer .answer")
    expect(answer).to_be_visible(timeout=60_000)
    expect(phone.locator("#answer .question")).to_be_in_viewport()


def test_a_long_paste_shows_the_count_and_is_refused_with_the_limit(page: Page) -> None:
    """The counter turns red past 2,000; asking says how long the question is and what the limit is."""
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    page.fill("#id_question", "x" * 5000)
    counter = page.locator(".char-count")
    expect(counter).to_have_text("5000 / 2000")
    expect(counter).to_have_class("char-count muted over")
    page.click(".ask-form button[type=submit]")
    expect(page.locator("#answer .panel.error")).to_contain_text("5,000 characters long; the limit is 2,000")
    assert len(page.locator("#id_question").input_value()) == 5000  # nothing cut
    assert not Answer.objects.exists()


def test_a_new_version_uploaded_with_the_defaults_keeps_level_and_groups(page: Page, tmp_path: Path) -> None:
    """Leaving the upload form's level at its default keeps the document's level; the log names who."""
    factories.make_levels()
    factories.make_user("boss", groups=("staff", "admin"), is_superuser=True)
    factories.make_document("Old text.", source_id="policy/x", level="official", groups=["hr"])
    login(page, "boss")
    page.goto(reverse("document_upload"))
    path = tmp_path / "x.txt"
    path.write_text("New text of the policy.")
    page.set_input_files("#id_file", str(path))
    page.fill("#id_source_id", "policy/x")
    page.click("form.stacked-form button[type=submit]")
    page.wait_for_url("**" + reverse("document_upload"))
    run_queued_jobs()  # what the worker does
    expect(page.locator(".job", has_text="policy/x v2 1 chunks updated")).to_be_visible()
    doc = Document.objects.get(source_id="policy/x")
    assert doc.level.slug == "official" and list(doc.groups.values_list("name", flat=True)) == ["hr"]


def test_a_forbidden_page_is_styled_with_a_way_back(phone: Page) -> None:
    """A staff user opening the review queue gets the styled 403 with navigation, not a bare text."""
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    login(phone, "asker")
    response = phone.goto(reverse("review_list"))
    assert response is not None and response.status == 403
    expect(phone.locator("h1")).to_have_text("You cannot open this page")
    expect(phone.locator("main a", has_text="Go to the ask page")).to_be_visible()
    assert no_sideways_scroll(phone)


def test_the_home_page_orients_and_a_scoped_follow_up_works(page: Page, tmp_path: Path) -> None:
    """What is indexed and example questions; a question asked within one level; then a follow-up."""
    factories.make_levels()
    factories.make_user("asker", groups=("staff",))
    factories.ingest_text(
        "# Travel\n\n## Reimbursement\n\nTravel costs are reimbursed within 30 days.",
        source_id="policy/travel.md",
        file_name="travel.md",
        title="Travel policy",
        level="official",
    )
    factories.ingest_text("Travel costs are reimbursed within 10 days.", source_id="notes/travel", level="note")
    login(page, "asker")
    expect(page.locator(".welcome")).to_contain_text("2 documents are open to you")
    expect(page.locator(".welcome .examples")).to_contain_text("What does “Travel policy” say about Reimbursement?")
    save_screenshot(page, tmp_path, "home.png", full_page=False)
    page.fill("#id_question", "Within how many days are travel costs reimbursed?")
    page.locator("details.scope summary").click()
    page.locator("input[name=scope_levels][value=official]").check()
    page.click(".ask-form button[type=submit]")
    expect(page.locator("#answer .scope-note")).to_contain_text("Official")
    first = Answer.objects.get()
    assert first.scope == {"levels": ["official"]}
    cited = factories.cited_sources(first)
    assert cited == {"policy/travel.md"}
    page.goto(first.get_absolute_url())
    page.click("a.button:has-text('Ask a follow-up')")
    expect(page.locator(".follow-up-of")).to_contain_text("Within how many days")
    expect(page.locator("input[name=scope_levels][value=official]")).to_be_checked()  # remembered
    page.fill("#id_question", "Is that in working days?")
    page.click(".ask-form button[type=submit]")
    expect(page.locator("#answer .follow-up-of")).to_be_visible()
    follow = Answer.objects.exclude(pk=first.pk).get()
    assert follow.parent_id == first.pk
    assert json.loads(json.dumps(follow.scope)) == {"levels": ["official"]}


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_the_official_policy_is_quoted_first_and_the_stale_note_shown_as_a_disagreement(
    page: Page, tmp_path: Path, viewport: dict[str, int]
) -> None:
    """Issue 12's stale note, asked through the form among the demo corpus: the banner names both sources,
    the official policy's quote comes first, and nothing scrolls sideways at 390 px."""
    from tests.browser.test_ui import load_demo
    from tests.services.test_official_over_note import NOTE, POLICY

    page.set_viewport_size(viewport)
    load_demo()
    factories.ingest_text(
        POLICY, source_id="policy/refunds", file_name="refunds.md", title="Refund policy", level="official"
    )
    factories.ingest_text(NOTE, source_id="faq/refunds-2019", title="Support FAQ", level="note")
    factories.make_user("asker", groups=("staff",))
    login(page, "asker")
    page.fill("#id_question", "How long is the refund window?")
    page.locator(".ask-form button[type=submit]").first.click()
    banner = page.locator("#answer .banner.conflict")
    expect(banner).to_be_visible(timeout=60_000)
    expect(banner.locator("li")).to_have_count(2)
    expect(banner.locator("li").first).to_contain_text("Refund policy")
    paragraphs = page.locator("#answer .para .para-text")
    expect(paragraphs.first).to_contain_text("30 days of delivery")
    expect(paragraphs.nth(1)).to_contain_text("14 days")
    assert no_sideways_scroll(page)
    save_screenshot(page, tmp_path, f"conflict-stale-note-{viewport['width']}.png")


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_a_model_answer_shows_the_left_out_source_that_disagrees(
    page: Page, tmp_path: Path, viewport: dict[str, int], settings, scripted_server
) -> None:
    """Issue 13, model mode: the model cites only the stale note; the official policy's statement is shown
    after it, labelled as quoted by the conflict check, and the banner names both sources."""
    from rag_app import services
    from tests.llm_server import completion
    from tests.services.test_ask import use_llm

    page.set_viewport_size(viewport)
    factories.make_levels()
    factories.ingest_text(
        "Refunds are accepted within 14 days of purchase.", source_id="faq/refunds", title="Support FAQ", level="note"
    )
    factories.ingest_text(
        "Refunds are accepted within 30 days of purchase.", source_id="policy/refunds", title="Refund policy"
    )
    asker = factories.make_user("asker", groups=("staff",))
    use_llm(settings, scripted_server.base_url)
    question = "Within how many days of purchase are refunds accepted?"
    probe = services.ask(user=asker, question=question, mode="extractive")
    note = next(m for m, s in probe.trace.marker_map.items() if s["source_id"] == "faq/refunds")
    reply = {"paragraphs": [{"text": "Refunds are accepted within 14 days of purchase.", "citation_ids": [note]}]}
    scripted_server.queue(completion(json.dumps(reply)))
    answer = services.ask(user=asker, question=question, mode="llm")
    assert answer.conflict
    login(page, "asker")
    page.goto(reverse("answer_detail", args=[answer.pk]))
    banner = page.locator("#answer .banner.conflict")
    expect(banner).to_be_visible()
    expect(banner.locator("li")).to_have_count(2)
    expect(banner.locator("li").first).to_contain_text("Refund policy")  # the official side first
    paras = page.locator("#answer .para")
    expect(paras).to_have_count(2)
    expect(paras.first.locator(".added-label")).to_have_count(0)
    expect(paras.nth(1).locator(".added-label")).to_contain_text("Another source disagrees")
    expect(paras.nth(1).locator("blockquote")).to_contain_text("30 days")
    assert no_sideways_scroll(page)
    save_screenshot(page, tmp_path, f"model-conflict-{viewport['width']}.png")


@pytest.mark.parametrize("viewport", [{"width": 1280, "height": 900}, PHONE], ids=["desktop", "phone"])
def test_the_levels_table_has_a_cell_per_column_and_saves_a_row(page: Page, viewport: dict[str, int]) -> None:
    """Each level's row has a cell under each of the four headings (its label, weight and Save were one cell spanning
    three, a form cannot span cells: now the inputs name their row's form), each Save button says which level it
    saves, and saving a row still changes that level only."""
    from rag_app.models import SourceLevel

    page.set_viewport_size(viewport)
    factories.make_levels()
    factories.make_user("boss", groups=("staff", "admin"))
    login(page, "boss")
    page.goto(reverse("levels"))
    table = page.locator("table.levels")
    headings = table.locator("thead th").count()
    rows = table.locator("tbody tr")
    assert rows.count() == SourceLevel.objects.count()
    for i in range(rows.count()):
        assert rows.nth(i).locator("td").count() == headings == 4
    note = SourceLevel.objects.get(slug="note")
    row = rows.filter(has_text="note")
    row.get_by_label("Weight").fill("0.5")
    # Reachable where the row is: not scrolled out of the table's box on a phone.
    expect(row.get_by_role("button", name="Save note")).to_be_in_viewport(ratio=1)
    row.get_by_role("button", name="Save note").click()
    expect(page.locator(".messages, [role=status]").first).to_be_attached()
    note.refresh_from_db()
    assert note.weight == 0.5
    assert SourceLevel.objects.get(slug="official").weight != 0.5
    assert no_sideways_scroll(page)  # the Save buttons' hidden level names stay inside the table's scroll box
