"""Trial 32a: a staff member with a screen reader reads answers and their provenance. Each test was a defect found by
driving the running app (a strict xfail, now fixed): what a screen reader is told by the page's markup (the language
a text is read in, the heading outline)."""

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
