"""Template context shared by every page: which roles the current user holds (for the nav), and the input limits
the forms show as they are typed in (validation.py keeps them)."""

from __future__ import annotations

from django.http import HttpRequest

from rag_app.access import ADMIN, REVIEWER, STAFF, has_role
from rag_app.validation import MAX_COMMENT_CHARS


def roles(request: HttpRequest) -> dict[str, dict[str, bool]]:
    user = getattr(request, "user", None)
    return {"roles": {role: has_role(user, role) for role in (STAFF, REVIEWER, ADMIN)}}


def limits(request: HttpRequest) -> dict[str, dict[str, int]]:
    return {"limits": {"comment": MAX_COMMENT_CHARS}}
