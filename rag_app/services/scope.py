"""The scope a question is asked within (levels, access groups, documents), checked and remembered.

A scope only narrows what the asker may read (rag_app.access still decides that, inside search).
Every facet names things that exist and that the asker may use: a level slug, a group they are a
member of (superusers: any group), a document they may read; anything else is refused with the
same message as an unknown name, so a scope cannot probe for hidden documents.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import Group
from django.utils.translation import gettext

from rag_app import access
from rag_app.models import AskPreference, SourceLevel
from rag_app.pipeline.records import Scope
from rag_app.validation import InvalidInput, canonical_source_id, source_id_problem

MAX_SCOPE_ITEMS = 200
FACETS = ("levels", "groups", "documents")


def _names(data: Mapping[str, Any], facet: str) -> tuple[str, ...]:
    values = data.get(facet) or []
    if isinstance(values, str) or not isinstance(values, list | tuple) or not all(isinstance(v, str) for v in values):
        raise InvalidInput(gettext("scope.%(facet)s must be a list of names.") % {"facet": facet}, "invalid_scope")
    if len(values) > MAX_SCOPE_ITEMS:
        message = gettext("scope.%(facet)s names %(n)d items; the limit is %(limit)d.")
        raise InvalidInput(message % {"facet": facet, "n": len(values), "limit": MAX_SCOPE_ITEMS}, "invalid_scope")
    return tuple(sorted({v.strip() for v in values if v.strip()}))


def _unknown(facet: str, names: set[str]) -> InvalidInput:
    """Names the asker may not use, refused in the reader's language (a hidden one as an unknown one)."""
    messages = {
        "levels": gettext("Unknown levels in the scope: %(names)s."),
        "groups": gettext("Unknown groups in the scope: %(names)s."),
        "documents": gettext("Unknown documents in the scope: %(names)s."),
    }
    listed = ", ".join(repr(n) for n in sorted(names)[:5])
    return InvalidInput(messages[facet] % {"names": listed}, "invalid_scope")


def usable_groups(user: Any) -> list[str]:
    """Access groups a user may scope a question to: their own (all for a superuser), role groups aside."""
    groups = access.access_groups()
    if not getattr(user, "is_superuser", False):
        groups = groups.filter(user=user) if getattr(user, "is_authenticated", False) else groups.none()
    return sorted(groups.values_list("name", flat=True))


def scope_clean(*, user: Any, data: Mapping[str, Any] | None) -> Scope:
    """The scope `data` asks for, or InvalidInput naming what is wrong."""
    if not data:
        return Scope()
    if not isinstance(data, Mapping) or set(data) - set(FACETS):
        message = gettext("The scope is an object with the keys %(keys)s.")
        raise InvalidInput(message % {"keys": ", ".join(FACETS)}, "invalid_scope")
    documents = tuple(sorted({canonical_source_id(d) for d in _names(data, "documents")}))
    scope = Scope(levels=_names(data, "levels"), groups=_names(data, "groups"), documents=documents)
    missing = set(scope.levels) - set(SourceLevel.objects.filter(slug__in=scope.levels).values_list("slug", flat=True))
    if missing:
        raise _unknown("levels", missing)
    missing = set(scope.groups) - set(usable_groups(user))
    if missing:
        raise _unknown("groups", missing)
    if scope.groups:
        ids = dict(Group.objects.filter(name__in=scope.groups).values_list("name", "pk"))
        scope = dataclasses.replace(scope, group_ids=tuple(ids[name] for name in scope.groups))
    invalid = {d for d in scope.documents if source_id_problem(d) is not None}
    missing = invalid | (set(scope.documents) - access.visible_source_ids(user, among=set(scope.documents) - invalid))
    if missing:
        raise _unknown("documents", missing)
    return scope


def current_scope(scope: Scope) -> Scope:
    """A stored scope (Scope.stored) with its groups named as they are called now: a group renamed since it was
    stored is found by its id (Answer.scope, the trace and the remembered scope keep both), so an answer asked within
    "hr" shows, replays and is remembered within the same group once it is "people". A group deleted since, or one of a
    scope stored before ids were kept, keeps its stored name: a stored scope is never widened by losing a facet."""
    if not scope.group_ids:
        return scope
    now = dict(Group.objects.filter(pk__in=scope.group_ids).values_list("pk", "name"))
    pairs = sorted((now.get(pk, name), pk) for name, pk in zip(scope.groups, scope.group_ids, strict=True))
    return dataclasses.replace(scope, groups=tuple(n for n, _ in pairs), group_ids=tuple(pk for _, pk in pairs))


def scope_remember(*, user: Any, scope: Scope) -> None:
    """Offer this scope again on the user's next question."""
    if getattr(user, "is_authenticated", False):
        AskPreference.objects.update_or_create(user=user, defaults={"scope": scope.stored_form()})


def scope_remembered(*, user: Any) -> Scope:
    """The user's last scope, re-checked (a level may be gone, a document no longer readable, a group renamed)."""
    if not getattr(user, "is_authenticated", False):
        return Scope()
    stored = AskPreference.objects.filter(user=user).values_list("scope", flat=True).first()
    if not isinstance(stored, dict):
        return Scope()
    try:
        return scope_clean(user=user, data=current_scope(Scope.stored(stored)).as_dict())
    except InvalidInput:
        return Scope()
