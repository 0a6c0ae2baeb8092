"""Roles and document visibility for the web UI.

Three groups, each including the ones before it: staff (ask, see their own answers),
reviewer (every answer's provenance), admin (source levels). A superuser is an admin.
A document whose access groups are empty is visible to all staff; otherwise only to
members of one of its groups; only superusers see every document (the same rule as the
search filter in rag_app.search.permissions). Restricted documents never appear to anyone
else: not in a page, a hover card, a source panel or a trace.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import wraps
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse

from rag_app.models import Document

STAFF = "staff"
REVIEWER = "reviewer"
ADMIN = "admin"

_ROLE_GROUPS = {
    STAFF: (STAFF, REVIEWER, ADMIN),
    REVIEWER: (REVIEWER, ADMIN),
    ADMIN: (ADMIN,),
}

User = AbstractBaseUser | AnonymousUser


def _group_names(user: Any) -> set[str]:
    cache = getattr(user, "_rag_group_names", None)
    if cache is None:
        cache = set(user.groups.values_list("name", flat=True))
        user._rag_group_names = cache
    return cache


def has_role(user: Any, role: str) -> bool:
    """True when the user holds `role` or a role above it; superusers hold every role."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return False
    if getattr(user, "is_superuser", False):
        return True
    return bool(_group_names(user) & set(_ROLE_GROUPS[role]))


def is_staff_member(user: Any) -> bool:
    return has_role(user, STAFF)


def is_reviewer(user: Any) -> bool:
    return has_role(user, REVIEWER)


def is_admin(user: Any) -> bool:
    return has_role(user, ADMIN)


def visible_documents(user: Any) -> QuerySet[Document]:
    """Documents the user may see: unrestricted ones plus those shared with one of their groups."""
    if is_staff_member(user) and getattr(user, "is_superuser", False):
        return Document.objects.all()
    if not is_staff_member(user):
        return Document.objects.none()
    return Document.objects.filter(Q(groups__isnull=True) | Q(groups__in=user.groups.all())).distinct()


def visible_document_ids(user: Any, *, among: Iterable[int] | None = None) -> set[int]:
    """Ids of the documents the user may see; with `among`, only those of that set.

    Pass `among` on hot paths (an answer's cited documents): the full set grows with the corpus.
    """
    documents = visible_documents(user)
    if among is not None:
        documents = documents.filter(pk__in=list(among))
    return set(documents.values_list("pk", flat=True))


def role_required(role: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Login first (redirect), then the role (403): anonymous users are sent to log in."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @login_required
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not has_role(request.user, role):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


staff_required = role_required(STAFF)
reviewer_required = role_required(REVIEWER)
admin_required = role_required(ADMIN)
