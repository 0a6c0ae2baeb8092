"""Keeps the search indexes in step with the chunk table, inside the ingest transaction.

Owned by the retrieval layer; the ingest service calls index_chunks and settle_versions (which versions are
searched: the one rule, which unindexes what leaves). Embedding (slow) happens in embed_for_ingest, before the
transaction opens; index_chunks / unindex_version only write rows, so a failed ingest rolls the index back with
everything else.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.db import connection, transaction
from django.db.models import QuerySet
from django.utils import timezone

from rag_app.models import Chunk, Document, DocumentVersion
from rag_app.pipeline.textproc import passage_tokens

from . import dense, lexical


def chunk_context(title: str, section: str) -> str:
    """What a chunk is indexed with besides its own text: the document's title (unless the heading
    breadcrumb already starts with it, as when the title is the top heading) and the breadcrumb.

    The words that pick a document ("GPL", "Apache License", "PEP 20") often live only in its title;
    a chunk indexed without them cannot be found by them. Lexical and dense indexing both use this.
    """
    title, section = title.strip(), section.strip()
    parts = [title] if title and not section.startswith(title) else []
    if section:
        parts.append(section)
    return " > ".join(parts)


def search_tokens(text: str, context: str) -> list[str]:
    """A chunk's index tokens (Chunk.search_text): its text's, then its context's (textproc.passage_tokens:
    words and the initialisms of names). Ingest and re-indexing both use this."""
    return passage_tokens(text) + (passage_tokens(context) if context else [])


def passage_text(context: str, text: str) -> str:
    """The text a chunk is embedded as: its context line, then the chunk."""
    return f"{context}\n{text}" if context else text


def embed_for_ingest(texts: Sequence[str]) -> object:
    """Embed chunk texts before the transaction opens (None when no embedder is configured).

    dense.EmbedderMismatch first, before any time is spent embedding, when the stored vectors were
    made by another embedder or model; dense.EmbeddingError when the embedder fails.
    """
    if dense.enabled():
        dense.ensure_compatible()
    return dense.embed_passages(texts)


def index_chunks(version: DocumentVersion, chunks: Sequence[Chunk], embeddings: object) -> None:
    """Add a new version's chunks to the lexical (and dense) index."""
    lexical.index_rows([(c.pk, c.search_text) for c in chunks])
    if embeddings is not None:
        dense.store_vectors([c.pk for c in chunks], embeddings)


def counted(superseded_on: dt.date | None) -> bool:
    """Whether a searched version's chunks count in the term statistics (document frequencies, N): the current
    version's do; a predecessor kept searched until its successor takes effect (superseded_on set) is scored
    against them but not counted, so one document's two versions do not weigh their shared words as twice as
    common (in a small corpus that sank the version in force under the bar, tests/test_trial30b.py)."""
    return superseded_on is None


def unindex_version(version: DocumentVersion) -> None:
    """Remove a superseded version's chunks from the indexes (its rows stay for old answers)."""
    rows = list(Chunk.objects.filter(version=version).values_list("pk", "search_text"))
    lexical.unindex_rows(rows, counted=counted(version.superseded_on))
    dense.delete_vectors([pk for pk, _ in rows])


def searched_periods(
    versions: Sequence[tuple[int, dt.date | None]], today: dt.date
) -> dict[int, tuple[bool, dt.date | None]]:
    """Which of a document's searched versions stay searched: {pk: (searched, superseded_on)}.

    `versions`: (pk, effective_from) of the versions retrieval reads now, newest first; the first is the current
    version, which always stays (superseded_on None). An older one stays while a newer version is still to take
    effect and it could be in force until then: it is superseded on the earliest date a newer version takes effect
    (a version without a date takes effect today, as it is read). It leaves the index once that date has come, or
    when it would never be in force (its own date is not before it)."""
    out: dict[int, tuple[bool, dt.date | None]] = {}
    successor: dt.date | None = None  # the earliest date from which a newer version is in force
    for pk, effective_from in versions:
        if successor is None:  # the current version
            out[pk] = (True, None)
        else:
            out[pk] = (successor > today and (effective_from is None or effective_from < successor), successor)
        begins = effective_from or today
        successor = begins if successor is None else min(successor, begins)
    return out


