"""A passage that holds the question's focus in part, beside one of another document that holds all of it.

"I lost my badge in London, what do I do?" was answered from the travel policy's "lost luggage" clause: the policy is
official, the London office guide that says what to do about a lost badge only reviewed, and level ranks qualified
sources before relevance (the design's rule 10). Both passed the answerability check, the clause on "lost" and
"London" alone. Now an answering passage holding under answerability.OUTDONE_SHARE of the focus is turned away
(`not_answering`, code `outdone`) when a passage of another document holds all of it and the embedder does not
clearly prefer the partial one. Asked through the real pipeline, with the embedder on (`hybrid`).
"""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer
from tests.factories import cited_sources, ingest_text

TRAVEL = """# Acme Group Travel Policy

## 8. Insurance and lost property

8.1 All approved trips, to London as elsewhere, are covered by the company business travel insurance, including
medical expenses, emergency evacuation and lost luggage. The 24-hour assistance number is printed in the booking
confirmation.

8.2 What is lost on a trip, in London or elsewhere (lost tickets, a lost passport), is reported to the travel desk
within 24 hours.

## 9. Booking

9.1 Flights and hotels are booked through the travel desk. Economy class is booked for flights under six hours.

9.2 Trains are preferred to flights for journeys under four hours.

## 10. Meals

10.1 Meals on travel days are reimbursed up to the daily allowance for the destination.
"""

GUIDE = """# London Office Guide

## Opening hours

The London office is open 07:30-19:30 on weekdays and closed at weekends.

## Badges and access

Your badge is produced on your first day after Facilities takes your photo. If you have lost your badge, tell
Facilities straight away so it can be deactivated; a replacement is issued at the welcome desk the same day.

## Visitors

Visitors to the London office sign in at the welcome desk and wear a visitor pass.
"""


@pytest.fixture
def documents(levels) -> None:
    ingest_text(TRAVEL, source_id="finance/travel", file_name="travel.md", title="Travel Policy", level="official")
    ingest_text(GUIDE, source_id="facilities/london", file_name="london.md", title="London Office", level="reviewed")


@pytest.mark.django_db
def test_the_lost_badge_is_answered_from_the_office_guide(hybrid, documents, staff_user) -> None:
    answer = services.ask(user=staff_user, question="I lost my badge in London, what do I do?")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    cited = cited_sources(answer)
    assert cited == {"facilities/london"}, [p.text for p in answer.paragraphs.all()]
    assert any("lost your badge" in p.text for p in answer.paragraphs.all())
    luggage = [c for c in answer.trace.candidates if "lost luggage" in (c.get("text") or c.get("snippet") or "")]
    outdone = [c for c in answer.trace.candidates if (c.get("facts") or {}).get("code") == "outdone"]
    assert outdone and all(c["source_id"] == "finance/travel" and c["reason"] == "not_answering" for c in outdone), [
        (c["chunk_id"], c["relevance"], c["reason"], c.get("detail")) for c in answer.trace.candidates
    ]
    assert not luggage or all(not c["kept"] for c in luggage)


@pytest.mark.django_db
def test_the_luggage_clause_still_answers_a_question_about_luggage(hybrid, documents, staff_user) -> None:
    answer = services.ask(user=staff_user, question="Is lost luggage covered when I travel to London?")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    assert "lost luggage" in answer.paragraphs.first().text
