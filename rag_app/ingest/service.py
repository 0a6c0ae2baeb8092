"""Ingest: bytes -> parsed text -> chunks -> Document / DocumentVersion / Chunk rows -> indexes.

Idempotent (same content = "unchanged", no new version) and atomic (a file either lands whole,
with its index rows, or not at all). Concurrent ingests of one source serialise on the document
row (SELECT ... FOR UPDATE on PostgreSQL; SQLite transactions are IMMEDIATE, so writers queue).
Parsing, chunking, tokenizing and embedding happen before the transaction opens.

Callers that run ingest as a job (rag_app/services/ingest_jobs.py, run by a Celery worker) pass
`progress` (chunks embedded so far, of how many) and `on_write`, which runs inside the write
transaction, so whatever it records commits together with the version, or not at all.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePath
from typing import Any, ParamSpec, TypeVar, cast

import numpy as np
from django.conf import settings
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from rag_app import access
from rag_app.locks import key_share
from rag_app.models import Chunk, Document, DocumentVersion, LevelChange, SourceLevel
from rag_app.pipeline.chunking import ChunkSpan, chunk_text
from rag_app.pipeline.textproc import detect_language
from rag_app.search import indexing
from rag_app.search.dense import EmbedderMismatch, EmbedderUnavailable, EmbeddingError
from rag_app.services.levels import document_retitled, document_set_groups, document_set_level
from rag_app.validation import (
    MAX_TITLE_CHARS,
    InvalidSourceId,
    canonical_source_id,
    file_name_problem,
    shown_name,
    storable,
    title_problem,
    url_problem,
    validate_source_id,
)

from .parsers import SUPPORTED_EXTENSIONS, FileTooLarge, ParsedDocument, ParseError, parse

__all__ = [
    "DocumentNotFound",
    "IngestError",
    "IngestResult",
    "IngestStatus",
    "IngestUnavailable",
    "ParseError",
    "check_request",
    "document_ingest",
]

log = logging.getLogger(__name__)
P = ParamSpec("P")
R = TypeVar("R")


class IngestStatus(StrEnum):
    NEW = "new"
    UPDATED = "updated"
    UNCHANGED = "unchanged"


class IngestError(Exception):
    """Bad input to ingest (unknown level, bad dates, unreadable file): message is user-facing.

    `field` names the request's field at fault (url, effective_until, ...) where one is: the API's error body lists
    it under `fields`, as it does for every other invalid field."""

    def __init__(
        self,
        message: str,
        code: str = "invalid",
        *,
        field: str | None = None,
        template: str = "",
        params: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.field = field
        # Where given, the sentence (gettext_noop) and values `message` was made from: a job keeps them, so a refusal
        # at worker time reads in the page's language (services.ingest_jobs.JobFailure).
        self.template = template
        self.params = dict(params or {})


@dataclass(frozen=True)
class IngestResult:
    source_id: str
    version: int
    chunks: int
    status: IngestStatus
    document_id: int
    version_id: int
    # The groups asked for were not applied: the document's access changed after the file was queued.
    groups_kept: bool = False
    # The document is retired: the version is stored, and no answer uses it until an admin restores the document.
    retired: bool = False

    def line(self) -> str:
        line = f"{self.source_id} v{self.version} {self.chunks} chunks {self.status}"
        return f"{line} (the document is retired: restore it to have it answer)" if self.retired else line

    def as_dict(self) -> dict[str, object]:
        return {
            "source_id": self.source_id,
            "version": self.version,
            "chunks": self.chunks,
            "status": str(self.status),
            **({"groups_kept": True} if self.groups_kept else {}),
            **({"retired": True} if self.retired else {}),
        }


class IngestUnavailable(IngestError):
    """A server the ingest needs (the embedding server) did not answer, after its own retries: nothing was stored,
    and the same file may well go in a moment later. An ingest job's task tries it again with backoff (rag_app.tasks,
    RAG_INGEST_RETRIES) before the job fails; the CLI and `?wait=1` report it as the file's failure at once."""