def settle_versions(document_id: int) -> bool:
    """The one rule of which versions of a document retrieval reads (`DocumentVersion.searched`), applied inside
    the transaction that changed its versions or their dates, with the document's row locked: the current version,
    and the version in force until its successor takes effect (searched_periods). Every other version leaves the
    indexes (its rows stay for old answers); what stays records the date tiering rejects it from
    (`superseded_on`), so no periodic job is needed. A version that left comes back only when its successor's date
    is moved later (the current version's date fixed after it was in force at once): it is in force again until then
    and is indexed again, lexically at once; True then, for the caller to have its vectors made again (they left
    with it)."""
    versions: list[tuple[int, dt.date | None, dt.date | None, bool]] = list(
        DocumentVersion.objects.filter(document_id=document_id, searched=True)
        .order_by("-is_current", "-version")
        .values_list("pk", "effective_from", "superseded_on", "searched")
    )
    today = timezone.localdate()
    versions = _in_force_again(document_id, versions, today) or versions
    periods = searched_periods([(pk, start) for pk, start, _, _ in versions], today)
    back = False
    for pk, _, superseded_on, was_searched in versions:
        searched, until = periods[pk]
        if not was_searched:  # a version out of the index: put back when it is in force again, else left out
            if searched:
                _index_again(pk, until)
                back = True
            continue
        if not searched:
            unindex_version(DocumentVersion(pk=pk, superseded_on=superseded_on))
            if superseded_on is not None and superseded_on <= today:
                until = superseded_on  # the date its successor did take effect, not the one of a later upload
            DocumentVersion.objects.filter(pk=pk).update(searched=False, superseded_on=until)
        elif until != superseded_on:
            if counted(superseded_on):  # the version that was current until now stays: out of the statistics
                lexical.uncount_rows(list(Chunk.objects.filter(version_id=pk).values_list("search_text", flat=True)))
            DocumentVersion.objects.filter(pk=pk).update(superseded_on=until)
    return back


def _in_force_again(
    document_id: int, searched: Sequence[tuple[int, dt.date | None, dt.date | None, bool]], today: dt.date
) -> list[tuple[int, dt.date | None, dt.date | None, bool]]:
    """When the current version is scheduled for later (its date moved after it was in force at once) and no other
    version answers until then: every version of the document, newest first, as settle_versions reads them plus
    whether each is searched now, for searched_periods to say which are in force again (the version in force before,
    and one scheduled between the two); else []."""
    if len(searched) != 1 or searched[0][1] is None or searched[0][1] <= today:
        return []
    rows = (
        DocumentVersion.objects.filter(document_id=document_id)
        .order_by("-is_current", "-version")
        .values_list("pk", "effective_from", "superseded_on", "searched")
    )
    return list(rows)


def _index_again(pk: int, until: dt.date | None) -> None:
    """A version in force again (settle_versions): its chunks' search tokens made again with the document's title of
    now (it may have changed while the version was out), indexed, kept out of the term statistics as a predecessor
    is, and the version searched until `until`. Its vectors are the caller's to make again (they left with it)."""
    rows = Chunk.objects.filter(version_id=pk).values_list("pk", "text", "section", "version__document__title")
    indexed: list[tuple[int, str]] = []
    for chunk_pk, text, section, title in rows:
        tokens = search_tokens(text, chunk_context(title, section))
        Chunk.objects.filter(pk=chunk_pk).update(search_text=" ".join(tokens), token_count=len(tokens))
        indexed.append((chunk_pk, " ".join(tokens)))
    lexical.index_rows(indexed, counted=counted(until))
    DocumentVersion.objects.filter(pk=pk).update(searched=True, superseded_on=until)


def lock_documents_of(chunk_pks: Sequence[int]) -> None:
    """Inside a transaction: lock the documents of these chunks, in pk order, as an ingest locks the document it
    writes a new version of (ingest/service._write). A version committed meanwhile is then seen by the reads that
    follow, and an ingest not yet at its lock waits for this transaction: whether a chunk is searched cannot change
    between reading it and writing its index rows or its vector (a superseded chunk put back in the index, a
    vector stored for it). A no-op on SQLite, which has one writer at a time."""
    documents = Chunk.objects.filter(pk__in=list(chunk_pks)).values("version__document_id")
    list(Document.objects.select_for_update().filter(pk__in=documents).order_by("pk").values_list("pk", flat=True))


def _searched_pks() -> list[int]:
    """The pks of every searched chunk, in order: what re-indexing and the staleness check read."""
    return list(Chunk.objects.filter(version__searched=True).order_by("pk").values_list("pk", flat=True))


