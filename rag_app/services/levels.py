"""Source-level services: every change to a document's level, access groups or title, or to a level itself, is
audited.

Levels express trust and come from ingestion and admins, never from a model (rule 9). The admin,
the in-app levels page, the API and the ingest service all change levels through these functions,
so each change leaves one LevelChange row (who, when, from, to). A document's rows keep its source_id, so they
outlive its deletion.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser, Group
from django.db import transaction
from django.utils import timezone

from rag_app.access import author
from rag_app.models import Document, LevelChange, SourceLevel

UserLike = AbstractBaseUser | AnonymousUser | None

# A level's weight ranks qualified sources; past this it is a typo, not a decision (API and forms).
MAX_LEVEL_WEIGHT = 1e6


def _slug(level: SourceLevel | None) -> str:
    return level.slug if level is not None else ""


def _document_change_row(
    user: UserLike, document: Document, field: str, old: str, new: str, **extra: Any
) -> LevelChange:
    """The one way a document's change is recorded (unsaved: one row, or many in a bulk change): who, when, which
    document (its source_id kept, so the row outlives it), from, to."""
    return LevelChange(
        **author(user),
        document=document,
        source_id=document.source_id,
        field=field,
        old_value=old[:500],
        new_value=new[:500],
        **extra,
    )


def _document_change(user: UserLike, document: Document, field: str, old: str, new: str, **extra: Any) -> LevelChange:
    row = _document_change_row(user, document, field, old, new, **extra)
    row.save()
    return row


def document_retitled(*, user: UserLike, document: Document, old_title: str) -> LevelChange:
    """Record that `document` (saved with its new title) was renamed from `old_title`: from the API, the Django admin
    or an upload that gives another title (services.documents.document_update, ingest.service)."""
    return _document_change(user, document, "document.title", old_title, document.title)


def document_set_level(*, user: UserLike, document: Document, level: SourceLevel | None) -> LevelChange | None:
    """Set one document's level (None = no level, ranks lowest). Returns the audit row, or None if unchanged."""
    with transaction.atomic():
        locked = Document.objects.select_for_update(of=("self",)).select_related("level").get(pk=document.pk)
        old = locked.level
        if (old.pk if old else None) == (level.pk if level else None):
            document.level = level
            return None
        locked.level = level
        locked.save(update_fields=["level", "updated_at"])
        document.level = level
        return _document_change(user, locked, "document.level", _slug(old), _slug(level), level=level)


def document_set_groups(*, user: UserLike, document: Document, groups: Iterable[Group]) -> LevelChange | None:
    """Who may read one document (no groups = all staff): the one place it changes, from the documents page, the
    API and an upload alike, audited as `document.groups`. Returns the audit row, or None if unchanged."""
    groups = list(groups)
    with transaction.atomic():
        locked = Document.objects.select_for_update(of=("self",)).get(pk=document.pk)
        old = sorted(locked.groups.values_list("name", flat=True))
        new = sorted({group.name for group in groups})
        if old == new:
            return None
        locked.groups.set(groups)
        return _document_change(user, locked, "document.groups", ",".join(old), ",".join(new))


def documents_set_level(*, user: UserLike, documents: Iterable[Document], level: SourceLevel | None) -> int:
    """Bulk form of document_set_level, in one transaction. Returns how many documents changed.

    A bulk change may name every document (1,500 of them): the rows are locked together (in primary-key order, so
    two bulk changes cannot deadlock), changed by one UPDATE and recorded by one batched INSERT, one audit row per
    changed document as document_set_level writes it, not five statements per document.
    """
    chosen = list(documents)
    target = level.pk if level is not None else None
    with transaction.atomic():
        locked = (
            Document.objects.select_for_update(of=("self",))
            .select_related("level")
            .filter(pk__in=[document.pk for document in chosen])
            .order_by("pk")
        )
        changed = [document for document in locked if document.level_id != target]
        if changed:
            Document.objects.filter(pk__in=[document.pk for document in changed]).update(
                level=level, updated_at=timezone.now()
            )
            LevelChange.objects.bulk_create(
                _document_change_row(user, document, "document.level", _slug(document.level), _slug(level), level=level)
                for document in changed
            )
    for document in chosen:
        document.level = level
    return len(changed)


def level_create(*, user: UserLike, slug: str, label: str, weight: float, description: str = "") -> SourceLevel:
    """Create a level and record it ("level.created")."""
    with transaction.atomic():
        level = SourceLevel.objects.create(slug=slug, label=label, weight=weight, description=description)
        LevelChange.objects.create(**author(user), level=level, field="level.created", new_value=f"{slug} ({weight:g})")
    return level


def level_update(
    *,
    user: UserLike,
    level: SourceLevel,
    slug: str | None = None,
    label: str | None = None,
    weight: float | None = None,
    description: str | None = None,
) -> list[LevelChange]:
    """Rename / reweight a level; one audit row per changed field ("level.slug", "level.label", "level.weight")."""
    changes: list[LevelChange] = []
    with transaction.atomic():
        locked = SourceLevel.objects.select_for_update().get(pk=level.pk)
        fields: list[str] = []
        if slug is not None and slug != locked.slug:
            changes.append(
                LevelChange(**author(user), level=locked, field="level.slug", old_value=locked.slug, new_value=slug)
            )
            locked.slug = slug
            fields.append("slug")
        if label is not None and label != locked.label:
            changes.append(
                LevelChange(**author(user), level=locked, field="level.label", old_value=locked.label, new_value=label)
            )
            locked.label = label
            fields.append("label")
        if weight is not None and float(weight) != locked.weight:
            changes.append(
                LevelChange(
                    **author(user),
                    level=locked,
                    field="level.weight",
                    old_value=f"{locked.weight:g}",
                    new_value=f"{float(weight):g}",
                )
            )
            locked.weight = float(weight)
            fields.append("weight")
        if description is not None and description != locked.description:
            locked.description = description
            fields.append("description")
        if fields:
            locked.save(update_fields=fields)
        for change in changes:
            change.save()
    level.slug, level.label, level.weight = locked.slug, locked.label, locked.weight
    level.description = locked.description
    return changes
