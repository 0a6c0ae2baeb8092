"""The 403, 404, 405 and 500 pages (config/urls.py names these views as Django's error handlers; Django has none
for 405, which `MethodNotAllowedPageMiddleware` gives the pages), and the page of a form refused as stale (CSRF).

Pages: templates/403.html, 403_csrf.html, 404.html, 405.html and 500.html, with a way back (the ask page, the page
the user came from when it is on this site, logging in as someone else). Paths under /api/ answer with the
API's JSON error shape instead (rag_app/api/errors.py), so a client never gets an HTML page there.

The 500 page is rendered with no request context (no context processors, no database, no
`{% url %}` in the template): whatever failed must not fail the error page too.
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urlsplit

from django.contrib import messages
from django.core.exceptions import DisallowedHost
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template import loader
from django.templatetags.static import static
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django.views.decorators.csrf import requires_csrf_token

from rag_app.access import ADMIN, REVIEWER, STAFF, question_sent, resume_url
from rag_app.api.errors import error_body, not_found

log = logging.getLogger(__name__)

# How the pages name a role (the role groups' names are English identifiers).
ROLE_LABELS = {STAFF: _("staff"), REVIEWER: _("reviewer"), ADMIN: _("admin")}

# What a browser gets when even the 500 template cannot be rendered.
_BARE_500 = b"<!doctype html><title>Server Error (500)</title><h1>Server Error (500)</h1>"


def is_api(request: HttpRequest) -> bool:
    return request.path_info == "/api" or request.path_info.startswith("/api/")


def back_url(request: HttpRequest) -> str | None:
    """The page the user came from, when it is on this site and is not this very page."""
    referer = request.headers.get("referer", "")
    if not referer:
        return None
    try:
        host = request.get_host()
    except DisallowedHost:
        return None
    if not url_has_allowed_host_and_scheme(referer, allowed_hosts={host}, require_https=request.is_secure()):
        return None
    if urlsplit(referer).path == request.path:
        return None
    return referer


def required_role(request: HttpRequest) -> str | None:
    """The role the refused view asked for (`role_required` marks its wrapper), or None if unknown."""
    match = getattr(request, "resolver_match", None)
    role = getattr(match.func, "required_role", None) if match is not None else None
    return role if role in ROLE_LABELS else None


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return JsonResponse(
            error_body("permission_denied", "You do not have permission to perform this action."), status=403
        )
    role = required_role(request)
    context = {"role_label": ROLE_LABELS.get(role) if role else None, "back_url": back_url(request)}
    return render(request, "403.html", context, status=403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """CSRF_FAILURE_VIEW: a form sent from a page opened before its reader signed in or out (in another tab, say), or
    left open across a sign-in. Said as that, in the reader's language, with the way back to what they were doing
    (`resume_url`: a question comes back in the ask box); Django's own page blames the browser's cookies."""
    if is_api(request):
        return JsonResponse(error_body("permission_denied", f"CSRF Failed: {reason}"), status=403)
    resume = resume_url(request, keep=True)
    if request.headers.get("HX-Request") == "true":
        # The window goes back to what the reader was doing, as after an expired session, with the question in its
        # box: "reload the page" (app.js's message for a 403) would empty it.
        said = gettext("This page was opened before you signed in or out elsewhere: nothing was saved. Send it again.")
        messages.info(request, said)
        response = HttpResponse(status=403)
        response["HX-Redirect"] = resume
        return response
    context = {"resume_url": resume, "asked": bool(question_sent(request))}
    return render(request, "403_csrf.html", context, status=403)


@requires_csrf_token
def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    if is_api(request):
        return not_found(request)
    return render(request, "404.html", {"back_url": back_url(request)}, status=404)


class MethodNotAllowedPageMiddleware:
    """A page opened at an address only a form posts to (a bookmark, a link copied from the address bar) is the 405
    page, in the reader's language with a way back: Django's `require_POST` answers with an empty body, which a
    browser shows as its own error page. The Allow header is kept."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response: HttpResponse = self.get_response(request)
        if response.status_code != 405 or response.content or is_api(request):
            return response
        page = render(request, "405.html", {"back_url": back_url(request)}, status=405)
        page["Allow"] = response.get("Allow", "")
        return page


def _safe(make: Any, *args: Any) -> str | None:
    try:
        value = make(*args)
    except Exception:  # a broken URLconf or storage is no reason to fail the error page
        return None
    return None if value is None else str(value)


def _standalone_error_page(request: HttpRequest, status: int, **extra: object) -> HttpResponse:
    """500.html with no context processors, no database: only what cannot fail (a bare page if even that does)."""
    context = {
        "home": _safe(reverse, "ask") or "/",
        "stylesheet": _safe(static, "rag_app/app.css"),
        "back_url": _safe(back_url, request),
        **extra,
    }
    try:
        body = loader.get_template("500.html").render(context)
    except Exception:
        log.exception("the %s page itself failed to render", status)
        return HttpResponse(_BARE_500, content_type="text/html", status=status)
    return HttpResponse(body, status=status)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        message = gettext("Internal server error; it has been logged.")  # as rag_app.api.errors says it
        return JsonResponse(error_body("server_error", message), status=500)
    return _standalone_error_page(request, 500)


def database_unavailable_page(request: HttpRequest) -> HttpResponse:
    """503 (rag_app.database): the database cannot be reached or written; nothing the request sent was saved."""
    from rag_app import database

    if is_api(request):
        body = error_body(database.DatabaseUnavailable.code, database.message())
        response: HttpResponse = JsonResponse(body, status=503)
    else:
        response = _standalone_error_page(request, 503, unavailable=True)
    response["Retry-After"] = str(database.RETRY_AFTER_SECONDS)
    return response
