"""The request type the views see: Django's, plus django-htmx's `request.htmx`."""

from __future__ import annotations

from django.http import Http404, HttpRequest
from django_htmx.middleware import HtmxDetails

from rag_app import selectors
from rag_app.models import Answer


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def wants_partial(request: HtmxHttpRequest) -> bool:
    """An htmx swap wants the partial; an htmx history restore (back button) needs the whole page."""
    return bool(request.htmx) and not request.htmx.history_restore_request


def answer_or_404(request: HttpRequest, pk: int) -> Answer:
    """The answer if this user may see it (their own; any for reviewers), else 404 (never 403: an
    answer one may not see does not exist for them)."""
    answer = selectors.answer_get(user=request.user, answer_id=pk)
    if answer is None:
        raise Http404
    return answer