def _embedding_failures_are_ingest_errors(func: Callable[P, R]) -> Callable[P, R]:
    """The embedder's failures as IngestErrors with their codes (`embedder_mismatch`: the stored
    vectors are another model's, run `rag_embed --rebuild`; `embedder_unavailable`: the embedding
    server did not answer, an IngestUnavailable, worth retrying; `embedding_failed`): every entry point
    already reports an IngestError as the file's own failure, and nothing was stored."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except EmbedderUnavailable as exc:
            raise IngestUnavailable(str(exc), exc.code) from exc
        except (EmbedderMismatch, EmbeddingError) as exc:
            raise IngestError(str(exc), exc.code) from exc

    return wrapper


class DocumentNotFound(IngestError):
    """The source_id names a document the uploader may not see: refused exactly like an unknown one (the API's 404 for
    any document it will not show says the same, in the reader's language)."""

    def __init__(self, source_id: str) -> None:
        super().__init__(_("No document %(source_id)s.") % {"source_id": repr(source_id)}, "not_found")


_UNSET = object()
UNCHANGED: Any = _UNSET  # a `level` argument left out: the document keeps its level


def check_upload_size(size: int) -> None:
    """FileTooLarge past RAG_MAX_UPLOAD_BYTES. Every entry point (web, API, CLI) checks here, before
    it reads the file into memory; document_ingest checks again on the bytes."""
    max_bytes = cast(int, settings.RAG["MAX_UPLOAD_BYTES"])
    if size > max_bytes:
        raise FileTooLarge(
            gettext_noop("file is %(size)s bytes; the limit is %(limit)s bytes (RAG_MAX_UPLOAD_BYTES)"),
            size=f"{size:,}",
            limit=f"{max_bytes:,}",
        )


def _check_reach(uploader: Any, source_id: str) -> None:
    """An uploader may add a new document or a version of one they can see, never overwrite a hidden one.

    `uploader` None is the operator at the command line, who may write any document.
    """
    if uploader is None:
        return
    exists = Document.objects.filter(source_id=source_id)
    if exists.exists() and not exists.filter(access.document_q(uploader)).exists():
        raise DocumentNotFound(source_id)


Progress = Callable[[int, int], None]
OnWrite = Callable[["IngestResult"], None]

# Chunks embedded per step between two progress reports (each step is one or more embedder batches).
PROGRESS_STEP = 64


def check_request(
    *,
    source_id: str,
    uploader: Any,
    url: str | None = None,
    level: str | object | None = _UNSET,
    effective_from: dt.date | None = None,
    effective_until: dt.date | None = None,
    title: str | None = None,
    file_name: str | None = None,
    groups: Iterable[str] | None = None,
) -> SourceLevel | object | None:
    """The checks that need no file: the file's name, source_id rules, the uploader's reach, title, url, dates,
    level, access groups (access.check_access_groups: each an existing group, none a role group; the API's field
    refuses them the same way).

    Run by document_ingest and, before anything is queued, by the ingest-job service, so a job that
    would be refused is refused at upload. Returns the level (see resolve_level).
    """
    if file_name is not None and (problem := file_name_problem(file_name)) is not None:
        raise IngestError(problem, "invalid_file_name", field="file")
    try:
        validate_source_id(source_id)
    except InvalidSourceId as exc:
        raise IngestError(str(exc), exc.code, field="source_id") from None
    _check_reach(uploader, source_id)
    if title is not None and (problem := title_problem(title)) is not None:
        raise IngestError(problem, "invalid_title", field="title")
    if url and (problem := url_problem(url)) is not None:
        raise IngestError(problem, "invalid_url", field="url")
    if effective_from and effective_until and effective_until < effective_from:
        raise IngestError(_("effective_until is before effective_from"), "invalid_dates", field="effective_until")
    if groups:
        try:
            access.check_access_groups(groups)
        except access.NotAccessGroups as exc:
            raise IngestError(str(exc), exc.code, field="groups", template=exc.template, params=exc.params) from None
    return resolve_level(level)


@_embedding_failures_are_ingest_errors
def document_ingest(
    *,
    data: bytes,
    file_name: str,
    source_id: str,
    title: str | None = None,
    url: str | None = None,
    level: str | object | None = _UNSET,
    groups: Iterable[str] | None = None,
    effective_from: dt.date | None = None,
    effective_until: dt.date | None = None,
    uploader: Any = None,
    progress: Progress | None = None,
    on_write: OnWrite | None = None,
    replacing: int | None = None,
    groups_as_of: dt.datetime | None = None,
) -> IngestResult:
    """Ingest one file's bytes as `source_id` for `uploader` (None: the operator, any document).

    Raises ParseError / IngestError on bad input, DocumentNotFound when `source_id` names a
    document the uploader may not see. Metadata arguments left as None (the level: left out)
    keep what the document already has; `groups=[]` explicitly opens it to all staff. A new
    document gets the parser's title when none is given (never an invented one).

    `progress(done, total)` hears how many chunks are embedded; `on_write(result)` runs inside the
    write transaction (also for an unchanged file), before it commits. `replacing`: the pk of the version
    this one is made from (a re-parse); if another version became current meanwhile, nothing is written
    (IngestError `conflict`), so an upload that committed in between is never undone. A re-parse makes a new
    version even of the same text: it is asked for where the current chunker cuts the text otherwise.
    `groups_as_of`: when the `groups` were chosen (a queued job's time); if the document's access was changed after
    that, it is left as it is (never widened by a stale choice) and the result says so.
    """
    source_id = canonical_source_id(source_id)  # the form it is stored in: chunk ids are made from it
    level_obj = check_request(
        source_id=source_id,
        uploader=uploader,
        file_name=file_name if replacing is None else None,  # a re-parse reads a stored, already checked name
        title=title,
        url=url,
        level=level,
        effective_from=effective_from,
        effective_until=effective_until,
        groups=groups,
    )
    check_upload_size(len(data))
    parsed = parse(data, file_name)
    sha = hashlib.sha256(parsed.text.encode("utf-8")).hexdigest()
    # Same content as the current version: skip chunking, tokenizing and embedding (re-runs are
    # fast). _write re-checks under the row lock and asks for the chunks if a racer changed it.
    prepared: list[dict[str, object]] | None = None
    embeddings: object = None
    # The title the chunks are indexed with: the one given, else the document's, else the parser's.
    known_title = Document.objects.filter(source_id=source_id).values_list("title", flat=True).first()
    index_title = title if title is not None else known_title if known_title is not None else parsed.title or ""
    if not DocumentVersion.objects.filter(document__source_id=source_id, is_current=True, sha256=sha).exists():
        prepared, embeddings = _prepare(parsed, index_title, progress)

    for attempt in range(4):
        try:
            return _write(
                source_id=source_id,
                file_name=file_name,
                data_size=len(data),
                parsed=parsed,
                sha=sha,
                prepared=prepared,
                embeddings=embeddings,
                title=title,
                url=url,
                level=level_obj,
                groups=groups,
                groups_as_of=groups_as_of,
                effective_from=effective_from,
                effective_until=effective_until,
                uploader=uploader,
                on_write=on_write,
                replacing=replacing,
            )
        except _NeedChunks:
            prepared, embeddings = _prepare(parsed, index_title, progress)
        except (IntegrityError, _DocumentGone):
            # Lost a race creating the document or version n+1 (the winner committed), or the document was deleted
            # while this waited for it: look again.
            if attempt == 3:
                raise
            log.info("ingest race on %s, retrying", source_id)
    raise IngestError(f"could not ingest {source_id}: concurrent writers kept conflicting", "conflict")


@dataclass(frozen=True)
class Reparse:
    """What `reparse_plain_text` did: a new version per document whose text moved, and the documents it
    could not re-parse, each with the parser's or the ingest's message (nothing of theirs changed)."""

    results: list[IngestResult]
    failures: list[tuple[str, str]]


def reparse_plain_text(*, progress: Callable[[int, int], None] | None = None) -> Reparse:
    """Bring every current plain-text version up to the current text parser and chunker: its stored text is parsed
    again (the plain-text parser is idempotent on its own output) and, where the result differs (hard
    lines an older parser kept) or its chunks would be cut or titled otherwise (a heading an older parser missed, a
    chunk an older chunker ended with "…the following conditions:"), ingested as the document's next version by the
    operator, with the version's file name and effective dates. Old versions keep their chunks, so every
    stored answer still cites exactly what it cited. Other formats are not re-parsed: their stored text
    is the parser's output, not the file, and only re-ingesting the file brings them up to date. Retired
    documents are left as they are; a text that cannot be parsed or ingested again is reported and left."""
    versions = list(
        DocumentVersion.objects.filter(is_current=True, mime="text/plain", document__retired_at__isnull=True)
        .order_by("pk")
        .values_list("pk", "document__source_id", "file_name")
    )
    out = Reparse(results=[], failures=[])
    for done, (pk, source_id, file_name) in enumerate(versions, 1):
        name = file_name or f"{source_id.rsplit('/', 1)[-1]}.txt"
        if PurePath(name).suffix.lower() not in _PLAIN_TEXT:
            name = f"{name}.txt"  # stored as plain text under another name (a pasted text, "README")
        version = DocumentVersion.objects.get(pk=pk)
        data = version.text.encode("utf-8")
        try:
            parsed = parse(data, name)
            if parsed.text != version.text or _chunk_spans(parsed) != _stored_spans(version):
                out.results.append(
                    document_ingest(
                        data=data,
                        file_name=name,
                        source_id=source_id,
                        effective_from=version.effective_from,
                        effective_until=version.effective_until,
                        replacing=version.pk,
                    )
                )
        except (ParseError, IngestError) as exc:
            out.failures.append((source_id, str(exc)))
        if progress is not None:
            progress(done, len(versions))
    return out


def _chunk(parsed: ParsedDocument) -> list[ChunkSpan]:
    """A parsed text cut into chunks at the configured sizes (every ingest, and what a re-parse compares with)."""
    return chunk_text(
        parsed.text,
        parsed.blocks,
        target=cast(int, settings.RAG["CHUNK_TARGET"]),
        max_chars=cast(int, settings.RAG["CHUNK_MAX"]),
    )


def _chunk_spans(parsed: ParsedDocument) -> list[tuple[int, int, str]]:
    """Where the current chunker cuts a parsed text, and under which section, as a version stores its chunks."""
    return [(span.start, span.end, _clip(span.section or "", 1000)) for span in _chunk(parsed)]


def _stored_spans(version: DocumentVersion) -> list[tuple[int, int, str]]:
    return list(version.chunks.order_by("index").values_list("start", "end", "section"))


_PLAIN_TEXT = frozenset(ext for ext, mime in SUPPORTED_EXTENSIONS.items() if mime == "text/plain")


def _clip(text: str, limit: int) -> str:
    """Fit a column; a clipped section path ends with an ellipsis so it never reads as complete."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _prepare(
    parsed: ParsedDocument, title: str, progress: Progress | None = None
) -> tuple[list[dict[str, object]], object]:
    """Chunks and their embeddings (text with its context), computed before any transaction opens."""
    prepared = _prepare_chunks(parsed, title)
    texts = [indexing.passage_text(str(c.pop("context")), str(c["text"])) for c in prepared]
    return prepared, _embed(texts, progress)


def _embed(texts: list[str], progress: Progress | None) -> object:
    """indexing.embed_for_ingest, a step at a time when someone follows the progress."""
    if progress is None:
        return indexing.embed_for_ingest(texts)
    progress(0, len(texts))
    parts: list[np.ndarray] = []
    for start in range(0, len(texts), PROGRESS_STEP):
        part = indexing.embed_for_ingest(texts[start : start + PROGRESS_STEP])
        if part is None:  # no embedder: nothing to wait for
            break
        parts.append(np.asarray(part))
        progress(min(start + PROGRESS_STEP, len(texts)), len(texts))
    progress(len(texts), len(texts))
    return np.concatenate(parts) if parts else None


class _NeedChunks(Exception):
    """The content changed between the unlocked pre-check and the locked write."""


class _DocumentGone(Exception):
    """The document was deleted between get_or_create and its row lock."""


def _access_changed_since(document: Document, moment: dt.datetime) -> bool:
    """Someone set the document's access after `moment`: it was created since (by another upload, with its own
    groups) or its groups were changed since (audited as `document.groups`)."""
    if document.created_at > moment:
        return True
    return LevelChange.objects.filter(document=document, field="document.groups", created_at__gt=moment).exists()


def _hold_level(level: SourceLevel) -> None:
    """Inside the write's transaction: the level read before the file was parsed still exists, and is held until
    commit (locks.key_share: other ingests of the level go on, a delete waits). Deleted meanwhile: IngestError
    `unknown_level`, not a foreign-key error at commit."""
    if not key_share(SourceLevel, [level.pk]):
        raise IngestError(f"the level {level.slug!r} was deleted while the file was read", "unknown_level")


def resolve_level(level: str | object | None) -> SourceLevel | object | None:
    """The level a slug names (None: no level; left out: unchanged), or IngestError naming the known ones."""
    if level is _UNSET or level is None:
        return _UNSET if level is _UNSET else None
    assert isinstance(level, str)
    try:
        return SourceLevel.objects.get(slug=level)
    except SourceLevel.DoesNotExist:
        known = ", ".join(SourceLevel.objects.values_list("slug", flat=True))
        raise IngestError(f"unknown level {level!r}; known levels: {known}", "unknown_level", field="level") from None


def _prepare_chunks(parsed: ParsedDocument, title: str) -> list[dict[str, object]]:
    """Chunks with their search tokens: the chunk's text plus its context (title and section path)."""
    out: list[dict[str, object]] = []
    for span in _chunk(parsed):
        # Indexed with the title and section path as they are stored (cut to their columns), so that re-indexing
        # (indexing.reindex_current) and the staleness check (indexing.stale_index) read the same tokens from them.
        section = _clip(span.section or "", 1000)  # as _chunk_spans reads it
        context = indexing.chunk_context(title[:MAX_TITLE_CHARS], section)
        tokens = indexing.search_tokens(span.text, context)
        out.append(
            {
                "index": span.index,
                "text": span.text,
                "section": section,
                "page": span.page,
                "start": span.start,
                "end": span.end,
                "search_text": " ".join(tokens),
                "token_count": len(tokens),
                "context": context,
            }
        )
    if not out:
        raise ParseError(gettext_noop("the file has no text to index"))
    return out


