"""Readers' feedback on answers and citations, and reviewers' verdicts: the review loop.

Staff mark an answer helpful or not, flag one of its citations as wrong or unsupported, or ask a
reviewer to look (an answer without evidence); each is a Feedback row. Every kind but "helpful"
puts the answer in the reviewer queue's "flagged" filter until a reviewer records a verdict
(AnswerReview: ok, wrong, needs a document update) with a note. Who may do what is checked by the
callers' roles and by `selectors.answer_get`; a citation can only be flagged by someone who sees it,
and a verdict only recorded by a reviewer who is shown the whole answer (`presentation.fully_shown_to`).

A vote (helpful / not helpful) is one per reader and answer: voting again replaces it (the same vote again
changes nothing), so the counts count readers. Flags and "ask a reviewer" are added, never replaced, and a
replaced vote that carries a comment is kept, marked replaced (`Feedback.replaced_at`): what readers wrote stays.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from rag_app import selectors
from rag_app.models import Answer, AnswerReview, Citation, Feedback
from rag_app.presentation import fully_shown_to, present_answer
from rag_app.validation import InvalidInput, clean_comment

CITATION_KINDS = {Feedback.Kind.CITATION_WRONG, Feedback.Kind.CITATION_UNSUPPORTED}


class AnswerGone(InvalidInput):
    """The answer was deleted (with its document, by a forced delete) after the caller read it: the page and the
    API answer as for an answer that does not exist (404)."""

    def __init__(self) -> None:
        super().__init__(gettext("This answer no longer exists: a document it cited was deleted."), "answer_gone")


class ReviewWithheld(InvalidInput):
    """The reviewer is not shown all of the answer (a paragraph withheld, or the trace redacted: it rests on a
    document they cannot read): a verdict would judge, and clear readers' flags on, what they cannot see. The page
    and the API answer 403."""

    def __init__(self) -> None:
        super().__init__(
            gettext(
                "You cannot review this answer: part of it rests on a document you cannot access. "
                "A reviewer who may read its sources can."
            ),
            "review_withheld",
        )


def _lock_answer(answer: Answer) -> None:
    """Inside a transaction: hold the answer's row, so a forced delete waits for this write (and then removes it
    with the answer) or has already removed the answer (AnswerGone, not a foreign-key error at commit)."""
    if not Answer.objects.select_for_update().filter(pk=answer.pk).exists():
        raise AnswerGone()


def feedback_add(
    *, user: Any, answer: Answer, kind: str, citation_id: int | None = None, comment: str | None = None
) -> Feedback:
    """Store one reader's feedback (for a vote: the reader's vote, `_vote`); InvalidInput for an unknown kind, a
    citation of another answer or one the reader cannot see, or a bad comment."""
    if kind not in Feedback.Kind.values:
        message = gettext("Unknown feedback kind %(kind)s; one of: %(kinds)s.")
        raise InvalidInput(message % {"kind": repr(kind), "kinds": ", ".join(Feedback.Kind.values)}, "invalid_kind")
    citation: Citation | None = None
    if kind in CITATION_KINDS:
        if citation_id is None:
            raise InvalidInput(gettext("Say which citation is wrong or unsupported."), "citation_required")
        # Only a citation the reader was shown: the presenter decides, as for every other surface.
        shown = {card.citation_pk for card in present_answer(answer, viewer=user).all_cards()}
        if citation_id not in shown:
            raise InvalidInput(gettext("No such citation in this answer."), "unknown_citation")
    elif citation_id is not None:
        raise InvalidInput(gettext("Only citation feedback names a citation."), "unexpected_citation")
    text = clean_comment(comment)
    reader = user if getattr(user, "is_authenticated", False) else None
    with transaction.atomic():
        _lock_answer(answer)
        if citation_id is not None:
            citation = Citation.objects.filter(pk=citation_id, paragraph__answer_id=answer.pk).first()
            if citation is None:
                raise InvalidInput(gettext("No such citation in this answer."), "unknown_citation")
        if kind in Feedback.VOTES and reader is not None:
            return _vote(answer=answer, reader=reader, kind=kind, comment=text)
        if reader is not None and (open_flag := _same_open_flag(answer, reader, kind, citation, text)) is not None:
            return open_flag
        return Feedback.objects.create(answer=answer, user=reader, kind=kind, citation=citation, comment=text)


def _same_open_flag(answer: Answer, reader: Any, kind: str, citation: Citation | None, comment: str) -> Feedback | None:
    """Inside feedback_add's transaction: the reader's flag that says exactly this and that no verdict has answered
    yet (selectors' open flags). A flag sent again (an API client retrying a request that timed out, a second tap) is
    that flag, not a second one counted in `flags`; after a verdict, or with another comment, it is a new flag."""
    same = selectors.open_flags(answer).filter(user=reader, kind=kind, citation=citation, comment=comment)
    return same.order_by("-id").first()


def _current_vote(answer: Answer, reader: Any) -> Feedback | None:
    return (
        Feedback.objects.select_for_update()
        .filter(answer=answer, user=reader, kind__in=Feedback.VOTES, replaced_at__isnull=True)
        .first()
    )


def _vote(*, answer: Answer, reader: Any, kind: str, comment: str) -> Feedback:
    """Inside feedback_add's transaction, the answer's row held: the reader's one vote. The same vote again without
    a comment keeps the vote as it is (a second click); otherwise the new vote replaces the current one, which is
    kept marked replaced when it carries a comment and deleted when it does not."""
    current = _current_vote(answer, reader)
    if current is not None:
        if current.kind == kind and not comment:
            return current
        if current.comment:
            current.replaced_at = timezone.now()
            current.save(update_fields=["replaced_at"])
        else:
            current.delete()
    try:
        with transaction.atomic():
            return Feedback.objects.create(answer=answer, user=reader, kind=kind, comment=comment)
    except IntegrityError:
        # The answer's row lock orders two requests of one reader (a double click) on PostgreSQL; should another
        # vote have been stored meanwhile all the same (one_vote_per_reader), it is the reader's vote: not a 500.
        stored = _current_vote(answer, reader)
        if stored is None:
            raise
        return stored


def answer_review(*, reviewer: Any, answer: Answer, verdict: str, note: str | None = None) -> AnswerReview:
    """Record a reviewer's verdict; the newest verdict is the answer's review status. ReviewWithheld when the
    reviewer is not shown the whole answer (its flags stay open for a reviewer who is)."""
    if verdict not in AnswerReview.Verdict.values:
        message = gettext("Unknown verdict %(verdict)s; one of: %(verdicts)s.")
        raise InvalidInput(
            message % {"verdict": repr(verdict), "verdicts": ", ".join(AnswerReview.Verdict.values)},
            "invalid_verdict",
        )
    text = clean_comment(note)
    if not fully_shown_to(answer, viewer=reviewer):
        raise ReviewWithheld()
    who = reviewer if getattr(reviewer, "is_authenticated", False) else None
    with transaction.atomic():
        _lock_answer(answer)
        newest = AnswerReview.objects.filter(answer=answer).order_by("-created_at", "-id").first()
        if (
            newest is not None
            and who is not None
            and (newest.reviewer_id, newest.verdict, newest.note) == (who.pk, verdict, text)
            and not Feedback.objects.filter(answer=answer, created_at__gt=newest.created_at).exists()
        ):
            # The same verdict sent again (a retried request, a second click) with nothing said since: it is the
            # verdict already recorded, not a second entry in the list. After new feedback it answers that, anew.
            return newest
        name = who.get_username() if who is not None else ""
        return AnswerReview.objects.create(answer=answer, reviewer=who, reviewer_name=name, verdict=verdict, note=text)