def reindex_current(*, batch: int = 500, progress: Callable[[int, int], None] | None = None) -> int:
    """Recompute the search tokens of every searched chunk (text + context) and re-index them.

    For corpora indexed before the context (title, section path) joined the index, or after a title
    changed. Each batch is one short transaction; returns how many chunks changed.
    """
    pks = _searched_pks()
    changed = 0
    for i in range(0, len(pks), batch):
        with transaction.atomic():
            lock_documents_of(pks[i : i + batch])
            changed += _reindex_rows(Chunk.objects.filter(pk__in=pks[i : i + batch], version__searched=True))
        if progress is not None:
            progress(min(i + batch, len(pks)), len(pks))
    return changed


def reindex_document(document_id: int) -> int:
    """Inside the transaction that renamed a document (its row locked): its searched chunks' search tokens again,
    so that it is found by its new title at once (the title is part of every chunk's indexed context,
    chunk_context). Their vectors keep the context they were embedded with until `rag_embed --rebuild`. Returns how
    many chunks changed."""
    return _reindex_rows(Chunk.objects.filter(version__document_id=document_id, version__searched=True))


def _out_of_date(chunks: QuerySet[Chunk]) -> list[tuple[int, str, str, int, bool]]:
    """The chunks among `chunks` whose stored search tokens are not what this release makes of their text and context
    (search_tokens over chunk_context): (pk, stored, current, token count, counted) for each. The one comparison
    re-indexing and the staleness check (stale_index) make."""
    rows = chunks.values_list(
        "pk", "text", "section", "search_text", "version__document__title", "version__superseded_on"
    )
    changed: list[tuple[int, str, str, int, bool]] = []
    for pk, text, section, old, title, superseded_on in rows:
        tokens = search_tokens(text, chunk_context(title, section))
        new = " ".join(tokens)
        if new != old:
            changed.append((pk, old, new, len(tokens), counted(superseded_on)))
    return changed


@dataclass(frozen=True)
class Staleness:
    """How many of the searched chunks read (all, or an even sample) are indexed in another form than this release's
    (stale), and their chunk_ids (up to a few, to name)."""

    read: int
    total: int
    stale: int
    examples: tuple[str, ...]


def stale_index(*, sample: int | None = None, batch: int = 500, examples: int = 3) -> Staleness:
    """Which searched chunks an upgrade left indexed in an older form (a tokenizer, an initialism or a title changed
    since they were indexed): a search misses words they hold, or finds words they no longer hold, until
    `rag_reindex` runs. `sample`: read at most that many, spread evenly over the table (the system check's look, about
    2 ms a chunk); None: every one (`rag_reindex --check`). Reads only; nothing is written."""
    pks = _searched_pks()
    total = len(pks)
    if sample is not None and total > sample:  # the first and the last chunk and evenly between them
        step = (total - 1) / max(sample - 1, 1)
        pks = [pks[round(i * step)] for i in range(sample)]
    stale: list[int] = []
    for i in range(0, len(pks), batch):
        stale += [row[0] for row in _out_of_date(Chunk.objects.filter(pk__in=pks[i : i + batch]))]
    named = tuple(Chunk.objects.filter(pk__in=stale[:examples]).order_by("pk").values_list("chunk_id", flat=True))
    return Staleness(read=len(pks), total=total, stale=len(stale), examples=named)


def _reindex_rows(chunks: QuerySet[Chunk]) -> int:
    """Recompute `chunks`' search tokens (text + context) and re-index the ones that changed, each counted in the
    term statistics as its version is (`counted`)."""
    updates = _out_of_date(chunks)
    for in_stats in (True, False):
        lexical.unindex_rows([(pk, old) for pk, old, _, _, c in updates if c is in_stats], counted=in_stats)
    for pk, _, new, count, _ in updates:
        Chunk.objects.filter(pk=pk).update(search_text=new, token_count=count)
    for in_stats in (True, False):
        lexical.index_rows([(pk, new) for pk, _, new, _, c in updates if c is in_stats], counted=in_stats)
    return len(updates)


# What a rewrite of every current chunk's index rows (reindex_current) leaves behind on PostgreSQL: the old version
# of each rewritten row, dead but still read by every scan of the table until VACUUM frees it. The lexical window
# reads a few thousand index rows per question through them: 100k chunks with the index rewritten twice (two dead
# rows per live one), 397 captured candidate calls, p50 12-13 -> 6-8 ms and shared-buffer misses 337k -> 24-45k
# after VACUUM (docs/PERFORMANCE.md, session 24). The vector table is left to autovacuum after a rebuild of the
# vectors: vacuuming an HNSW index every entry of which is dead is slow (pgvector's documentation), and a manual
# VACUUM, unlike autovacuum, does not step aside for the ingests that write vectors meanwhile.
REWRITTEN_BY_REINDEX = ("rag_chunk_tsv", "rag_search_term", "rag_app_chunk")


