"""services.feedback: one vote per reader, flags kept, verdicts only from a reviewer shown the whole answer."""

from __future__ import annotations

import pytest
from django.utils import translation

from rag_app import selectors
from rag_app.models import AnswerReview, Feedback
from rag_app.presentation import fully_shown_to, present_answer
from rag_app.services.feedback import ReviewWithheld, answer_review, feedback_add
from rag_app.validation import InvalidInput
from tests import factories
from tests.views.answers import Para, make_answer, refund_answer

pytestmark = pytest.mark.django_db


def _counts(answer, viewer):
    return present_answer(answer, viewer=viewer).feedback


def _flagged(reviewer) -> list[int]:
    return list(selectors.answer_list(user=reviewer, status="flagged").values_list("pk", flat=True))


def test_the_same_vote_twice_is_one_vote(levels, staff_user):
    answer = refund_answer(user=staff_user)
    first = feedback_add(user=staff_user, answer=answer, kind="helpful")
    again = feedback_add(user=staff_user, answer=answer, kind="helpful")
    assert again.pk == first.pk and Feedback.objects.count() == 1
    shown = _counts(answer, staff_user)
    assert (shown.helpful, shown.not_helpful, shown.flags, shown.mine) == (1, 0, 0, frozenset({"helpful"}))


def test_a_changed_vote_replaces_the_earlier_one_and_counts_readers(levels, staff_user):
    answer = refund_answer(user=staff_user)
    other = factories.make_user("staff2", groups=("staff",))
    feedback_add(user=staff_user, answer=answer, kind="helpful")
    feedback_add(user=other, answer=answer, kind="helpful")
    feedback_add(user=staff_user, answer=answer, kind="not_helpful")
    shown = _counts(answer, staff_user)
    assert (shown.helpful, shown.not_helpful, shown.flags, shown.mine) == (1, 1, 1, frozenset({"not_helpful"}))
    # A vote without a comment says nothing more than its count: the replaced one is gone.
    assert Feedback.objects.filter(user=staff_user).count() == 1


def test_a_replaced_vote_keeps_its_comment_and_flags_no_more(levels, staff_user, reviewer_user):
    answer = refund_answer(user=staff_user)
    feedback_add(user=staff_user, answer=answer, kind="not_helpful", comment="30 is wrong")
    assert _flagged(reviewer_user) == [answer.pk]
    feedback_add(user=staff_user, answer=answer, kind="helpful")
    old = Feedback.objects.get(comment="30 is wrong")
    assert old.kind == "not_helpful" and old.replaced_at is not None
    shown = _counts(answer, staff_user)
    assert (shown.helpful, shown.not_helpful, shown.flags, shown.mine) == (1, 0, 0, frozenset({"helpful"}))
    assert _flagged(reviewer_user) == []  # the reader took the flag back
    assert old in selectors.feedback_for_review(answer=answer)  # the reviewer still reads what was written


def test_the_same_vote_with_a_new_comment_keeps_both_comments(levels, staff_user):
    answer = refund_answer(user=staff_user)
    feedback_add(user=staff_user, answer=answer, kind="not_helpful", comment="30 is wrong")
    feedback_add(user=staff_user, answer=answer, kind="not_helpful", comment="it is 14 since May")
    rows = Feedback.objects.order_by("pk")
    assert [(f.comment, f.replaced_at is None) for f in rows] == [("30 is wrong", False), ("it is 14 since May", True)]
    assert _counts(answer, staff_user).not_helpful == 1


def test_a_vote_changed_to_not_helpful_after_a_verdict_flags_the_answer_again(levels, staff_user, reviewer_user):
    answer = refund_answer(user=staff_user)
    feedback_add(user=staff_user, answer=answer, kind="not_helpful")
    answer_review(reviewer=reviewer_user, answer=answer, verdict="ok")
    assert _flagged(reviewer_user) == []
    feedback_add(user=staff_user, answer=answer, kind="helpful")
    feedback_add(user=staff_user, answer=answer, kind="not_helpful")
    assert _flagged(reviewer_user) == [answer.pk]


def test_flags_are_added_never_replaced(levels, staff_user):
    answer = refund_answer(user=staff_user)
    citation = answer.paragraphs.get().citations.get()
    for comment in ("other policy", "says 14 days"):
        feedback_add(user=staff_user, answer=answer, kind="citation_wrong", citation_id=citation.pk, comment=comment)
    feedback_add(user=staff_user, answer=answer, kind="not_helpful")
    assert Feedback.objects.count() == 3 and _counts(answer, staff_user).flags == 3


def test_a_reviewer_who_cannot_read_a_rejected_candidate_cannot_record_a_verdict(levels, staff_user, reviewer_user):
    """No paragraph is withheld, but the trace is redacted for them (a candidate of a hidden document): a verdict
    would clear flags on what they cannot see. One who reads it (a superuser) can."""
    factories.make_document("Refunds are paid within 30 days.", source_id="refunds")
    factories.make_document("Refunds: 47 days for staff.", source_id="hr/refunds", groups=["hr"])
    chunk = factories.chunks_of("refunds")[0]
    answer = make_answer(
        user=staff_user,
        paragraphs=[Para("Refunds are paid within 30 days.", cites=[("S1", chunk)])],
        trace={
            "marker_map": {"S1": {"chunk_id": chunk.chunk_id, "source_id": "refunds"}},
            "candidates": [
                {"chunk_id": chunk.chunk_id, "source_id": "refunds", "kept": True},
                {"chunk_id": "hr/refunds:v1:0", "source_id": "hr/refunds", "kept": False},
                {"chunk_id": "x", "kept": False},  # names no document: withholds nothing of one
            ],
        },
    )
    assert present_answer(answer, viewer=reviewer_user).withheld_paragraphs == 0
    assert not fully_shown_to(answer, viewer=reviewer_user)
    with pytest.raises(ReviewWithheld) as refused:
        answer_review(reviewer=reviewer_user, answer=answer, verdict="ok")
    assert refused.value.code == "review_withheld" and not AnswerReview.objects.exists()
    answer_review(reviewer=factories.make_admin("root"), answer=answer, verdict="ok")
    assert AnswerReview.objects.count() == 1


@pytest.mark.parametrize(
    ("comment", "code", "zh"),
    [
        ("长" * 2001, "comment_too_long", "评论长 2,001 个字符，上限为 2,000 个字符。"),
        ("bell\x07", "invalid_comment", "评论包含控制字符或非文本字符。"),
        ("rtl \u202e", "invalid_comment", "评论包含双向覆盖字符。"),
    ],
)
def test_a_refused_comment_is_said_in_the_readers_language_with_a_stable_code(levels, staff_user, comment, code, zh):
    answer = refund_answer(user=staff_user)
    with translation.override("zh-hans"), pytest.raises(InvalidInput) as refused:
        feedback_add(user=staff_user, answer=answer, kind="not_helpful", comment=comment)
    assert (refused.value.code, str(refused.value)) == (code, zh)


def test_citation_errors_are_translated(levels, staff_user):
    answer = refund_answer(user=staff_user)
    with translation.override("zh-hans"), pytest.raises(InvalidInput) as refused:
        feedback_add(user=staff_user, answer=answer, kind="citation_wrong", citation_id=999)
    assert (refused.value.code, str(refused.value)) == ("unknown_citation", "此回答中没有这条引用。")
