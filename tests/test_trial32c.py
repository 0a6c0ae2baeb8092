"""Trial 32c: a team that turned on model mode (llama.cpp's server with SmolLM2) and asks in English and Chinese
through the page, the API and `manage.py ask`, judging what the model's output becomes. Each test is a defect such a
team saw, asserting what the README and docs/ describe (found as a strict xfail; the fixed ones lost their marker).

The replies below are SmolLM2's own (answers 9 and 13 of the trial's run), served by tests/llm_server.scripted_server
so that each test reads the same reply every time.
"""

from __future__ import annotations

import html
import json

import pytest
from django.test import Client

from rag_app import services
from rag_app.models import Answer
from tests import factories
from tests.llm_server import Reply, ScriptedServer, completion
from tests.services.test_ask import Q_REFUND, corpus, use_llm

__all__ = ["corpus"]  # a fixture

pytestmark = pytest.mark.django_db

COLLEGE = (
    "山东女子学院是中国山东省济南市的一所本科层次全日制公办女子高等院校。学校现有市中校区、长清校区两个校区。"
    "学校前身是创建于1952年的山东省妇女干部学校。市中校区位于济南市市中区玉函路45号。"
    "长清校区位于济南市长清区长清大学城大学路。"
)
Q_COLLEGE = "山东女子学院在哪里？"

# SmolLM2's plain-text reply to Q_COLLEGE (RAG_LLM_STRUCTURED=none), cut at the token limit: its instructions said
# back, with the example markers of rule 2 ("例如 [S1] 或 [S1][S2]") read as citations.
ECHO_ZH = (
    "明确的问题是：你可以用资料中写出来说明山东女子学院在哪里？\n\n我们可以使用下面这个文档的问题描述：\n\n"
    "1. 你只能依据内容中定义的关于山东女子学院在哪里？\n2. 如果资料不确定，用一个不带编号的知识来回答问题。\n"
    "3. 每个资料都要用资料编号注明出处，例如 [S1] 或 [S2].\n4. 如果不同资料说法不一致，不要使用中文简要回答。\n"
    "5. 你可以在本地首页上翻译出来一个关于山东女子学院的问题。\n"
    "6. 每个资料不要使用中文简易回答，可以在本地首页上翻译出来一个关于山东女子学院的问题。\n"
    "7. 每个资料"
)
# The same in English, as the model says back the English prompt's rules.
ECHO_EN = (
    "1. Use only facts stated in the sources. Do not use outside knowledge.\n"
    "2. Every paragraph cites the sources it rests on with their markers, e.g. [S1] or [S1][S2].\n"
    "3. If the sources do not answer the question, say so in one short paragraph without a marker.\n"
    "4. If sources disagree, do not merge them: give one statement per source"
)


@pytest.fixture
def college(levels: object) -> None:
    factories.ingest_text(COLLEGE, source_id="zh/college.txt", title="山东女子学院")


def ask_with_reply(settings, server: ScriptedServer, user, question: str, content: str, **kw) -> Answer:
    use_llm(settings, server.base_url, **kw)
    server.queue(completion(content))
    return services.ask(user=user, question=question, mode="llm")


def reply(*paragraphs: tuple[str, list[str]]) -> str:
    return json.dumps({"paragraphs": [{"text": t, "citation_ids": c} for t, c in paragraphs]}, ensure_ascii=False)


def shown(answer: Answer) -> list[tuple[str, str]]:
    return [(p.text, p.evidence_status) for p in answer.paragraphs.all()]


# ------------------------------------------------------------------------------------------ figures as an answer


def test_a_reply_of_list_numbers_is_no_evidence(settings, scripted_server, college, staff_user):
    """SmolLM2 answered "where is it?" with the list numbers "1.2" [S1] and "3.4": it was stored and shown as
    answered (a weak "1.2" citing the college's page)."""
    answer = ask_with_reply(
        settings, scripted_server, staff_user, Q_COLLEGE, reply(("1.2", ["S1"]), ("3.4", [])), structured="json_object"
    )
    assert (answer.state, answer.reason) == (Answer.State.NO_EVIDENCE, "nothing_stated"), shown(answer)


def test_a_bare_number_the_cited_passage_holds_is_an_answer(settings, scripted_server, corpus, staff_user):
    """The other side of the rule above: "30" to "within how many days?" states the passage's own number."""
    answer = ask_with_reply(settings, scripted_server, staff_user, Q_REFUND, reply(("30", ["S1"])))
    assert answer.state == Answer.State.ANSWERED, shown(answer)
    assert shown(answer) == [("30", "linked")]


# ------------------------------------------------------------------------------------------ the prompt said back


def test_a_reply_that_says_the_instructions_back_is_no_evidence(settings, scripted_server, college, staff_user):
    """SmolLM2's plain-text reply said its own instructions back; rule 2's example markers ("例如 [S1] 或 [S2]")
    linked it, and the answer was stored and shown as answered."""
    answer = ask_with_reply(settings, scripted_server, staff_user, Q_COLLEGE, ECHO_ZH, structured="none")
    assert (answer.state, answer.reason) == (Answer.State.NO_EVIDENCE, "nothing_stated"), shown(answer)


