"""Document metadata, access groups and life cycle: what an admin does to a document they can see.

Ingest (new documents and versions) is rag_app.ingest.service.document_ingest; level changes go
through rag_app.services.levels so each one is audited. Retire, restore and delete are here, and
each leaves a DocumentEvent (who, when, the source_id) that outlives the document.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from rag_app import access
from rag_app.models import Answer, Chunk, Document, DocumentEvent, SourceLevel
from rag_app.search.indexing import unindex_version
from rag_app.services.embedding import index_new_title
from rag_app.services.levels import document_retitled, document_set_groups, document_set_level

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
        old_title = locked.title
        for name in fields:
            setattr(locked, name, changes[name])
        if fields:
            locked.save(update_fields=[*fields, "updated_at"])
        if "title" in fields:
            document_retitled(user=user, document=locked, old_title=old_title)
            index_new_title(user=user, document_id=locked.pk, source_id=locked.source_id)
        if groups is not None:  # who opened or closed a document, and when: audited like a level change
            document_set_groups(user=user, document=locked, groups=groups)
        if level is not _UNSET:
            document_set_level(user=user, document=locked, level=level)
    return locked


# --- retire, restore, delete ----------------------------------------------------------------


class DocumentCited(Exception):
    """A deletion refused because answers cite the document (retire it, or delete with force)."""

    code = "document_cited"

    def __init__(self, source_id: str, answer_ids: Iterable[int]) -> None:
        self.source_id = source_id
        self.answer_ids = tuple(answer_ids)
        n = len(self.answer_ids)
        super().__init__(
            f"{n} answer{'s' if n != 1 else ''} cite{'s' if n == 1 else ''} document {source_id!r}; it was not"
            " deleted. Retire it instead (it leaves retrieval, the answers keep their sources), or force the"
            " deletion, which also deletes those answers."
        )


@dataclass(frozen=True)
class DocumentDeletion:
    """What a deletion removed; `event` is the audit row that outlives the document."""

    source_id: str
    versions: int
    chunks: int
    answers_deleted: tuple[int, ...]
    event: DocumentEvent


def _check_may_manage(user: Any, document: Document) -> None:
    """Admins act on the documents they may read; `user=None` is the operator (management commands)."""
    if user is None:
        return
    if not access.is_admin(user) or not access.visible_documents(user).filter(pk=document.pk).exists():
        raise PermissionDenied


def _record(user: Any, document: Document, action: str, **detail: Any) -> DocumentEvent:
    return DocumentEvent.objects.create(
        **access.author(user),
        document=document,
        source_id=document.source_id,
        action=action,
        detail=detail,
    )


def _set_retired(*, user: Any, document: Document, retired: bool) -> Document:
    _check_may_manage(user, document)
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        if (locked.retired_at is not None) == retired:  # already so: nothing changes, nothing recorded
            document.retired_at = locked.retired_at
            return document
        locked.retired_at = timezone.now() if retired else None
        locked.save(update_fields=["retired_at", "updated_at"])
        _record(user, locked, DocumentEvent.Action.RETIRED if retired else DocumentEvent.Action.RESTORED)
    document.retired_at = locked.retired_at
    document.updated_at = locked.updated_at
    return document


def document_retire(*, user: Any, document: Document) -> Document:
    """Retire `document`: from the commit on, search never returns it (rag_app.search.scope), so no new
    answer cites it; its versions, chunks and the answers that cite them stay readable, labelled retired.

    Retiring a retired document changes nothing and records nothing. A new version ingested while
    retired stays retired until restored.
    """
    return _set_retired(user=user, document=document, retired=True)


def document_restore(*, user: Any, document: Document) -> Document:
    """Bring a retired document back into retrieval (its index rows never left). No-op when active."""
    return _set_retired(user=user, document=document, retired=False)


def document_delete(*, user: Any, document: Document, force: bool = False) -> DocumentDeletion:
    """Delete `document` for good: every version, chunk and index row. Refused with DocumentCited while
    answers cite any of its chunks, unless `force`.

    A forced deletion deletes the citing answers themselves (paragraphs, citations, trace, feedback,
    reviews), not only their citations, because:
    - an answer's paragraphs are the document's words (extractive answers quote it verbatim) and its
      trace keeps the context and prompt the model saw: removing only the Citation rows would leave
      the deleted text in the database with nothing saying where it came from;
    - every answer paragraph is tied to the chunk it rests on (Citation.chunk is PROTECT for that
      reason); an answer stripped of its citations would show claims as if unsupported, disagree with
      its stored flags and trace, and be a state no real answer can reach.
    Retiring is the way to keep such answers readable. The audit event records who deleted the
    document, when, its source_id and the ids of the answers deleted with it; follow-up answers of a
    deleted answer stay (their `parent` becomes empty).

    Answers whose model saw the document without citing it keep their trace; once the document is
    gone its source_id is unknown, which rag_app.presentation treats as readable only by superusers,
    so those traces are redacted (and such paragraphs withheld) for everyone else.
    """
    _check_may_manage(user, document)
    for attempt in range(3):
        try:
            return _delete_once(user, document, force=force)
        except DocumentCited:
            # Forced, it is refused only when an answer citing the document was stored while it was deleted (the
            # list of citing answers was read before): read the list again.
            if not force or attempt == 2:
                raise
    raise AssertionError("unreachable")


def _delete_once(user: Any, document: Document, *, force: bool) -> DocumentDeletion:
    """One transaction of document_delete."""
    with transaction.atomic():
        locked = Document.objects.select_for_update().get(pk=document.pk)
        # The chunks too, before reading who cites them: an answer being stored holds the ones it cites
        # (services.answers._cited_chunks) and is read here once it has committed.
        chunk_rows = Chunk.objects.select_for_update(of=("self",)).filter(version__document=locked)
        list(chunk_rows.values_list("pk", flat=True))
        citing = Answer.objects.filter(paragraphs__citations__chunk__version__document=locked)
        answer_ids = tuple(sorted(set(citing.values_list("pk", flat=True))))
        if answer_ids and not force:
            raise DocumentCited(locked.source_id, answer_ids)
        versions = list(locked.versions.all())
        chunks = Chunk.objects.filter(version__document=locked)
        chunk_count = chunks.count()
        for version in versions:
            unindex_version(version)  # removes only what is indexed (the current version's rows)
        if answer_ids:
            # The answers' rows first: feedback or a verdict being written on one (services.feedback holds it)
            # commits before the delete collects what points at the answer, and goes with it.
            list(Answer.objects.select_for_update().filter(pk__in=answer_ids).values_list("pk", flat=True))
            Answer.objects.filter(pk__in=answer_ids).delete()
        try:
            chunks.delete()
        except ProtectedError:  # an answer citing it was stored meanwhile: nothing is deleted
            raise DocumentCited(locked.source_id, citing.values_list("pk", flat=True).distinct()) from None
        event = _record(
            user,
            locked,
            DocumentEvent.Action.DELETED,
            versions=len(versions),
            chunks=chunk_count,
            forced=bool(force),
            answers_deleted=list(answer_ids),
            title=locked.title,
        )
        locked.delete()  # the event's document becomes NULL; its source_id stays
    event.refresh_from_db()
    return DocumentDeletion(
        source_id=locked.source_id,
        versions=len(versions),
        chunks=chunk_count,
        answers_deleted=answer_ids,
        event=event,
    )
