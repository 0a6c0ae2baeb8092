"""The review loop on the pages: readers' feedback and flags, the "flagged" queue, reviewers' verdicts."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rag_app.models import Answer, AnswerReview, Feedback
from tests import factories
from tests.views.answers import Para, make_answer, refund_answer
from tests.views.conftest import HTMX, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def answer(staff_user, levels):
    return refund_answer(user=staff_user)


def test_a_reader_marks_an_answer_helpful_with_htmx(staff_user, answer):
    """The feedback partial comes back with a thank-you and the pressed button; the row is stored."""
    response = client_for(staff_user).post(
        reverse("answer_feedback", args=[answer.pk]), {"kind": "helpful", "comment": "Spot on"}, **HTMX
    )
    html = response.content.decode()
    assert response.status_code == 200 and 'id="feedback-' in html and "<html" not in html
    assert "your feedback was saved" in html and 'value="helpful" aria-pressed="true"' in html
    row = Feedback.objects.get()
    assert (row.kind, row.comment, row.user) == ("helpful", "Spot on", staff_user)


def test_a_flagged_citation_lands_in_the_reviewer_queue_until_reviewed(staff_user, reviewer_user, answer):
    """Flag -> queue filter "flagged" lists it -> a verdict -> gone from the filter, shown on the answer."""
    citation = answer.paragraphs.get().citations.get()
    client_for(staff_user).post(
        reverse("answer_feedback", args=[answer.pk]),
        {"kind": "citation_unsupported", "citation": citation.pk, "comment": "Says 14 days now"},
    )
    reviewer = client_for(reviewer_user)
    queue = reviewer.get(reverse("review_list"), {"flag": "flagged"}).content.decode()
    assert answer.question in queue
    prov = reviewer.get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert (
        "Says 14 days now" in prov
        and "source does not support it" in prov
        and "[1] <code" in prov
        and ">S1</code>" in prov
    )
    response = reviewer.post(
        reverse("answer_verdict", args=[answer.pk]), {"verdict": "needs_document_update", "note": "Policy changed"}
    )
    assert response.status_code == 302
    assert answer.question not in reviewer.get(reverse("review_list"), {"flag": "flagged"}).content.decode()
    page = client_for(staff_user).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    assert "needs a document update" in page and "Policy changed" in page


def test_a_source_flag_answers_in_its_own_box(staff_user, answer):
    """The flag form sits in the source list, maybe a screen above the feedback section: its own box (out of band)
    says the flag was saved and comes back closed and empty, or keeps the form open with the reason and the comment
    as typed when it was refused; the feedback section is swapped as always."""
    citation = answer.paragraphs.get().citations.get()
    url = reverse("answer_feedback", args=[answer.pk])
    client = client_for(staff_user)
    html = client.post(
        url, {"kind": "citation_unsupported", "citation": citation.pk, "comment": "Says\x07 14 days"}, **HTMX
    ).content.decode()
    box = html[html.index(f'id="flag-{citation.pk}" hx-swap-oob="true"') :]
    assert '<details class="flag-source" open>' in box and 'role="alert"' in box and ">Says\x07 14 days<" in box
    assert "control or non-text characters" in box
    assert 'value="citation_unsupported" checked' in box and not Feedback.objects.exists()
    html = client.post(
        url, {"kind": "citation_unsupported", "citation": citation.pk, "comment": "Says 14 days"}, **HTMX
    ).content.decode()
    assert 'id="feedback-' in html  # the feedback section, swapped as before
    box = html[html.index(f'id="flag-{citation.pk}" hx-swap-oob="true"') :]
    assert 'role="status"' in box and '<details class="flag-source">' in box and "></textarea>" in box
    assert Feedback.objects.get().citation_id == citation.pk


def test_a_citation_the_reader_cannot_see_cannot_be_flagged(staff_user, answer, levels):
    """A citation of another answer (or a hidden one) is refused: nothing stored."""
    factories.make_document("Secret text.", source_id="hr/x", groups=["hr"])
    other = make_answer(user=None, paragraphs=[Para("Secret text.", cites=[("S1", factories.chunks_of("hr/x")[0])])])
    foreign = other.paragraphs.get().citations.get()
    response = client_for(staff_user).post(
        reverse("answer_feedback", args=[answer.pk]), {"kind": "citation_wrong", "citation": foreign.pk}, **HTMX
    )
    assert response.status_code == 400 and "No such citation" in response.content.decode()
    assert not Feedback.objects.exists()


def test_no_evidence_offers_ask_a_reviewer(staff_user, reviewer_user, levels):
    """The no-evidence panel's action flags the question for reviewers."""
    answer = make_answer(user=staff_user, state=Answer.State.NO_EVIDENCE, reason="no_match")
    page = client_for(staff_user).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    assert 'value="ask_reviewer"' in page
    client_for(staff_user).post(reverse("answer_feedback", args=[answer.pk]), {"kind": "ask_reviewer"})
    queue = client_for(reviewer_user).get(reverse("review_list"), {"flag": "flagged"}).content.decode()
    assert answer.question in queue


