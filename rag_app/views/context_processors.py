"""Template context shared by every page: which roles the current user holds (for the nav)."""

from __future__ import annotations

from django.http import HttpRequest

from rag_app.access import ADMIN, REVIEWER, STAFF, has_role


def roles(request: HttpRequest) -> dict[str, dict[str, bool]]:
    user = getattr(request, "user", None)
    return {"roles": {role: has_role(user, role) for role in (STAFF, REVIEWER, ADMIN)}}