def test_an_english_reply_that_says_the_instructions_back_is_no_evidence(settings, scripted_server, corpus, staff_user):
    """The same in English: the prompt's rules said back, with rule 2's example markers, were stored answered."""
    answer = ask_with_reply(settings, scripted_server, staff_user, Q_REFUND, ECHO_EN, structured="none")
    assert (answer.state, answer.reason) == (Answer.State.NO_EVIDENCE, "nothing_stated"), shown(answer)


@pytest.mark.parametrize(
    ("question", "text"),
    [
        (Q_REFUND, "Refunds are accepted within 30 days of purchase with the original receipt. [S1]"),
        (
            Q_REFUND,
            "The sources state that refunds are accepted within 30 days of purchase; each refund needs the original "
            "receipt. [S1]",
        ),
        (Q_COLLEGE, "山东女子学院位于山东省济南市，有市中校区和长清校区两个校区。[S1]"),
        (Q_COLLEGE, "根据资料，山东女子学院在济南市：市中校区位于玉函路45号，长清校区位于长清大学城。[S1]"),
    ],
    ids=["en-plain", "en-with-instruction-words", "zh-plain", "zh-with-instruction-words"],
)
def test_an_answer_in_its_own_words_stays_answered(
    settings, scripted_server, corpus, college, staff_user, question, text
):
    """The other side of the rule above: an answer may use a word of the instructions ("sources", "资料")."""
    answer = ask_with_reply(settings, scripted_server, staff_user, question, text, structured="none")
    assert answer.state == Answer.State.ANSWERED, shown(answer)
    assert [status for _, status in shown(answer)] == ["linked"]


# ------------------------------------------------------------------------------------------ a follow-up's thread


def test_a_follow_up_reply_that_says_the_earlier_question_back_is_no_evidence(
    settings, scripted_server, corpus, staff_user
):
    """A follow-up's reply that said the thread's earlier question back ("Within how many days of purchase are refunds
    accepted?" [S1]) was stored answered: only the question being answered was caught when said back."""
    first = services.ask(user=staff_user, question=Q_REFUND)  # extractive: the thread's first answer
    use_llm(settings, scripted_server.base_url, structured="json_object")
    scripted_server.queue(completion(reply((Q_REFUND, ["S1"]))))
    answer = services.ask(user=staff_user, question="And for gift cards?", parent=first, mode="llm")
    assert (answer.state, answer.reason) == (Answer.State.NO_EVIDENCE, "nothing_stated"), shown(answer)


@pytest.mark.parametrize(
    "text",
    ["Gift cards cannot be refunded.", "Refunds are accepted within 30 days of purchase, but not for gift cards."],
)
def test_a_follow_up_reply_in_the_earlier_questions_words_that_states_something_is_answered(
    settings, scripted_server, corpus, staff_user, text
):
    """The other side: a statement may share the earlier question's words ("refunds", "purchase")."""
    first = services.ask(user=staff_user, question=Q_REFUND)
    use_llm(settings, scripted_server.base_url, structured="json_object")
    scripted_server.queue(completion(reply((text, ["S1"]))))
    answer = services.ask(user=staff_user, question="And for gift cards?", parent=first, mode="llm")
    assert answer.state == Answer.State.ANSWERED, shown(answer)
    assert shown(answer) == [(text, "linked")]


# ------------------------------------------------------------------------------------------ a header under a label

SULFITE = (
    "亚硫酸盐是亚硫酸所成的盐。亚硫酸盐的用途：在葡萄酒中加入亚硫酸盐作防腐剂，防止变质和氧化；也可作为食品防腐剂。"
)


def test_a_source_header_said_back_under_a_label_is_no_evidence(settings, scripted_server, levels, staff_user):
    """SmolLM2 said the context's header line of S1 back under a label ("2018年的资料回答：[S1] 亚硫酸盐 | no location
    provided | level: note"): it was stored and shown as answered, where the header line alone is nothing_stated."""
    factories.ingest_text(SULFITE, source_id="zh/sulfite.txt", title="亚硫酸盐", level="note")
    content = reply(
        ("亚硫酸盐 | no location provided | level: note", ["S1"]),
        ("2018年的资料回答：[S1] 亚硫酸盐 | no location provided | level: note", []),
    )
    answer = ask_with_reply(
        settings, scripted_server, staff_user, "亚硫酸盐有什么用途？", content, structured="json_object"
    )
    assert (answer.state, answer.reason) == (Answer.State.NO_EVIDENCE, "nothing_stated"), shown(answer)