def test_others_cannot_give_feedback_on_an_answer_they_cannot_see(answer, other_staff):
    """Another staff user's answer is a 404, as everywhere."""
    response = client_for(other_staff).post(reverse("answer_feedback", args=[answer.pk]), {"kind": "helpful"})
    assert response.status_code == 404 and not Feedback.objects.exists()


def test_only_reviewers_give_verdicts(staff_user, answer):
    """Staff posting a verdict get 403 and nothing is stored."""
    response = client_for(staff_user).post(reverse("answer_verdict", args=[answer.pk]), {"verdict": "ok"})
    assert response.status_code == 403 and not AnswerReview.objects.exists()


def test_a_long_comment_is_refused_with_the_limit(staff_user, answer):
    """2,001 characters: a clear error, nothing stored."""
    response = client_for(staff_user).post(
        reverse("answer_feedback", args=[answer.pk]), {"kind": "not_helpful", "comment": "x" * 2001}, **HTMX
    )
    assert response.status_code == 400 and "the limit is 2,000" in response.content.decode()
    assert not Feedback.objects.exists()


def test_the_page_presses_only_the_current_vote(staff_user, answer):
    """Each vote button says whether it is pressed, the one not chosen too (aria-pressed="false"): a screen reader
    announced the other as a plain button, so its user could not tell the two were a choice."""
    client = client_for(staff_user)
    url = reverse("answer_feedback", args=[answer.pk])
    client.post(url, {"kind": "helpful"}, **HTMX)
    html = client.post(url, {"kind": "not_helpful"}, **HTMX).content.decode()
    assert 'value="not_helpful" aria-pressed="true"' in html and 'value="helpful" aria-pressed="false"' in html


def test_provenance_marks_a_replaced_vote_and_lists_every_verdict(staff_user, reviewer_user, answer):
    client_for(staff_user).post(reverse("answer_feedback", args=[answer.pk]), {"kind": "not_helpful", "comment": "old"})
    client_for(staff_user).post(reverse("answer_feedback", args=[answer.pk]), {"kind": "helpful"})
    reviewer = client_for(reviewer_user)
    reviewer.post(reverse("answer_verdict", args=[answer.pk]), {"verdict": "wrong", "note": "first look"})
    reviewer.post(reverse("answer_verdict", args=[answer.pk]), {"verdict": "ok", "note": "second look"})
    html = reviewer.get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert "vote changed later" in html and "old" in html
    verdicts = html[html.index('class="table review-table"') :]
    verdicts = verdicts[: verdicts.index("</table>")]
    assert verdicts.index("second look") < verdicts.index("first look")


def test_a_reviewer_not_shown_the_answer_gets_no_verdict_form_and_a_403(staff_user, reviewer_user, answer, levels):
    from rag_app.models import Document

    Document.objects.get(source_id="refunds").groups.set([factories.make_group("fin")])
    reviewer = client_for(reviewer_user)
    page = reviewer.get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert 'class="verdict-form"' not in page and "You cannot review this answer" in page
    response = reviewer.post(reverse("answer_verdict", args=[answer.pk]), {"verdict": "ok", "note": "fine"})
    assert response.status_code == 403 and not AnswerReview.objects.exists()
