"""Plain factory functions for tests (no factory library): small, explicit, real rows.

Documents made through `ingest_text` go through the real ingest service (parser, chunker,
indexing hooks), so search and answer tests see exactly what production ingest produces.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Iterable
from typing import TYPE_CHECKING

from django.contrib.auth.models import Group, User

from rag_app.ingest.service import IngestResult, document_ingest
from rag_app.models import Answer, Chunk, Document, DocumentVersion, SourceLevel

if TYPE_CHECKING:
    from rest_framework.test import APIClient

_seq = itertools.count(1)

# The seeded levels (migration 0002); re-created here because transactional tests flush tables.
LEVELS: dict[str, tuple[str, float]] = {
    "official": ("Official", 3.0),
    "reviewed": ("Reviewed", 2.0),
    "note": ("Note", 1.0),
}
ROLE_GROUPS = ("staff", "reviewer", "admin")


def make_level(slug: str = "official", *, label: str | None = None, weight: float | None = None) -> SourceLevel:
    """Get or create a level; the three seeded slugs get their seeded label and weight by default."""
    default_label, default_weight = LEVELS.get(slug, (slug.title(), 0.0))
    level, _ = SourceLevel.objects.get_or_create(
        slug=slug,
        defaults={"label": label or default_label, "weight": default_weight if weight is None else weight},
    )
    return level


def make_levels() -> dict[str, SourceLevel]:
    return {slug: make_level(slug) for slug in LEVELS}


def make_group(name: str) -> Group:
    return Group.objects.get_or_create(name=name)[0]


def make_user(
    username: str | None = None,
    *,
    groups: Iterable[str] = ("staff",),
    password: str = "pw-for-tests-only",
    is_staff: bool = False,
    is_superuser: bool = False,
) -> User:
    """A user in the given groups (role groups: staff, reviewer, admin). Password is `password`."""
    user = User.objects.create_user(
        username=username or f"user{next(_seq)}",
        password=password,
        is_staff=is_staff,
        is_superuser=is_superuser,
    )
    for name in groups:
        user.groups.add(make_group(name))
    return user


def make_admin(username: str = "admin", **kwargs: object) -> User:
    """An admin-role user that can also use the Django admin (is_staff + superuser)."""
    return make_user(username, groups=("staff", "admin"), is_staff=True, is_superuser=True, **kwargs)  # type: ignore[arg-type]


def ingest_text(
    text: str,
    *,
    source_id: str | None = None,
    file_name: str | None = None,
    title: str | None = None,
    url: str | None = None,
    level: str | None = "official",
    groups: Iterable[str] | None = None,
    effective_from: dt.date | None = None,
    effective_until: dt.date | None = None,
) -> IngestResult:
    """Ingest `text` through the real service. file_name decides the parser (default .txt; use
    "x.md" for Markdown). level=None leaves the document without a level."""
    source_id = source_id or f"doc-{next(_seq)}"
    if level is not None:
        make_level(level)
    for name in groups or ():  # an ingest names existing access groups (ingest.service.check_request)
        make_group(name)
    return document_ingest(
        data=text.encode("utf-8"),
        file_name=file_name or f"{source_id.rsplit('/', 1)[-1]}.txt",
        source_id=source_id,
        title=title,
        url=url,
        level=level,
        groups=list(groups) if groups is not None else None,
        effective_from=effective_from,
        effective_until=effective_until,
    )


def make_document(
    text: str = "The refund deadline is 30 days after purchase.",
    **kwargs: object,
) -> Document:
    """Ingest `text` (see ingest_text for the keyword arguments) and return the Document row."""
    result = ingest_text(text, **kwargs)  # type: ignore[arg-type]
    return Document.objects.get(pk=result.document_id)


def current_version(document: Document | str) -> DocumentVersion:
    source_id = document if isinstance(document, str) else document.source_id
    return DocumentVersion.objects.get(document__source_id=source_id, is_current=True)


def chunks_of(document: Document | str, version: int | None = None) -> list[Chunk]:
    source_id = document if isinstance(document, str) else document.source_id
    qs = Chunk.objects.filter(version__document__source_id=source_id)
    qs = qs.filter(version__version=version) if version is not None else qs.filter(version__is_current=True)
    return list(qs.order_by("index"))


def token_client(user: User) -> APIClient:
    """An API client authenticated as `user` with their token, as an integration would call the API."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def cited_sources(answer: Answer) -> set[str]:
    """The source_ids an answer's paragraphs cite."""
    return {c.chunk.version.document.source_id for p in answer.paragraphs.all() for c in p.citations.all()}
