"""The request type the views see: Django's, plus django-htmx's `request.htmx`."""

from __future__ import annotations

from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def wants_partial(request: HtmxHttpRequest) -> bool:
    """An htmx swap wants the partial; an htmx history restore (back button) needs the whole page."""
    return bool(request.htmx) and not request.htmx.history_restore_request
