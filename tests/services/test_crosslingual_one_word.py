"""A Chinese question read across languages through one word is not answered by whatever passage holds that word.

"我的电脑丢了怎么办？" (I lost my computer, what now?) translates word by word to "computer" alone: 丢 (lose) is one
character, never translated, and 怎么办 asks. GPL 3's "use of software on general-purpose computers" held that one
word and was quoted with support 1.00. "火车票怎么订？" (how do I book a train ticket?) reads the same way, "train
ticket" alone (订's dictionary senses are agree, conclude, draw up, subscribe, order; not "book"), and "Train tickets
are booked through the travel desk" answers it. What tells them apart is the embedder, which reads the whole question:
when other words of the question say what it asks, a passage in the other language is read through the one word only
if it is the candidate the embedder likes best (pipeline/answerability.py, `said_besides`; docs/EVALUATION.md,
session 40). Without an embedder (RAG_EMBEDDER=none) no passage is: the question is not answered on one word.
Asked through the real pipeline, with the bundled embedder where it says so."""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer
from rag_app.pipeline.answerability import said_besides
from rag_app.pipeline.crosslingual import translate
from rag_app.pipeline.textproc import asked_text
from tests.factories import cited_sources, ingest_text

POLICIES = {
    "travel": "# Travel policy\n\nTrain tickets are booked through the travel desk. "
    "Flights need a manager's approval before booking.\n",
    "library": "# Library\n\nThe computers in the library are for catalogue searches only. "
    "Printing costs ten cents a page.\n",
    "security": "# Security\n\nReport a lost or stolen laptop to the IT service desk within 24 hours. "
    "IT will wipe the device remotely.\n",
}


@pytest.fixture
def policies(levels) -> None:
    for name, text in POLICIES.items():
        ingest_text(text, source_id=f"it/{name}", file_name=f"{name}.md", title=name, level="official")


def _verdicts(answer: Answer, source_id: str) -> list[dict]:
    return [c for c in answer.trace.candidates if c["source_id"] == source_id]


@pytest.mark.django_db
def test_a_passage_holding_only_the_noun_does_not_answer_what_happens_to_it(hybrid, policies, staff_user) -> None:
    answer = services.ask(user=staff_user, question="我的电脑丢了怎么办？")
    assert "it/library" not in cited_sources(answer), answer.trace.candidates
    assert answer.state == Answer.State.NO_EVIDENCE, answer.trace.candidates
    library = _verdicts(answer, "it/library")
    assert library and library[0]["reason"] == "not_answering", answer.trace.candidates
    assert library[0]["facts"]["code"] == "one_word", library[0]
    assert library[0]["facts"]["words"] == ["丢"], library[0]


@pytest.mark.django_db
def test_the_passage_the_embedder_puts_first_is_still_read_through_the_noun(hybrid, policies, staff_user) -> None:
    answer = services.ask(user=staff_user, question="火车票怎么订？")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    assert cited_sources(answer) == {"it/travel"}


@pytest.mark.django_db
def test_without_an_embedder_no_passage_is_read_through_one_word(policies, staff_user) -> None:
    for question in ("我的电脑丢了怎么办？", "火车票怎么订？"):
        answer = services.ask(user=staff_user, question=question)
        assert answer.state == Answer.State.NO_EVIDENCE, (question, answer.trace.candidates)
        assert answer.reason == "no_answering_passage"


@pytest.mark.django_db
def test_a_modal_or_light_verb_says_nothing_besides(hybrid, policies, staff_user) -> None:
    """机票需要谁批准？ reads as two words (plane ticket, approve): the rule does not apply."""
    answer = services.ask(user=staff_user, question="机票需要谁批准？")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    assert cited_sources(answer) == {"it/travel"}


@pytest.mark.parametrize(
    ("question", "word", "besides"),
    [
        ("我的电脑丢了怎么办？", "电脑", ("丢",)),
        ("电脑坏了找谁修？", "电脑", ("坏", "修")),
        ("火车票怎么订？", "火车票", ("订",)),
        ("年假怎么申请？", "年假", ("申请",)),
        # modal and light verbs are common in ordinary text (generality.idf below SAYING_IDF): they say nothing
        ("密码要多长？", "密码", ()),
        ("报销怎么做？", "报销", ()),
        ("工资什么时候发？", "工资", ()),
        ("电脑怎么连VPN？", "电脑", ()),
    ],
)
def test_said_besides_is_what_else_the_question_says(question: str, word: str, besides: tuple[str, ...]) -> None:
    assert said_besides(question, word) == besides


def test_a_question_that_ends_in_once_asks_how_often() -> None:
    """ "多久要换一次？" is "how often must it be changed?": 一次 (once, the first time) asks, as "how often" does;
    read as a word it was answered by GPL 3's "the first time you have received notice"."""
    assert "一次" not in asked_text("密码多久要换一次？")
    assert "一次" not in asked_text("体检几年做一次？")
    assert "一次" in asked_text("我可以再试一次吗？")
    assert "一次" in asked_text("第一次违规后多少天内改正？")


def test_a_question_read_through_a_word_that_says_nothing_is_not_held_to_it() -> None:
    """ "帮我查一下年假有几天" was read through 一下 alone ("give, go, one, time"): a request's frame asks (帮我,
    一下), and 年假 is translated whole; the pieces of a word asked whole are not words besides it."""
    assert [g.source for g in translate("帮我查一下年假有几天")] == ["年假"]
    assert "年假" in said_besides("年假和电脑补贴怎么申请", "电脑")
    assert "假" not in said_besides("年假和电脑补贴怎么申请", "电脑")


def test_once_asks_only_after_a_span_asked() -> None:
    """ "报销只能报一次？" asks about once: 一次 stays."""
    assert "一次" in asked_text("报销只能报一次？")
    assert "一次" in asked_text("年假只能休一次？")
