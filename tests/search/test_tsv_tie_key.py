"""PostgreSQL's lexical index rows keep their chunk's chunk_id (migration 0010), the tie-break the window is
cut by (rag_app.search.lexical._pg_window): the database writes it on every insert, whatever the writer
sends, fills it for rows indexed before, and never invents one for a chunk the table does not hold."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from rag_app.models import Chunk
from rag_app.search import lexical
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
def test_every_index_row_gets_its_chunks_chunk_id_whatever_the_writer_sends() -> None:
    ingest_text("Ferry timetable for the outer islands.\n\nThe pier opens at six.", source_id="ferry")
    ingest_text("Harbour pilot roster.", source_id="harbour")
    chunks = dict(Chunk.objects.values_list("pk", "chunk_id"))
    assert len(chunks) >= 2 and _keys() == chunks
    first, second = sorted(chunks)[:2]
    with connection.cursor() as cur:
        cur.execute("DELETE FROM rag_chunk_tsv WHERE chunk_id IN (%s, %s)", [first, second])
        # as the release before 0010 wrote its rows, and as a writer with a wrong key would
        cur.execute("INSERT INTO rag_chunk_tsv (chunk_id, tsv) VALUES (%s, 'ferry'::tsvector)", [first])
        cur.execute(
            "INSERT INTO rag_chunk_tsv (chunk_id, tsv, tie_key) VALUES (%s, 'pilot'::tsvector, 'zzz')", [second]
        )
    assert _keys() == chunks


@pytest.mark.django_db
def test_a_chunk_the_table_lacks_is_never_indexed() -> None:
    ingest_text("Ferry timetable for the outer islands.", source_id="ferry")
    chunks = dict(Chunk.objects.values_list("pk", "chunk_id"))
    missing = max(chunks) + 1000
    with pytest.raises(DatabaseError, match=f"chunk {missing} is not in the chunk table"), transaction.atomic():
        lexical.index_rows([(missing, "ferry pier")])
    assert _keys() == chunks


@pytest.mark.django_db(transaction=True)
def test_0010_fills_the_rows_indexed_before_it_and_reverses() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    try:
        ingest_text("Ferry timetable for the outer islands.", source_id="ferry-a")
        ingest_text("Harbour pilot roster.", source_id="harbour")
        chunks = dict(Chunk.objects.values_list("pk", "chunk_id"))
        _migrate([("rag_app", "0009_answer_reason_codes")])
        with connection.cursor() as cur:
            cur.execute("SELECT * FROM rag_chunk_tsv LIMIT 0")
            assert [c[0] for c in cur.description] == ["chunk_id", "tsv"]
            cur.execute("SELECT count(*) FROM pg_trigger WHERE tgname = 'rag_chunk_tsv_tie_key'")
            assert cur.fetchone()[0] == 0
        _migrate([("rag_app", "0010_tsv_tie_key")])
        assert _keys() == chunks
    finally:
        _migrate(latest)
