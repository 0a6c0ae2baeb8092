"""Readers' feedback on answers and citations, and reviewers' verdicts: the review loop.

Staff mark an answer helpful or not, flag one of its citations as wrong or unsupported, or ask a
reviewer to look (an answer without evidence); each is a Feedback row. Every kind but "helpful"
puts the answer in the reviewer queue's "flagged" filter until a reviewer records a verdict
(AnswerReview: ok, wrong, needs a document update) with a note. Who may do what is checked by the
callers' roles and by `selectors.answer_get`; a citation can only be flagged by someone who sees it.
"""

from __future__ import annotations

from typing import Any

from rag_app.models import Answer, AnswerReview, Citation, Feedback
from rag_app.presentation import present_answer
from rag_app.validation import InvalidInput, clean_comment

CITATION_KINDS = {Feedback.Kind.CITATION_WRONG, Feedback.Kind.CITATION_UNSUPPORTED}


def feedback_add(
    *, user: Any, answer: Answer, kind: str, citation_id: int | None = None, comment: str | None = None
) -> Feedback:
    """Store one reader's feedback; InvalidInput for an unknown kind, a citation of another answer or
    one the reader cannot see, or a bad comment."""
    if kind not in Feedback.Kind.values:
        raise InvalidInput(
            f"Unknown feedback kind {kind!r}; one of: {', '.join(Feedback.Kind.values)}.", "invalid_kind"
        )
    citation: Citation | None = None
    if kind in CITATION_KINDS:
        if citation_id is None:
            raise InvalidInput("Say which citation is wrong or unsupported.", "citation_required")
        # Only a citation the reader was shown: the presenter decides, as for every other surface.
        shown = {card.citation_pk for card in present_answer(answer, viewer=user).all_cards()}
        if citation_id not in shown:
            raise InvalidInput("No such citation in this answer.", "unknown_citation")
        citation = Citation.objects.get(pk=citation_id)
    elif citation_id is not None:
        raise InvalidInput("Only citation feedback names a citation.", "unexpected_citation")
    return Feedback.objects.create(
        answer=answer,
        user=user if getattr(user, "is_authenticated", False) else None,
        kind=kind,
        citation=citation,
        comment=clean_comment(comment),
    )


def answer_review(*, reviewer: Any, answer: Answer, verdict: str, note: str | None = None) -> AnswerReview:
    """Record a reviewer's verdict; the newest verdict is the answer's review status."""
    if verdict not in AnswerReview.Verdict.values:
        raise InvalidInput(
            f"Unknown verdict {verdict!r}; one of: {', '.join(AnswerReview.Verdict.values)}.", "invalid_verdict"
        )
    return AnswerReview.objects.create(
        answer=answer,
        reviewer=reviewer if getattr(reviewer, "is_authenticated", False) else None,
        verdict=verdict,
        note=clean_comment(note),
    )
