"""Last year's text beside this year's, one value changed (issue 13, item 3): the two copies score a little
apart, and when the threshold falls between them the weaker copy qualifies with the stronger one, so the
answer shows both sides as a conflict instead of quoting one copy as if it were the only text. The trace
says why the weaker copy was kept."""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer
from rag_app.pipeline.tiering import share
from tests.factories import cited_sources, ingest_text

CLAUSE = (
    "You may not impose a license fee, royalty, or other charge for exercise of rights granted under this "
    "License, and you may not initiate litigation alleging that any patent claim is infringed."
)
# The edit changes the clause's length a little, and so its relevance.
EDITED = CLAUSE.replace("You may not impose a license fee,", "You may impose a license fee of any kind,")
OTHERS = (
    "Each time you convey a covered work, the recipient automatically receives a license from the original licensors.",
    "You are not responsible for enforcing compliance by third parties with this License.",
    "The Program may be distributed in object code form provided the source is offered as well.",
)
QUESTION = "Can I charge a royalty for people exercising their rights under this License?"


def _candidate(answer: Answer, source_id: str) -> dict:
    return next(c for c in answer.trace.candidates if c["source_id"] == source_id)


@pytest.mark.django_db
def test_the_weaker_copy_qualifies_with_the_stronger_and_both_sides_are_shown(levels, staff_user, settings) -> None:
    ingest_text(CLAUSE, source_id="gpl3/2024", title="License terms (2024)", level="official")
    ingest_text(EDITED, source_id="gpl3/2023", title="License terms (2023)", level="official")
    for i, text in enumerate(OTHERS):
        ingest_text(text, source_id=f"other/{i}", title=f"Clause {i}", level="official")
    settings.RAG = settings.RAG | {"MIN_RELEVANCE": 0.01}
    first = services.ask(user=staff_user, question=QUESTION)
    strong, weak = sorted(
        (_candidate(first, "gpl3/2024")["relevance"], _candidate(first, "gpl3/2023")["relevance"]), reverse=True
    )
    assert strong > weak  # the edit moved the relevance
    # The bar an English passage must meet for an English question is a share of the threshold
    # (tiering.threshold_for): between the two.
    bar = (strong + weak) / 2
    settings.RAG = settings.RAG | {"MIN_RELEVANCE": bar / share("en", "en")}
    answer = services.ask(user=staff_user, question=QUESTION)
    assert answer.state == Answer.State.ANSWERED, answer.reason
    weaker = min(("gpl3/2024", "gpl3/2023"), key=lambda s: _candidate(answer, s)["relevance"])
    row = _candidate(answer, weaker)
    assert row["kept"] and "which it copies but for one stretch" in row["detail"]
    assert answer.conflict
    cited = cited_sources(answer)
    assert cited == {"gpl3/2024", "gpl3/2023"}
