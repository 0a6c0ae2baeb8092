"""Who may retrieve what, as a SQL condition applied inside the search query (before top-k).

A document with no groups is open to every staff user; a document with groups is open to members
of at least one of them; superusers see everything. `user=None` is the system (eval, management
commands): treated as staff with no groups. An anonymous (not logged-in) user sees nothing.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model

from rag_app.models import Document

DENY_ALL = "1 = 0"


def access_condition(user: Any, *, document_alias: str = "d") -> tuple[str, list[Any]]:
    """(SQL boolean over the documents table aliased `document_alias`, params)."""
    if user is not None:
        if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", True):
            return DENY_ALL, []
        if user.is_superuser:
            return "1 = 1", []
    doc_groups = Document.groups.through._meta.db_table
    open_to_all = f"NOT EXISTS (SELECT 1 FROM {doc_groups} dg WHERE dg.document_id = {document_alias}.id)"  # noqa: S608
    if user is None:
        return open_to_all, []
    user_groups = get_user_model().groups.through._meta.db_table
    member = (
        f"EXISTS (SELECT 1 FROM {doc_groups} dg2 JOIN {user_groups} ug ON ug.group_id = dg2.group_id"  # noqa: S608
        f" WHERE dg2.document_id = {document_alias}.id AND ug.user_id = %s)"
    )
    return f"({open_to_all} OR {member})", [user.pk]
