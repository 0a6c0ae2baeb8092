"""Two office guides, one per place, say the same kinds of things: a question asking of one place is not answered by
the other place's guide (pipeline/places.py).

"上海办公室有淋浴间吗？" (the Shanghai guide lists no showers) was answered with the London guide's showers,
and "上海办公室几点开门？" with London's opening hours (workplace set, wp-022 and wp-031). Asked through the
real pipeline (lexical, and with the embedder: `hybrid`).
"""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer
from tests.factories import ingest_text

LONDON = """# London Office Guide

## Getting in

The office is open from 7:30 to 20:00 on weekdays. At weekends the building is closed to staff.

## Facilities

Showers, changing rooms and drying lockers are on the lower ground floor. Bicycle racks are beside the loading bay.
"""

SHANGHAI = """# 上海办公室指南

## 出入

办公室工作日8:00至20:00开放，周末需提前一天向前台申请。

## 设施

B1层设有自行车停放区，免费使用。茶水间位于18层东侧。
"""


@pytest.fixture
def guides(levels) -> None:
    ingest_text(LONDON, source_id="facilities/london", file_name="london.md", title="London Office Guide")
    ingest_text(SHANGHAI, source_id="facilities/shanghai", file_name="shanghai.md", title="上海办公室指南")


@pytest.mark.django_db
@pytest.mark.parametrize("question", ["Are there showers at the Shanghai office?", "上海办公室周末开门吗"])
def test_the_london_guide_does_not_answer_of_the_shanghai_office(guides, staff_user, question) -> None:
    answer = services.ask(user=staff_user, question=question)
    cited = {c.chunk.version.document.source_id for p in answer.paragraphs.all() for c in p.citations.all()}
    assert "facilities/london" not in cited, [p.text for p in answer.paragraphs.all()]
    other = [c for c in answer.trace.candidates if (c.get("facts") or {}).get("code") == "other_place"]
    assert other and all(c["source_id"] == "facilities/london" for c in other), answer.trace.candidates
    # Before the rule both were answered from the London guide: its showers, its weekday hours.


@pytest.mark.django_db
def test_the_london_guide_still_answers_of_london(guides, staff_user) -> None:
    answer = services.ask(user=staff_user, question="Are there showers at the London office?")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    assert "lower ground floor" in " ".join(p.text for p in answer.paragraphs.all())


@pytest.mark.django_db
def test_with_the_embedder_too(hybrid, guides, staff_user) -> None:
    """With vectors the London showers qualified for the English question too; the Shanghai hours answer of Shanghai."""
    answer = services.ask(user=staff_user, question="Are there showers at the Shanghai office?")
    assert answer.state == Answer.State.NO_EVIDENCE, [p.text for p in answer.paragraphs.all()]
    assert any((c.get("facts") or {}).get("code") == "other_place" for c in answer.trace.candidates)
    answer = services.ask(user=staff_user, question="上海办公室周末开门吗")
    assert answer.state == Answer.State.ANSWERED, answer.trace.candidates
    assert "周末需提前一天向前台申请" in " ".join(p.text for p in answer.paragraphs.all())