def test_a_label_over_a_statement_is_answered(settings, scripted_server, levels, staff_user):
    """The other side: a label over what the passage says is an answer."""
    factories.ingest_text(SULFITE, source_id="zh/sulfite.txt", title="亚硫酸盐", level="note")
    content = reply(("用途：在葡萄酒中作防腐剂，防止变质和氧化。", ["S1"]))
    answer = ask_with_reply(
        settings, scripted_server, staff_user, "亚硫酸盐有什么用途？", content, structured="json_object"
    )
    assert answer.state == Answer.State.ANSWERED, shown(answer)


# ------------------------------------------------------------------------------------------ what the API says


@pytest.mark.parametrize(
    ("replies", "language", "expected"),
    [
        ([Reply(status=503, body="busy")], "en", "The model server refused the request."),
        ([Reply(status=503, body="busy")], "zh-hans", "模型服务器拒绝了请求"),
        (
            [completion(reply(("I don't know.", ["S1"])))],
            "zh-hans",
            "找到了段落，但其中的内容都不能回答这个问题",
        ),
    ],
    ids=["error-en", "error-zh", "nothing-stated-zh"],
)
def test_the_api_answer_says_what_the_page_says(
    settings, scripted_server, corpus, staff_user, replies, language, expected
):
    """The API's answer JSON (and ask --json) of an error or no_evidence answer carried only a reason code: the
    sentence the page shows the reader ("语言模型响应超时。请稍后再试。") was in no field, so an integration had to copy
    the product's table of reasons to tell its users anything."""
    use_llm(settings, scripted_server.base_url)
    scripted_server.queue(*replies)
    client = factories.token_client(staff_user)
    response = client.post(
        "/api/v1/ask", {"question": Q_REFUND, "mode": "llm"}, format="json", HTTP_ACCEPT_LANGUAGE=language
    )
    assert response.status_code == 201, response.content[:300]
    page = Client(HTTP_ACCEPT_LANGUAGE=language)
    page.force_login(staff_user)
    shown_page = page.get(f"/answers/{response.json()['id']}/").content.decode()
    assert expected in html.unescape(shown_page)  # the page says it
    assert expected in (response.json().get("message") or "")


def test_the_api_says_a_model_answer_was_cut_off_and_nothing_of_a_whole_one(
    settings, scripted_server, corpus, staff_user
):
    """The edge of the rule above: an answered answer gets a message only when the model was cut off."""
    use_llm(settings, scripted_server.base_url, structured="none")
    text = "Refunds are accepted within 30 days of purchase. [S1]\\n\\nGift cards cannot be"
    scripted_server.queue(completion(text, finish_reason="length"), completion("Refunds take 30 days. [S1]"))
    client = factories.token_client(staff_user)
    cut, whole = (
        client.post("/api/v1/ask", {"question": Q_REFUND, "mode": "llm"}, format="json").json() for _ in range(2)
    )
    assert (cut["state"], cut["truncated"]) == ("answered", True)
    assert cut["message"] == "The model's answer was cut off at its length limit: the last paragraph may be incomplete."
    assert (whole["state"], whole["truncated"], whole["message"]) == ("answered", False, None)


# ------------------------------------------------------------------------------------------ markdown in a reply


@pytest.mark.parametrize("structured", ["json_object", "none"])
def test_a_models_markdown_emphasis_is_not_shown_as_asterisks(
    settings, scripted_server, corpus, staff_user, structured
):
    """A model's Markdown emphasis was shown as its raw marks: the answer's page, the API and the CLI read
    "**Refunds** are accepted within *30 days* of purchase.", asterisks and backticks included."""
    text = "**Refunds** are accepted within *30 days* of purchase with the `original receipt`. [S1]"
    content = reply((text, ["S1"])) if structured != "none" else text
    answer = ask_with_reply(settings, scripted_server, staff_user, Q_REFUND, content, structured=structured)
    assert shown(answer) == [("Refunds are accepted within 30 days of purchase with the original receipt.", "linked")]
    assert answer.trace.raw_output == content  # the trace keeps the reply as it came


# ------------------------------------------------------------------------------------------ a heading over the answer


def test_a_heading_over_the_answer_is_not_a_linked_paragraph(settings, scripted_server, corpus, staff_user):
    """A model heads its reply "## Answer [S1]": shown as "Answer", it was a linked paragraph citing S1, one more
    "supported" statement of nothing (session 32's note). The statement under it is the answer."""
    content = "## Answer [S1]\n\nRefunds are accepted within 30 days of purchase [S1]."
    answer = ask_with_reply(settings, scripted_server, staff_user, Q_REFUND, content, structured="none")
    assert answer.state == Answer.State.ANSWERED, shown(answer)
    assert shown(answer) == [("Answer", "insufficient"), ("Refunds are accepted within 30 days of purchase.", "linked")]


def test_a_heading_alone_is_no_evidence(settings, scripted_server, corpus, staff_user):
    answer = ask_with_reply(settings, scripted_server, staff_user, Q_REFUND, "### 答案 [S1]", structured="none")
    assert answer.state == Answer.State.NO_EVIDENCE, shown(answer)
    assert answer.reason == "nothing_stated"
