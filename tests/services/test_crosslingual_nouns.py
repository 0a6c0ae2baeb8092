"""A Chinese question asked of English documents is not answered by a passage that holds none of what its
nouns name: "停车场几点开门？" (when does the car park open) must not be answered with the canteen's opening
hours because they say "open". The answerability check leaves out a translated word no candidate holds (most
often a dictionary sense the documents do not use), except a common noun of the question (pipeline/
answerability.py, `common_nouns`). Asked through the real pipeline on a corpus of three short policies, where
every passage is a candidate of every question."""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer
from rag_app.pipeline.answerability import common_nouns
from tests.factories import cited_sources, ingest_text

POLICIES = {
    "canteen": "# Canteen\n\nThe canteen opens at 11:30 and closes at 14:00 on working days. "
    "Vegetarian meals are offered every day.\n",
    "travel": "# Travel policy\n\nTrain tickets are booked through the travel desk. "
    "Flights need a manager's approval before booking.\n",
    "leave": "# Annual leave\n\nEmployees receive 25 days of annual leave. "
    "Requests are made two weeks in advance in the HR portal.\n",
}


@pytest.fixture
def policies(levels) -> None:
    for name, text in POLICIES.items():
        ingest_text(text, source_id=f"hr/{name}", file_name=f"{name}.md", title=name, level="official")


@pytest.mark.django_db
@pytest.mark.parametrize("question", ["停车场几点开门？", "健身房几点开门？"])
def test_a_place_no_document_names_is_not_answered_by_another_places_hours(policies, staff_user, question) -> None:
    answer = services.ask(user=staff_user, question=question)
    assert answer.state == Answer.State.NO_EVIDENCE, (cited_sources(answer), answer.trace.candidates)
    assert answer.reason == "no_answering_passage"


# With the embedder (`hybrid`): "火车票怎么订？" is read through one word, "train ticket" (订 is not translated), which
# needs the embedder to put the passage first (tests/services/test_crosslingual_one_word.py).
@pytest.mark.django_db
@pytest.mark.parametrize(("question", "source"), [("火车票怎么订？", "hr/travel"), ("机票需要谁批准？", "hr/travel")])
def test_a_question_whose_nouns_the_documents_render_is_still_answered(
    hybrid, policies, staff_user, question, source
) -> None:
    answer = services.ask(user=staff_user, question=question)
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    assert cited_sources(answer) == {source}


@pytest.mark.django_db
def test_the_same_question_in_english_is_refused_the_same_way(policies, staff_user) -> None:
    answer = services.ask(user=staff_user, question="When does the car park open?")
    assert answer.state == Answer.State.NO_EVIDENCE, (cited_sources(answer), answer.trace.candidates)


def test_common_nouns_are_the_questions_nouns_only() -> None:
    assert common_nouns("停车场几点开门？") == frozenset({"停车场"})
    assert "源代码" in common_nouns("MPL 2.0 要求在源代码文件头部加什么声明？")
    # verbs are not: what they render is as often a sense the documents do not use ("开门": to open a door, to
    # open for business); nor are one-character nouns ("天", "时"), read too many ways to translate alone
    assert not common_nouns("年假有多少天？开门时要带什么？") & {"开门", "天", "时", "带"}
