"""Stored answers built row by row, so page tests do not depend on the ask pipeline's choices."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import User

from rag_app.models import Answer, AnswerParagraph, Chunk, Citation, Trace


@dataclass
class Para:
    text: str
    cites: Sequence[tuple[str, Chunk]] = ()  # (marker, chunk)
    insufficient: bool = False
    weak: bool = False
    support: float | None = None
    snippets: dict[str, str] = field(default_factory=dict)


def make_answer(
    *,
    user: User | None,
    question: str = "How long is the refund deadline?",
    paragraphs: Sequence[Para] = (),
    state: str = Answer.State.ANSWERED,
    mode: str = Answer.Mode.EXTRACTIVE,
    conflict: bool = False,
    reason: str = "",
    trace: dict[str, object] | None = None,
) -> Answer:
    answer = Answer.objects.create(
        user=user,
        question=question,
        state=state,
        mode=mode,
        reason=reason,
        conflict=conflict,
        has_insufficient=any(p.insufficient for p in paragraphs),
        has_weak=any(p.weak for p in paragraphs),
        timings={"retrieval_ms": 12.5, "generation_ms": 3.1, "total_ms": 16.0},
    )
    for order, para in enumerate(paragraphs):
        row = AnswerParagraph.objects.create(
            answer=answer,
            order=order,
            text=para.text,
            evidence_status=AnswerParagraph.Status.INSUFFICIENT if para.insufficient else AnswerParagraph.Status.LINKED,
            support=para.support,
            weak=para.weak,
        )
        for i, (marker, chunk) in enumerate(para.cites):
            level = chunk.version.document.level
            Citation.objects.create(
                paragraph=row,
                order=i,
                marker=marker,
                chunk=chunk,
                snippet=para.snippets.get(marker, chunk.text),
                score=0.8125,
                level_slug=level.slug if level else "",  # as services.answers stores the level then
                level_label=level.label if level else "",
                level_weight=level.weight if level else None,
            )
    if trace is not None:
        Trace.objects.create(answer=answer, **trace)
    return answer


def refund_answer(*, user: User | None) -> Answer:
    """A stored answer with one paragraph citing one chunk of a small open document ("refunds")."""
    from tests import factories

    factories.make_document("Refunds are paid within 30 days.", source_id="refunds")
    chunk = factories.chunks_of("refunds")[0]
    return make_answer(user=user, paragraphs=[Para("Refunds are paid within 30 days.", cites=[("S1", chunk)])])
