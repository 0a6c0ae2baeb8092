"""PostgreSQL's lexical index rows keep their chunk's chunk_id (migration 0010), the tie-break the window is
cut by (rag_app.search.lexical._pg_window): written at indexing, filled for rows indexed before, and
never invented for a chunk the table does not hold."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from rag_app.models import Chunk
from rag_app.search import lexical
from rag_app.search.indexing import reindex_current
from tests.factories import ingest_text

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="the tsvector index is PostgreSQL's")


def _migrate(target: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


def _keys() -> dict[int, str]:
    with connection.cursor() as cur:
        cur.execute("SELECT chunk_id, tie_key FROM rag_chunk_tsv")
        return {int(pk): str(key) for pk, key in cur.fetchall()}


@pytest.mark.django_db
def test_indexing_writes_each_rows_chunk_id_and_refuses_a_chunk_the_table_lacks() -> None:
    ingest_text("Ferry timetable for the outer islands.\n\nThe pier opens at six.", source_id="ferry")
    chunks = dict(Chunk.objects.values_list("pk", "chunk_id"))
    assert len(chunks) >= 1 and _keys() == chunks
    missing = max(chunks) + 1000
    with pytest.raises(LookupError, match=str(missing)):
        lexical.index_rows([(missing, "ferry pier")])
    assert _keys() == chunks


@pytest.mark.django_db
def test_reindexing_gives_a_row_written_without_its_key_the_key() -> None:
    """A row written by a process of the release before 0010 (between `migrate` and its restart) holds ''."""
    ingest_text("Ferry timetable for the outer islands.", source_id="ferry-a")
    ingest_text("Harbour pilot roster.", source_id="harbour")
    chunks = dict(Chunk.objects.values_list("pk", "chunk_id"))
    stale = min(chunks)
    with connection.cursor() as cur:
        cur.execute("UPDATE rag_chunk_tsv SET tie_key = '' WHERE chunk_id = %s", [stale])
    assert _keys()[stale] == ""
    assert reindex_current() == 0  # no chunk's tokens changed
    assert _keys() == chunks
    assert lexical.mend_tie_keys() == 0


@pytest.mark.django_db(transaction=True)
def test_0010_fills_the_chunk_id_of_rows_indexed_before_it_and_reverses() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    try:
        ingest_text("Ferry timetable for the outer islands.", source_id="ferry-a")
        ingest_text("Harbour pilot roster.", source_id="harbour")
        chunks = dict(Chunk.objects.values_list("pk", "chunk_id"))
        _migrate([("rag_app", "0009_answer_reason_codes")])
        with connection.cursor() as cur:
            cur.execute("SELECT * FROM rag_chunk_tsv LIMIT 0")
            assert [c[0] for c in cur.description] == ["chunk_id", "tsv"]
        _migrate([("rag_app", "0010_tsv_tie_key")])
        assert _keys() == chunks
    finally:
        _migrate(latest)
