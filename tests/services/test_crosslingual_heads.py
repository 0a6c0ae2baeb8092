"""A Chinese word whose every dictionary sense is an explanation is read by that explanation's head word.

CC-CEDICT glosses 出差 (to travel on business) only as "to go on an official or business trip", too long to be read
as words (MAX_GLOSS_WORDS), so "出差回来报销多久内要交" (back from a business trip, how long do I have to file the
claim?) was read without it, as "return" and "reimbursement", and was answered from the English travel policy's
per diem and advances clauses, not its claims clause ("within 30 days after the return date"). Now such a word is
read by the last content word of its first action sense ("trip"; pipeline/crosslingual.py, `_parse`;
docs/EVALUATION.md, session 52). Asked through the real pipeline with the bundled embedder, of the workplace set's
real travel policy."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_app import services
from rag_app.models import Answer
from rag_app.pipeline.crosslingual import translate, untranslated
from tests.factories import cited_sources, ingest_text

WORKPLACE = Path(__file__).resolve().parents[2] / "eval-data" / "workplace" / "corpora" / "workplace"
QUESTION = "出差回来报销多久内要交"


@pytest.fixture
def travel_policy(levels: object) -> None:
    text = (WORKPLACE / "travel-policy.md").read_text(encoding="utf-8")
    ingest_text(text, source_id="finance/travel-policy", file_name="travel-policy.md", title="Travel Policy")


def test_the_question_is_read_with_the_trip() -> None:
    groups = {g.source: g.terms for g in translate(QUESTION)}
    assert groups["出差"] == ("trip",)
    assert "出差" not in untranslated(QUESTION)


@pytest.mark.django_db
def test_the_claims_deadline_is_answered_from_the_english_travel_policy(
    hybrid: None, travel_policy: None, staff_user: object
) -> None:
    answer = services.ask(user=staff_user, question=QUESTION)
    assert answer.state == Answer.State.ANSWERED, (answer.reason, answer.trace.candidates[:3])
    assert cited_sources(answer) == {"finance/travel-policy"}
    assert "within 30 days after the return date" in " ".join(p.text for p in answer.paragraphs.all())
