"""The review loop: readers' feedback on an answer or a citation, reviewers' verdicts.

Thin views: validate, call rag_app.services.feedback, render the feedback partial (htmx) or
redirect back (plain form posts).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from rag_app.access import reviewer_required, staff_required
from rag_app.forms import FeedbackForm, ReviewForm
from rag_app.presentation import AnswerPresentation, CardView, present_answer
from rag_app.services.feedback import AnswerGone, ReviewWithheld, answer_review, feedback_add
from rag_app.validation import InvalidInput
from rag_app.views.http import HtmxHttpRequest, answer_or_404, wants_partial


@staff_required
@require_POST
def answer_feedback(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    answer = answer_or_404(request, pk)
    form = FeedbackForm(request.POST)
    error = ""
    if form.is_valid():
        data = form.cleaned_data
        try:
            feedback_add(
                user=request.user,
                answer=answer,
                kind=data["kind"],
                citation_id=data["citation"],
                comment=data["comment"],
            )
        except AnswerGone as exc:
            raise Http404(str(exc)) from None
        except InvalidInput as exc:
            error = str(exc)
    else:
        error = " ".join(str(e) for errors in form.errors.values() for e in errors)
    saved = _("Thank you: your feedback was saved and reviewers can see it.")
    if wants_partial(request):
        view = present_answer(answer, viewer=request.user)
        context = {"view": view, "feedback_error": error}
        context["feedback_saved"] = "" if error else saved
        # A refused comment comes back in its box; a source's flag form answers where it is (below).
        kept = error and not request.POST.get("citation")
        context["feedback_comment"] = request.POST.get("comment", "") if kept else ""
        response = render(request, "rag_app/_answer_body.html#_feedback", context, status=400 if error else 200)
        card = _flagged_card(view, request.POST.get("citation", ""))
        if card is not None:
            # The reader flagged a source in the source list, maybe a screen above the feedback section (a phone):
            # the flag's own box says it was saved, closed and emptied (a second tap would file it twice), or keeps
            # the form open with the reason and the comment as typed when it was refused.
            flag = {"view": view, "c": card, "oob": True, "flag_saved": "" if error else saved, "flag_error": error}
            if error:
                flag |= {"flag_comment": request.POST.get("comment", ""), "flag_kind": request.POST.get("kind", "")}
            box = render_to_string("rag_app/_answer_body.html#_flag_source", flag, request=request)
            response.content += box.encode()
        return response
    if error:
        # Without JavaScript, a refused comment comes back in its box on the answer's page, with the reason (it came
        # back empty, the text lost: a user trial), as the htmx swap above keeps it: the answer's own box, or the
        # flagged source's (its kind too).
        from rag_app.views.ask import answer_page  # the answer's page, as answer_detail renders it

        comment = request.POST.get("comment", "")
        if not request.POST.get("citation"):
            typed = {"feedback_error": error, "feedback_comment": comment}
            return answer_page(request, answer, extra=typed, status=400)
        view = present_answer(answer, viewer=request.user)
        card = _flagged_card(view, request.POST.get("citation", ""))
        if card is not None:
            card.flag_error, card.flag_kind, card.flag_comment = error, request.POST.get("kind", ""), comment
            return answer_page(request, answer, view=view, status=400)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, saved)
    return redirect(answer)


def _flagged_card(view: AnswerPresentation, citation: str) -> CardView | None:
    """The card of the source list whose flag form was posted (`citation`: its citation's pk as posted), or None."""
    if not citation:
        return None
    return next((c for s in view.sources for c in s.cards if str(c.citation_pk) == citation), None)


@reviewer_required
@require_POST
def answer_verdict(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    answer = answer_or_404(request, pk)
    form = ReviewForm(request.POST)
    if form.is_valid():
        try:
            answer_review(
                reviewer=request.user,
                answer=answer,
                verdict=form.cleaned_data["verdict"],
                note=form.cleaned_data["note"],
            )
        except AnswerGone as exc:
            raise Http404(str(exc)) from None
        except InvalidInput as exc:
            messages.error(request, str(exc))
            status = 403 if isinstance(exc, ReviewWithheld) else 400
        else:
            messages.success(request, _("Review saved."))
            return redirect("answer_provenance", answer.pk)
    else:
        messages.error(request, _("Choose a verdict."))
        status = 400
    # Refused: the page again with the verdict and the note as they were typed, not an empty form.
    from rag_app.views.review import provenance

    response = provenance(request, answer.pk, review_form=form)
    response.status_code = status
    return response