def _write(
    *,
    source_id: str,
    file_name: str,
    data_size: int,
    parsed: ParsedDocument,
    sha: str,
    prepared: list[dict[str, object]] | None,
    embeddings: object,
    title: str | None,
    url: str | None,
    level: SourceLevel | object | None,
    groups: Iterable[str] | None,
    effective_from: dt.date | None,
    groups_as_of: dt.datetime | None = None,
    effective_until: dt.date | None,
    uploader: Any,
    on_write: OnWrite | None,
    replacing: int | None = None,
) -> IngestResult:
    with transaction.atomic():
        if isinstance(level, SourceLevel):
            _hold_level(level)
        doc, created = Document.objects.get_or_create(
            source_id=source_id,
            defaults={
                # A given title was checked (check_request); the one the file carries is cut to the column.
                "title": title if title is not None else (parsed.title or "")[:MAX_TITLE_CHARS],
                "url": url or "",
                "level": None if level is _UNSET else cast(SourceLevel | None, level),
            },
        )
        locked = Document.objects.select_for_update().filter(pk=doc.pk).first()
        if locked is None:  # deleted while this waited for its row lock: look again (a new document)
            raise _DocumentGone
        doc = locked
        retitled = False
        if not created:
            _check_reach(uploader, source_id)  # again under the row lock: groups may have changed
            changed: list[str] = []
            old_title = doc.title
            if title is not None and doc.title != title:
                doc.title, changed = title, [*changed, "title"]
            if url is not None and doc.url != url:
                doc.url, changed = url, [*changed, "url"]
            if changed:
                doc.save(update_fields=[*changed, "updated_at"])
            retitled = "title" in changed
            if retitled:  # audited like an admin's rename: the uploader, or nobody for the command line
                document_retitled(user=uploader, document=doc, old_title=old_title)
            if level is not _UNSET:
                # Audited like an admin's change: the uploader, or nobody for the command line.
                document_set_level(user=uploader, document=doc, level=level)  # type: ignore[arg-type]
        groups_kept = False
        if groups is not None:
            named = [Group.objects.get_or_create(name=name)[0] for name in groups]
            groups_kept = (
                not created
                and groups_as_of is not None
                and _access_changed_since(doc, groups_as_of)
                and sorted(g.name for g in named) != sorted(doc.groups.values_list("name", flat=True))
            )
            if created:  # a new document's access, like its level, is where its history starts
                doc.groups.set(named)
            elif not groups_kept:  # audited like an admin's change: the uploader, or nobody for the command line
                document_set_groups(user=uploader, document=doc, groups=named)

        current = doc.versions.filter(is_current=True).first()
        if replacing is not None and (current is None or current.pk != replacing):
            raise IngestError(f"{source_id} changed while it was re-parsed; it was left as it is", "conflict")
        if retitled:
            from rag_app.services.embedding import index_new_title  # it imports this module, through the jobs

            # The same file: its chunks' vectors are made again with the title once this commits; a new version's
            # chunks are embedded with it below.
            unchanged = current is not None and current.sha256 == sha
            index_new_title(user=uploader, document_id=doc.pk, source_id=doc.source_id, reembed=unchanged)
        if current is not None and current.sha256 == sha and replacing is None:
            # A date sent alone changes that date only: the other keeps what the version has, and the pair is
            # checked again as a whole (check_request saw only what was sent).
            dates = (
                current.effective_from if effective_from is None else effective_from,
                current.effective_until if effective_until is None else effective_until,
            )
            if dates != (current.effective_from, current.effective_until):
                if dates[0] and dates[1] and dates[1] < dates[0]:
                    raise IngestError(
                        _("effective_until is before effective_from"), "invalid_dates", field="effective_until"
                    )
                current.effective_from, current.effective_until = dates
                current.save(update_fields=["effective_from", "effective_until"])
            # A predecessor in force until this one's date follows it; one that had left comes back (its date fixed
            # after it was in force at once), and its vectors are made again once this commits.
            if indexing.settle_versions(doc.pk) and not retitled:  # a new title queued the document's re-embedding
                from rag_app.services.embedding import reembed_after_commit  # it imports this module, through the jobs

                reembed_after_commit(user=uploader, source_id=doc.source_id)
            result = IngestResult(
                source_id,
                current.version,
                current.chunks.count(),
                IngestStatus.UNCHANGED,
                doc.pk,
                current.pk,
                groups_kept,
                retired=doc.retired_at is not None,
            )
            if on_write is not None:
                on_write(result)
            return result

        if prepared is None:
            raise _NeedChunks
        last = doc.versions.order_by("-version").values_list("version", flat=True).first() or 0
        if current is not None:
            DocumentVersion.objects.filter(pk=current.pk).update(is_current=False)
        version = DocumentVersion.objects.create(
            document=doc,
            version=last + 1,
            sha256=sha,
            text=parsed.text,
            is_current=True,
            file_name=(shown_name(storable(file_name)) or "")[:500],
            mime=parsed.mime,
            size_bytes=data_size,
            language=detect_language(parsed.text[:5000]),
            effective_from=effective_from,
            effective_until=effective_until,
        )
        chunks = Chunk.objects.bulk_create(
            [
                Chunk(chunk_id=f"{source_id}:v{version.version}:{c['index']}", version=version, **c)  # type: ignore[arg-type]
                for c in prepared
            ]
        )
        if any(c.pk is None for c in chunks):  # backends without RETURNING ids
            chunks = list(version.chunks.order_by("index"))
        indexing.index_chunks(version, chunks, embeddings)
        # The previous version stays searched while this one is scheduled for later, and no other does.
        indexing.settle_versions(doc.pk)
        status = IngestStatus.NEW if current is None else IngestStatus.UPDATED
        log.info("ingested %s v%s (%s chunks, %s)", source_id, version.version, len(chunks), status)
        result = IngestResult(
            source_id, version.version, len(chunks), status, doc.pk, version.pk, groups_kept, doc.retired_at is not None
        )
        if on_write is not None:
            on_write(result)
        return result
