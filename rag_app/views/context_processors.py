"""Template context shared by every page: which roles the current user holds (for the nav), the input limits
the forms show as they are typed in (validation.py keeps them), and the address the header's language switch returns
to."""

from __future__ import annotations

from django.core.exceptions import DisallowedHost
from django.http import HttpRequest

from rag_app.access import ADMIN, REVIEWER, STAFF, has_role, resume_url
from rag_app.validation import MAX_COMMENT_CHARS


def roles(request: HttpRequest) -> dict[str, dict[str, bool]]:
    user = getattr(request, "user", None)
    return {"roles": {role: has_role(user, role) for role in (STAFF, REVIEWER, ADMIN)}}


def limits(request: HttpRequest) -> dict[str, dict[str, int]]:
    return {"limits": {"comment": MAX_COMMENT_CHARS}}


def page_url(request: HttpRequest) -> dict[str, str]:
    """This page's address, to come back to (the language switch): a page a refused form rendered is at the form's
    endpoint, which a GET answers with 405, so there it is where the form was sent from, a refused question's the ask
    box with the question in it (`resume_url`)."""
    try:
        return {"page_url": resume_url(request)}
    except DisallowedHost:
        return {"page_url": "/"}
