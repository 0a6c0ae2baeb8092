"""Document metadata and access groups: what an admin edits on a document they can see.

Ingest (new documents and versions) is rag_app.ingest.service.document_ingest; level changes go
through rag_app.services.levels so each one is audited.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.models import Group
from django.db import transaction

from rag_app.models import Document, SourceLevel
from rag_app.services.levels import document_set_level

_UNSET: Any = object()


def document_update(
    *,
    user: Any,
    document: Document,
    title: str | None = None,
    url: str | None = None,
    level: SourceLevel | None = _UNSET,
    groups: Iterable[Group] | None = None,
) -> Document:
    """Change what is given (None / left out = unchanged; `level=None` = no level; `groups=[]` = open to all)."""
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        changes = {name: value for name, value in (("title", title), ("url", url)) if value is not None}
        fields = [name for name, value in changes.items() if getattr(locked, name) != value]
        for name in fields:
            setattr(locked, name, changes[name])
        if fields:
            locked.save(update_fields=[*fields, "updated_at"])
        if groups is not None:
            locked.groups.set(list(groups))
        if level is not _UNSET:
            document_set_level(user=user, document=locked, level=level)
    return locked
