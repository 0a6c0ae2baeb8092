"""Trial 31c: a bilingual staff member whose interface is in Chinese, asking in Chinese and in English about a
Chinese expense policy, a note that disagrees with it and an English travel policy; and a reviewer checking the
answers on the provenance page. Each test is a defect such a user saw, asserting what the README and docs/ describe
(found as a strict xfail; the fixed ones lost their marker, the two still marked are not fixed yet).
"""

from __future__ import annotations

import html as html_lib
import re

import pytest
from django.urls import reverse

from rag_app import services
from rag_app.models import Answer
from tests import factories
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN"}

RULES = (
    "# 费用报销制度\n\n## 第一条 报销时限\n\n员工应在费用发生后30天内提交报销申请，逾期不予报销。\n\n"
    "## 第二条 审批\n\n报销申请由财务部经理张伟审批。\n\n## 第三条 提交地点\n\n纸质单据须提交至北京总部财务室。\n"
)
NOTE = (
    "# 报销注意事项（部门备忘）\n\n根据部门经验，员工应在费用发生后15天内提交报销申请。\n\n报销申请由李娜审批。\n\n"
    "纸质单据须提交至上海分公司行政部。\n"
)
TRAVEL = (
    "# Business Travel Policy\n\n## Hotels\n\nHotel costs are reimbursed up to USD 220 per night.\n\n"
    "## Claims\n\nTravel expense claims must be submitted within 45 days of the employee's return.\n"
    "The approver for all travel claims is Maria Chen in the Finance Office.\n"
)


@pytest.fixture
def expense_rules(levels):
    """The official Chinese expense rules and a department note that names another office and approver."""
    factories.ingest_text(RULES, source_id="baoxiao-zhidu", file_name="baoxiao.md", level="official")
    factories.ingest_text(NOTE, source_id="baoxiao-note", file_name="note.md", level="note")


def texts(answer: Answer) -> list[str]:
    return [p.text for p in answer.paragraphs.all()]


# ------------------------------------------------------------------------------------------ disagreement across


def test_an_english_question_sees_chinese_sources_disagree_on_a_place(expense_rules, staff_user):
    answer = services.ask(user=staff_user, question="Where should paper receipts for reimbursement be submitted?")
    assert answer.state == Answer.State.ANSWERED
    assert answer.conflict
    shown = " ".join(texts(answer))
    assert "北京总部财务室" in shown and "上海分公司行政部" in shown


@pytest.mark.xfail(
    strict=True,
    reason="asked in Chinese about the English travel policy, '差旅报销由谁审批？' is answered with the hotel-cost "
    "cap first, beside the sentence naming the approver (差旅 is not in the dictionary; both chunks match one word). "
    "Tried in session 32 and reverted: preferring a sentence that names someone for 谁/who, and leaving out another "
    "chunk's sentence that states no value of the asked kind, fixed this and 3 answers of the natural and trial "
    "sets, but cost 13 CMRC dev answers (7 of them 谁: jieba's name tags miss the answers' names), "
    "answer_in_evidence .9719 -> .9669",
)
def test_a_chinese_who_question_on_an_english_policy_quotes_the_approver(levels, staff_user):
    factories.ingest_text(TRAVEL, source_id="travel", file_name="travel.md", level="official")
    answer = services.ask(user=staff_user, question="差旅报销由谁审批？")
    assert answer.state == Answer.State.ANSWERED
    shown = texts(answer)
    assert any("Maria Chen" in t for t in shown), shown
    assert not any("Hotel costs" in t for t in shown), shown


# ------------------------------------------------------------------------------------ the Chinese interface's text

# A half-width comma or colon written between Chinese words (a label's colon, a list's separator).
HALF_WIDTH_AMONG_CHINESE = re.compile(r"[\u4e00-\u9fff]\s*[,:;]|[,:;]\s*[\u4e00-\u9fff]")


def visible(html: str) -> str:
    """The interface's text as read: tags, comments and scripts out (attribute values are not shown), and the
    trace's verbatim texts (`<pre>`: the context and raw output the model saw, data rather than interface)."""
    html = re.sub(r"<(script|style|pre)\b.*?</\1>", " ", html, flags=re.S)
    html = re.sub(r"<!--.*?-->", " ", html, flags=re.S)
    return html_lib.unescape(re.sub(r"<[^>]+>", "", html))


def test_the_words_a_related_passage_lacks_are_listed_as_chinese_lists_words(expense_rules, staff_user):
    answer = services.ask(user=staff_user, question="纸质单据需要财务经理签字吗？")
    assert answer.reason == "below_threshold"
    html = visible(client_for(staff_user).get(reverse("answer_detail", args=[answer.pk]), **ZH).content.decode())
    assert "未提及：" in html
    lacks = html[html.index("未提及：") :].split("\n")[0]
    assert "、" in lacks, lacks
    assert not HALF_WIDTH_AMONG_CHINESE.search(lacks), lacks


def test_the_provenance_page_in_chinese_punctuates_as_chinese(expense_rules, staff_user, reviewer_user):
    answer = services.ask(user=staff_user, question="报销申请由谁审批？")
    html = visible(client_for(reviewer_user).get(reverse("answer_provenance", args=[answer.pk]), **ZH).content.decode())
    found = sorted({html[max(0, m.start() - 12) : m.end() + 12] for m in HALF_WIDTH_AMONG_CHINESE.finditer(html)})
    assert found == [], "\n".join(repr(f) for f in found)


