"""Trial 32a: a staff member with a screen reader reads answers and their provenance, and narrows a question's
scope. Each test was a defect found by driving the running app (a strict xfail, now fixed), or an edge of its fix: the
language a text is read in, the heading outline, where focus starts on an answer's page, the scope picker's ticks."""

from __future__ import annotations

import itertools
import re

import pytest
from django.urls import reverse

from tests import factories
from tests.views.answers import Para, make_answer
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


def _conflicting_answer(user):
    factories.make_levels()
    a = factories.make_document(
        "退款须在三十天内申请。", source_id="policy/refunds", title="退款规定", level="official"
    )
    b = factories.make_document("退款须在十四天内申请。", source_id="faq/refunds", title="常见问题", level="note")
    return make_answer(
        user=user,
        question="How long do I have to ask for a refund?",
        conflict=True,
        paragraphs=[
            Para("退款须在三十天内申请。", cites=[("S1", factories.chunks_of(a)[0])]),
            Para("退款须在十四天内申请。", cites=[("S2", factories.chunks_of(b)[0])]),
        ],
    )


def test_the_conflict_banner_marks_each_source_title_in_its_language() -> None:
    user = factories.make_user("asker", groups=("staff",))
    answer = _conflicting_answer(user)
    html = client_for(user).get(answer.get_absolute_url()).content.decode()
    banner = re.search(r'<div class="banner conflict".*?</div>', html, re.S)
    assert banner, "no conflict banner"
    for title in ("退款规定", "常见问题"):
        assert re.search(rf'lang="zh"[^>]*>{title}<', banner.group(0)), banner.group(0)


def test_a_level_label_in_another_language_than_the_interface_is_marked() -> None:
    user = factories.make_user("asker", groups=("staff",))
    answer = _conflicting_answer(user)
    html = client_for(user).get(answer.get_absolute_url(), **ZH).content.decode()
    assert '<html lang="zh-hans">' in html
    # (on the label itself: the badge's title= is in the interface's language)
    badges = re.findall(r'<span class="badge level level-official"[^>]*>(?:<span[^>]*>)?Official</span>', html)
    assert badges, "no level badge"
    assert all('lang="en"' in badge for badge in badges), badges


def test_the_provenance_pages_answer_sits_under_its_heading() -> None:
    staff = factories.make_user("asker", groups=("staff",))
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    answer = _conflicting_answer(staff)
    html = client_for(reviewer).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    headings = [
        (int(level), re.sub(r"<[^>]+>", "", text).strip())
        for level, text in re.findall(r"<h([1-6])[^>]*>(.*?)</h\1>", html, re.S)
    ]
    levels = [level for level, _ in headings]
    assert levels[0] == 1 and all(b <= a + 1 for a, b in itertools.pairwise(levels)), headings
    at = [text for _, text in headings].index("Answer as shown")
    assert headings[at + 1] == (headings[at][0] + 1, answer.question), headings


def test_an_answers_page_does_not_put_focus_in_the_question_box() -> None:
    user = factories.make_user("asker", groups=("staff",))
    answer = _conflicting_answer(user)
    client = client_for(user)
    page = client.get(answer.get_absolute_url()).content.decode()
    box = re.search(r"<textarea[^>]*name=\"question\"[^>]*>", page)
    assert box and "autofocus" not in box.group(0), box
    # the empty ask page and a follow-up's still do: there the box is what the reader came for
    for url in (reverse("ask"), reverse("ask") + f"?parent={answer.pk}"):
        box = re.search(r"<textarea[^>]*name=\"question\"[^>]*>", client.get(url).content.decode())
        assert box and "autofocus" in box.group(0), (url, box)


# ------------------------------------------------------------------------------------------- the scope picker's ticks

HTMX = {"HTTP_HX_REQUEST": "true"}


def test_the_picker_keeps_readable_ticked_documents_and_never_shows_a_hidden_one() -> None:
    """What a search sends as ticked is read as any id: a document the reader may not read is not echoed (its title
    or its existence), nor a retired one; a readable one comes back ticked, ahead of the results and not twice."""
    from rag_app.services.documents import document_retire

    user = factories.make_user("asker", groups=("staff",))
    factories.make_levels()
    factories.make_document("Refunds take 30 days.", source_id="policy/refunds", title="Refund policy")
    factories.make_document("Salaries.", source_id="hr/salaries", title="Salary bands", groups=["hr"])
    old = factories.make_document("Old.", source_id="policy/old", title="Old refund policy")
    document_retire(user=factories.make_admin(), document=old)
    html = (
        client_for(user)
        .get(
            reverse("ask"),
            {"doc_q": "refund", "scope_documents": ["policy/refunds", "hr/salaries", "policy/old"]},
            **HTMX,
        )
        .content.decode()
    )
    assert html.count('value="policy/refunds"') == 1
    assert 'value="policy/refunds" checked' in html
    assert "hr/salaries" not in html and "Salary bands" not in html
    assert "policy/old" not in html
    # the only match is the ticked one: it was found, so "no document matches" would be wrong
    assert "No readable document matches." not in html and "1 document found" in html


def test_without_javascript_the_picker_keeps_the_ticks_too() -> None:
    user = factories.make_user("asker", groups=("staff",))
    factories.make_levels()
    factories.make_document("Refunds take 30 days.", source_id="policy/refunds", title="Refund policy")
    factories.make_document("Parking opens at seven.", source_id="policy/parking", title="Parking policy")
    html = (
        client_for(user)
        .get(reverse("ask"), {"doc_q": "parking", "scope_documents": ["policy/refunds"]})
        .content.decode()
    )
    assert 'value="policy/refunds" checked' in html and 'value="policy/parking"' in html
