"""Reads with permissions: documents, versions, chunks, levels and answers as a given user may see them.

Roles and the document visibility rule are defined once in rag_app.permissions (staff < reviewer <
admin; a document with no access groups is visible to all staff, otherwise only to members of one
of its groups; admins see all). Every read here goes through them, so the API, the htmx views and
search filtering agree: an invisible document, chunk or answer is simply not found.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Count, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from rag_app.models import Answer, Chunk, Citation, Document, DocumentVersion, SourceLevel, Trace
from rag_app.permissions import is_reviewer, is_staff_member, visible_documents


def _storable(identifier: str) -> bool:
    """An id with a NUL byte cannot exist (PostgreSQL rejects NUL in text), so it is not found."""
    return "\x00" not in identifier


def documents_visible_to(user: Any) -> QuerySet[Document]:
    """Documents `user` may see; the rule itself lives in rag_app.permissions.visible_documents."""
    return visible_documents(user)


def chunks_visible_to(user: Any) -> QuerySet[Chunk]:
    """Chunks of every version (current or not) of the documents `user` may see."""
    return Chunk.objects.filter(version__document__in=documents_visible_to(user).values("pk"))


def _with_details(documents: QuerySet[Document]) -> QuerySet[Document]:
    current = DocumentVersion.objects.filter(document=OuterRef("pk"), is_current=True).values("version")[:1]
    return (
        documents.select_related("level").prefetch_related("groups").annotate(current_version_number=Subquery(current))
    )


def document_get(*, user: Any, source_id: str) -> Document | None:
    """The document, or None when it does not exist or `user` may not see it (the same answer: 404).

    Annotated with `current_version_number` (None for a document without versions).
    """
    if not _storable(source_id):
        return None
    return _with_details(documents_visible_to(user)).filter(source_id=source_id).first()


def document_list(*, user: Any, level: str | None = None, query: str | None = None) -> QuerySet[Document]:
    """Visible documents by source_id, optionally of one level or matching `query` in id or title."""
    documents = _with_details(documents_visible_to(user))
    if level:
        documents = documents.filter(level__slug=level)
    if query:
        documents = documents.filter(Q(source_id__icontains=query) | Q(title__icontains=query))
    return documents.order_by("source_id")


def document_versions(*, document: Document) -> QuerySet[DocumentVersion]:
    """Every version of `document`, newest first, with `chunk_count` annotated."""
    return document.versions.annotate(chunk_count=Count("chunks")).order_by("-version")


def chunk_get(*, user: Any, chunk_id: str) -> Chunk | None:
    """The chunk with its version and document, or None when unknown or not visible to `user`."""
    if not _storable(chunk_id):
        return None
    return chunks_visible_to(user).select_related("version__document__level").filter(chunk_id=chunk_id).first()


def level_list() -> QuerySet[SourceLevel]:
    return SourceLevel.objects.order_by("-weight", "slug")


def answers_visible_to(user: Any) -> QuerySet[Answer]:
    """A user's own answers; reviewers and admins see all of them."""
    if not is_staff_member(user):
        return Answer.objects.none()
    if is_reviewer(user):
        return Answer.objects.all()
    return Answer.objects.filter(user=user)


ANSWER_STATUSES = ("insufficient", "weak", "conflict")


def answer_list(
    *,
    user: Any,
    state: str | None = None,
    username: str | None = None,
    source_id: str | None = None,
    date_from: dt.date | None = None,
    date_to: dt.date | None = None,
    status: str | None = None,
) -> QuerySet[Answer]:
    """Answers `user` may see, newest first, filtered for review.

    `status` picks a review flag: "insufficient" (a paragraph without evidence), "weak" (a citation
    that barely supports its paragraph), "conflict" (sources disagree). `source_id`: answers citing
    that document. Dates are inclusive days in the current time zone.
    """
    answers = answers_visible_to(user).select_related("user")
    if state:
        answers = answers.filter(state=state)
    if status == "insufficient":
        answers = answers.filter(Q(has_insufficient=True) | Q(paragraphs__evidence_status="insufficient"))
    elif status == "weak":
        answers = answers.filter(Q(has_weak=True) | Q(paragraphs__weak=True))
    elif status == "conflict":
        answers = answers.filter(conflict=True)
    if username:
        answers = answers.filter(user__username=username)
    if source_id:
        answers = answers.filter(paragraphs__citations__chunk__version__document__source_id=source_id)
    tz = timezone.get_current_timezone()
    if date_from:
        answers = answers.filter(created_at__gte=dt.datetime.combine(date_from, dt.time.min, tz))
    if date_to:
        answers = answers.filter(created_at__lte=dt.datetime.combine(date_to, dt.time.max, tz))
    return answers.distinct().order_by("-created_at", "-id")


def cited_document_ids(answer: Answer) -> set[int]:
    """Ids of the documents an answer's citations point at (any version)."""
    return set(Citation.objects.filter(paragraph__answer=answer).values_list("chunk__version__document_id", flat=True))


def answer_get(*, user: Any, answer_id: int) -> Answer | None:
    """One answer if `user` may see it (their own; any for reviewers), else None."""
    return answers_visible_to(user).select_related("user").filter(pk=answer_id).first()


def trace_visible_to(*, user: Any, answer: Answer) -> dict[str, Any] | None:
    """The answer's trace as `user` may see it, or None when it has none.

    Candidates and marker-map entries from documents the user may not see are withheld; when any
    are, the raw context, prompt and model output (which quote them) are withheld too, and
    `withheld` says how many records were left out.
    """
    trace = Trace.objects.filter(answer=answer).first()
    if trace is None:
        return None
    candidates = [c for c in trace.candidates if isinstance(c, dict)] if isinstance(trace.candidates, list) else []
    marker_map = trace.marker_map if isinstance(trace.marker_map, dict) else {}
    chunk_ids = {c.get("chunk_id") for c in candidates} | {
        m.get("chunk_id") for m in marker_map.values() if isinstance(m, dict)
    }
    hidden = set(
        Chunk.objects.filter(chunk_id__in=[c for c in chunk_ids if isinstance(c, str)])
        .exclude(version__document__in=documents_visible_to(user).values("pk"))
        .values_list("chunk_id", flat=True)
    )
    kept_candidates = [c for c in candidates if c.get("chunk_id") not in hidden]
    kept_markers = {k: v for k, v in marker_map.items() if not (isinstance(v, dict) and v.get("chunk_id") in hidden)}
    withheld = len(candidates) - len(kept_candidates)
    redact = bool(hidden)
    return {
        "answer_id": answer.pk,
        "threshold": trace.threshold,
        "candidates": kept_candidates,
        "context": "" if redact else trace.context,
        "prompt": "" if redact else trace.prompt,
        "marker_map": kept_markers,
        "raw_output": "" if redact else trace.raw_output,
        "dropped_markers": trace.dropped_markers if isinstance(trace.dropped_markers, list) else [],
        "settings_snapshot": trace.settings_snapshot if isinstance(trace.settings_snapshot, dict) else {},
        "error": trace.error,
        "withheld": withheld,
    }