def test_the_ask_pages_overview_punctuates_as_chinese(expense_rules, staff_user):
    html = visible(client_for(staff_user).get(reverse("ask"), **ZH).content.decode())
    overview = html[html.index("最近更新于") :][:80]
    assert not re.search(r"\d:\s", overview), overview


# ------------------------------------------------------------------------------------------------- follow-ups


@pytest.mark.xfail(
    strict=True,
    reason="as a follow-up of '报销申请由谁审批？', '那纸质单据交到哪里？' is answered from the note alone "
    "(上海分公司行政部): asked alone, the official rules' passage qualifies at 0.51 only by its document's lead "
    "over the note (交到 is in no document); with the thread's 报销/申请/审批, which the note's one chunk also "
    "holds, that lead is gone and it falls to 0.38 (weighing the thread's words at 0.5, 0.25 or 0.1 of theirs "
    "still left it below 0.50: session 32)",
)
def test_a_follow_up_is_not_answered_by_the_note_against_the_official_rules(hybrid, expense_rules, staff_user):
    factories.ingest_text(TRAVEL, source_id="travel", file_name="travel.md", level="official")
    for i, text in enumerate(["公司年会定于十二月举行，全体员工参加。", "办公室每周五下午进行卫生检查。"]):
        factories.ingest_text(text, source_id=f"misc-{i}", level="reviewed")
    alone = services.ask(user=staff_user, question="纸质单据交到哪里？")
    assert any("北京总部财务室" in t for t in texts(alone))  # the official rules answer the question asked alone
    first = services.ask(user=staff_user, question="报销申请由谁审批？")
    follow = services.ask(user=staff_user, question="那纸质单据交到哪里？", parent=first)
    shown = texts(follow)
    assert any("北京总部财务室" in t for t in shown), shown


def test_the_link_to_the_newer_version_names_it_as_chinese_names_versions(levels, staff_user):
    from tests.views.answers import Para, make_answer

    factories.ingest_text(TRAVEL, source_id="travel", file_name="travel.md")
    chunk = factories.chunks_of("travel", version=1)[1]
    factories.ingest_text(TRAVEL.replace("USD 220", "USD 250"), source_id="travel", file_name="travel.md")
    answer = make_answer(user=staff_user, paragraphs=[Para(chunk.text, cites=[("S1", chunk)])])
    html = visible(client_for(staff_user).get(reverse("answer_detail", args=[answer.pk]), **ZH).content.decode())
    assert "已有更新版本" in html
    assert "阅读第 2 版" in html and "阅读版本" not in html


# --------------------------------------------------------------------------- texts marked in their own language

LATIN_WORD = re.compile(r"[A-Za-z]{2,}")


def unmarked_latin(fragment: str) -> list[str]:
    """The Latin words of an HTML fragment that no element marked lang="en" holds."""
    fragment = re.sub(r'<(\w+)[^>]*\blang="en"[^>]*>[^<]*</\1>', " ", fragment)
    return LATIN_WORD.findall(html_lib.unescape(re.sub(r"<[^>]+>", " ", fragment)))


def test_the_question_words_a_candidate_holds_are_marked_in_their_language(expense_rules, staff_user, reviewer_user):
    answer = services.ask(user=staff_user, question="Where should paper receipts for reimbursement be submitted?")
    html = client_for(reviewer_user).get(reverse("answer_provenance", args=[answer.pk]), **ZH).content.decode()
    cells = re.findall(r'<td class="words"[^>]*>(.*?)</td>', html, flags=re.S)
    assert cells
    assert [w for cell in cells for w in unmarked_latin(cell)] == []
    # how each is held, in full-width brackets with no space before them: "paper → 纸质（翻译）"
    shown = [re.sub(r"<[^>]+>", "", cell) for cell in cells]
    assert all("（翻译）" in text and " （" not in text for text in shown), shown


def test_the_levels_page_marks_a_documents_title_in_its_language(levels, admin_user_role):
    factories.ingest_text(TRAVEL, source_id="travel", file_name="travel.md")
    html = client_for(admin_user_role).get(reverse("levels"), **ZH).content.decode()
    labels = re.findall(r'<label for="doc-\d+"[^>]*>.*?</label>', html, flags=re.S)
    assert labels
    assert [w for label in labels for w in unmarked_latin(label)] == []


# ------------------------------------------------------------------------------------------------------- the API


@pytest.mark.parametrize(
    "path",
    ["/api/v1/answers/99999", "/api/v1/answers/99999/trace", "/api/v1/documents/nope", "/api/v1/chunks/nope:v1:0"],
)
def test_the_apis_not_found_detail_is_in_the_callers_language(reviewer_user, path):
    """A reviewer (a trace is theirs to read) asks for what does not exist."""
    from rest_framework.test import APIClient

    client = APIClient()
    client.force_authenticate(reviewer_user)
    response = client.get(path, HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert re.search(r"[\u4e00-\u9fff]", response.json()["detail"]), response.json()
