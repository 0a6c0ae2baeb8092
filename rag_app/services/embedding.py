"""Re-embedding and re-indexing as jobs: what the `embed_batch` and `reindex_document` tasks run.

Vectors are computed before a transaction opens and replaced in one short transaction, so search
sees either the old vectors or the new ones, never a document half without. Which text a chunk is
embedded as (its context line, then its text) is decided by rag_app.search.indexing alone.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_noop

from rag_app.access import author
from rag_app.models import Chunk, IngestJob
from rag_app.search import dense, indexing
from rag_app.services.ingest_jobs import (
    BrokerUnavailable,
    JobMissing,
    JobProgress,
    ingest_job_fail,
    is_broker_error,
    job_claim,
)

log = logging.getLogger(__name__)

STEP = 64  # chunks per embedding call between progress reports


def chunks_embed(*, chunk_pks: Sequence[int], progress: Callable[[int, int], None] | None = None) -> int:
    """Embed the given chunks that belong to a searched version and replace their vectors; returns the
    number stored (0 with RAG_EMBEDDER=none). Safe to run twice: the second run stores the same vectors."""
    if not dense.enabled():
        return 0
    rows = list(
        Chunk.objects.filter(pk__in=list(chunk_pks), version__searched=True)
        .order_by("pk")
        .values_list("pk", "text", "section", "version__document__title")
    )
    texts = [indexing.passage_text(indexing.chunk_context(title, section), text) for _, text, section, title in rows]
    parts = []
    for start in range(0, len(texts), STEP):
        if progress is not None:
            progress(start, len(texts))
        part = indexing.embed_for_ingest(texts[start : start + STEP])
        if part is None:
            return 0
        parts.append(np.asarray(part, dtype=np.float32))
    if not parts:
        return 0
    vectors = np.concatenate(parts)
    pks = [row[0] for row in rows]
    with transaction.atomic():
        # A chunk unindexed meanwhile (a new version committed) keeps no vector: it left the index.
        indexing.lock_documents_of(pks)
        current = set(Chunk.objects.filter(pk__in=pks, version__searched=True).values_list("pk", flat=True))
        keep = [n for n, pk in enumerate(pks) if pk in current]
        dense.delete_vectors(pks)
        dense.store_vectors([pks[n] for n in keep], vectors[keep])
    if progress is not None:
        progress(len(texts), len(texts))
    return len(keep)


def reindex_job_create(*, user: Any, kind: str, source_id: str) -> IngestJob:
    """A queued REEMBED job for one document, or a REINDEX job (the corpus; `source_id` names what
    prompted it). Publish it with rag_app.services.ingest_jobs.ingest_job_enqueue."""
    if kind not in (IngestJob.Kind.REEMBED, IngestJob.Kind.REINDEX):
        raise ValueError(f"not a re-index kind: {kind!r}")
    return IngestJob.objects.create(
        **author(user),
        kind=kind,
        source_id=source_id,
        task_id=str(uuid.uuid4()),
    )


def index_new_title(*, user: Any, document_id: int, source_id: str, reembed: bool = True) -> None:
    """What a document's new title does to the index, inside the transaction that renamed it (its row locked), for
    every path that renames (the page, the API, a same-file upload with a title). The title is part of every chunk's
    context (indexing.chunk_context): the searched chunks' search tokens are made again at once, so lexical search
    finds the new title; their vectors were embedded with the old one, so once the rename commits a REEMBED job is
    queued (with an embedder), run by a worker like an upload and listed among the renamer's jobs on the upload page.
    With the broker unreachable the rename stands and the job is left failed with the reason (`broker_unavailable`;
    the vectors catch up with the next rename or `rag_embed --rebuild`). `reembed=False`: an upload that writes a new
    version with the title, whose chunks are embedded with it already (a predecessor kept in force until the new
    version's date keeps the old title's vectors until then)."""
    indexing.reindex_document(document_id)
    if reembed:
        reembed_after_commit(user=user, source_id=source_id)


def reembed_after_commit(*, user: Any, source_id: str) -> None:
    """Inside the transaction that changed what a document's searched chunks are (a rename; a version in force again,
    indexing.settle_versions): once it commits, a REEMBED job makes their vectors again (with an embedder)."""
    if dense.enabled():
        # robust: the change has committed; whatever befalls the queueing is logged, never the changer's error.
        transaction.on_commit(lambda: _reembed_queue(user=user, source_id=source_id), robust=True)


def _reembed_queue(*, user: Any, source_id: str) -> None:
    from rag_app.tasks import reindex_document

    job = reindex_job_create(user=user, kind=IngestJob.Kind.REEMBED, source_id=source_id)
    try:
        reindex_document.apply_async(args=[job.pk], task_id=job.task_id, retry=False)
    except Exception as exc:
        if not is_broker_error(exc):
            raise
        log.warning("re-embedding of %s not queued: broker unreachable (%s)", source_id, exc)
        message = gettext_noop("the task broker is unreachable: %(error)s")
        ingest_job_fail(job_id=job.pk, code=BrokerUnavailable.code, message=message, params={"error": str(exc)})


def reindex_job_run(*, job_id: int, retried: int = 0) -> IngestJob:
    job = IngestJob.objects.defer("payload").filter(pk=job_id).first()
    if job is None:
        raise JobMissing(job_id)
    if job.state in (IngestJob.State.DONE, IngestJob.State.FAILED):
        return job
    if not job_claim(job, retried=retried):
        return IngestJob.objects.defer("payload").get(pk=job.pk)
    progress = JobProgress(job.pk)
    if job.kind == IngestJob.Kind.REEMBED:
        pks = list(
            Chunk.objects.filter(version__document__source_id=job.source_id, version__searched=True).values_list(
                "pk", flat=True
            )
        )
        if not pks:
            message = gettext_noop("No document %(source_id)s.")
            return ingest_job_fail(
                job_id=job.pk, code="not_found", message=message, params={"source_id": repr(job.source_id)}
            )
        if not dense.enabled():
            message = gettext_noop("RAG_EMBEDDER is none: nothing to embed")
            return ingest_job_fail(job_id=job.pk, code="no_embedder", message=message, params={})
        count = chunks_embed(chunk_pks=pks, progress=progress)
        line = f"{job.source_id} {count} chunks re-embedded"
    else:
        count = indexing.reindex_current(progress=progress)
        line = f"{count} chunks re-indexed"
    IngestJob.objects.filter(pk=job.pk).update(
        state=IngestJob.State.DONE,
        results=[{"source_id": job.source_id, "status": "done", "chunks": count, "line": line}],
        finished_at=timezone.now(),
    )
    log.info("job %s: %s", job.pk, line)
    return IngestJob.objects.defer("payload").get(pk=job.pk)
