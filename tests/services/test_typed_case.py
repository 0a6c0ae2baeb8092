"""A question reads the same however it is typed: with capitals, in small letters as chat is, or with caps lock on.

Typed in capitals throughout, every word of "HOW DO I CONNECT TO THE VPN FROM HOME?" has two capitals, the mark of a
short name ("GPL", "VPN"), and each was a name the answering passage's part had to mention: the remote-access clause
does not write "connect" (the printers' section does), so it was turned away ("does not mention CONNECT, which the
question names") and the question went unanswered. A question whose case says nothing (answerability.caseless) is
read by the other marks of a name: a digit, or a short word that is no English word. Asked through the real pipeline.
"""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer
from tests.factories import cited_sources, ingest_text

IT_GUIDE = """# IT guide

## Remote access

Staff working from home reach company systems only through the company VPN, with multi-factor authentication. The
VPN client (GlobalProtect) is installed on every company laptop.

## Printers

To print, connect to the printer from the web portal and release the job with your staff badge.

## Passwords

Passwords must be at least 14 characters long and are changed every 12 months.
"""


@pytest.fixture
def it_guide(levels) -> None:
    ingest_text(IT_GUIDE, source_id="it/guide", file_name="it-guide.md", title="IT guide", level="official")


@pytest.mark.django_db
@pytest.mark.parametrize(
    "question",
    [
        "How do I connect to the VPN from home?",
        "how do i connect to the vpn from home",
        "HOW DO I CONNECT TO THE VPN FROM HOME?",
    ],
)
def test_the_same_question_typed_three_ways_is_answered_alike(it_guide: None, staff_user: object, question: str):
    answer = services.ask(user=staff_user, question=question)
    assert answer.state == Answer.State.ANSWERED, (answer.reason, answer.trace.candidates[:3])
    assert cited_sources(answer) == {"it/guide"}
    assert "VPN" in " ".join(p.text for p in answer.paragraphs.all())


@pytest.mark.django_db
def test_a_question_in_capitals_about_what_the_guide_lacks_still_finds_nothing(it_guide: None, staff_user: object):
    answer = services.ask(user=staff_user, question="WHAT IS THE WIFI PASSWORD IN THE LONDON OFFICE?")
    assert answer.state == Answer.State.NO_EVIDENCE, [p.text for p in answer.paragraphs.all()]