def settle(tables: Sequence[str]) -> str | None:
    """After a bulk rewrite of `tables`, on PostgreSQL: VACUUM (ANALYZE) them, so no search reads their dead rows
    until autovacuum comes round to it. Returns what was done, for the command to say; None on SQLite, which keeps
    no dead rows for a search to read through (and whose served databases carry no planner statistics by design:
    the joins that need an order pin it, search/scope.py). VACUUM cannot run inside a transaction: a caller holding
    one gets ANALYZE only, and autovacuum does the rest. A table this role may not vacuum (not its owner) is left
    out and named."""
    if connection.vendor != "postgresql":
        return None
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.relname, pg_has_role(current_user, c.relowner, 'MEMBER')"
            " OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user)"
            " FROM pg_class c WHERE c.oid = ANY(%s::regclass[])",
            [list(tables)],
        )
        allowed = dict(cur.fetchall())
        own = [t for t in tables if allowed.get(t)]
        others = [t for t in tables if not allowed.get(t)]
        said = f"; not the owner of {', '.join(others)}: left to autovacuum" if others else ""
        if not own:
            return said[2:]
        names = ", ".join(connection.ops.quote_name(t) for t in own)
        if connection.in_atomic_block or not connection.get_autocommit():
            cur.execute(f"ANALYZE {names}")
            return f"analyzed {', '.join(own)}; inside a transaction, so their dead rows are left to autovacuum" + said
        cur.execute(f"VACUUM (ANALYZE) {names}")
        return f"vacuumed and analyzed {', '.join(own)}" + said


def drop_vectors() -> None:
    """Forget every stored vector (then `embed_missing` embeds the searched chunks again)."""
    dense.delete_all_vectors()


def embed_missing(
    *, batch: int = 256, progress: Callable[[int, int], None] | None = None, rebuild: bool = False
) -> int:
    """Embed the searched chunks that have no vector yet (after turning an embedder on). Returns the count.

    `rebuild`: embed every searched chunk again with the configured embedder and replace all stored
    vectors (after changing RAG_EMBEDDER or RAG_EMBEDDING_MODEL). The old vectors are dropped only
    once the first batch is embedded, in the transaction that stores it, so an embedder that does not
    answer leaves them as they were. Without `rebuild`, dense.EmbedderMismatch when the stored vectors
    were made by another embedder or model (nothing is embedded).

    Each batch is embedded outside any transaction and stored in a short one; chunks superseded
    meanwhile are skipped at store time, so a concurrent ingest is never undone.
    """
    if not dense.enabled():
        return 0
    have: set[int] = set()
    if not rebuild:
        dense.ensure_compatible()
        with connection.cursor() as cur:
            cur.execute("SELECT chunk_id FROM rag_chunk_vec")
            have = {int(r[0]) for r in cur.fetchall()}
    rows = Chunk.objects.filter(version__searched=True).order_by("pk")
    todo = [
        (pk, passage_text(chunk_context(title, section), text))
        for pk, text, section, title in rows.values_list("pk", "text", "section", "version__document__title")
        if pk not in have
    ]
    if rebuild and not todo:
        dense.delete_all_vectors()
    done = 0
    for i in range(0, len(todo), batch):
        part = todo[i : i + batch]
        vectors = dense.embed_passages([text for _, text in part])
        if vectors is None:
            break
        with transaction.atomic():
            lock_documents_of([pk for pk, _ in part])
            if rebuild and i == 0:
                dense.delete_all_vectors()
            current = set(
                Chunk.objects.filter(pk__in=[pk for pk, _ in part], version__searched=True).values_list("pk", flat=True)
            )
            keep = [n for n, (pk, _) in enumerate(part) if pk in current]
            dense.store_vectors([part[n][0] for n in keep], vectors[keep])
        done += len(keep)
        if progress is not None:
            progress(min(i + batch, len(todo)), len(todo))
    else:
        if rebuild and todo:
            # Dropping every vector also dropped those of the versions ingested since `todo` was listed (they were
            # embedded by their ingest): they are embedded again now, with the configured embedder.
            done += embed_missing(batch=batch)
    return done
