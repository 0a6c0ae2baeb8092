"""The review loop: readers' feedback on an answer or a citation, reviewers' verdicts.

Thin views: validate, call rag_app.services.feedback, render the feedback partial (htmx) or
redirect back (plain form posts).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from rag_app.access import reviewer_required, staff_required
from rag_app.forms import FeedbackForm, ReviewForm
from rag_app.presentation import present_answer
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
        context = {"view": present_answer(answer, viewer=request.user), "feedback_error": error}
        context["feedback_saved"] = "" if error else saved
        # A refused comment comes back in its box (a source's flag form is not swapped: it keeps its own).
        kept = error and not request.POST.get("citation")
        context["feedback_comment"] = request.POST.get("comment", "") if kept else ""
        return render(request, "rag_app/_answer_body.html#_feedback", context, status=400 if error else 200)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, saved)
    return redirect(answer)


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
