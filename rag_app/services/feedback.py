"""Readers' feedback on answers and citations, and reviewers' verdicts: the review loop.

Staff mark an answer helpful or not, flag one of its citations as wrong or unsupported, or ask a
reviewer to look (an answer without evidence); each is a Feedback row. Every kind but "helpful"
puts the answer in the reviewer queue's "flagged" filter until a reviewer records a verdict
(AnswerReview: ok, wrong, needs a document update) with a note. Who may do what is checked by the
callers' roles and by `selectors.answer_get`; a citation can only be flagged by someone who sees it.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext

from rag_app.models import Answer, AnswerReview, Citation, Feedback
from rag_app.presentation import present_answer
from rag_app.validation import InvalidInput, clean_comment

CITATION_KINDS = {Feedback.Kind.CITATION_WRONG, Feedback.Kind.CITATION_UNSUPPORTED}


class AnswerGone(InvalidInput):
    """The answer was deleted (with its document, by a forced delete) after the caller read it: the page and the
    API answer as for an answer that does not exist (404)."""

    def __init__(self) -> None:
        super().__init__(gettext("This answer no longer exists: a document it cited was deleted."), "answer_gone")


def _lock_answer(answer: Answer) -> None:
    """Inside a transaction: hold the answer's row, so a forced delete waits for this write (and then removes it
    with the answer) or has already removed the answer (AnswerGone, not a foreign-key error at commit)."""
    if not Answer.objects.select_for_update().filter(pk=answer.pk).exists():
        raise AnswerGone()


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
    elif citation_id is not None:
        raise InvalidInput("Only citation feedback names a citation.", "unexpected_citation")
    text = clean_comment(comment)
    with transaction.atomic():
        _lock_answer(answer)
        if citation_id is not None:
            citation = Citation.objects.filter(pk=citation_id, paragraph__answer_id=answer.pk).first()
            if citation is None:
                raise InvalidInput("No such citation in this answer.", "unknown_citation")
        return Feedback.objects.create(
            answer=answer,
            user=user if getattr(user, "is_authenticated", False) else None,
            kind=kind,
            citation=citation,
            comment=text,
        )


def answer_review(*, reviewer: Any, answer: Answer, verdict: str, note: str | None = None) -> AnswerReview:
    """Record a reviewer's verdict; the newest verdict is the answer's review status."""
    if verdict not in AnswerReview.Verdict.values:
        raise InvalidInput(
            f"Unknown verdict {verdict!r}; one of: {', '.join(AnswerReview.Verdict.values)}.", "invalid_verdict"
        )
    text = clean_comment(note)
    with transaction.atomic():
        _lock_answer(answer)
        return AnswerReview.objects.create(
            answer=answer,
            reviewer=reviewer if getattr(reviewer, "is_authenticated", False) else None,
            verdict=verdict,
            note=text,
        )
