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


@pytest.mark.django_db
def test_the_key_is_written_under_an_empty_search_path_as_in_a_restore() -> None:
    """pg_dump's output sets the search path to '' before it loads the data: the trigger still finds the chunk."""
    ingest_text("Ferry timetable for the outer islands.", source_id="ferry")
    chunks = dict(Chunk.objects.values_list("pk", "chunk_id"))
    pk = min(chunks)
    with connection.cursor() as cur:
        cur.execute("SELECT current_schema()")
        schema = connection.ops.quote_name(cur.fetchone()[0])
        cur.execute("DELETE FROM rag_chunk_tsv WHERE chunk_id = %s", [pk])
        cur.execute("SELECT set_config('search_path', '', true)")
        cur.execute(f"INSERT INTO {schema}.rag_chunk_tsv (chunk_id, tsv) VALUES (%s, 'ferry'::tsvector)", [pk])
        cur.execute(f"SELECT tie_key FROM {schema}.rag_chunk_tsv WHERE chunk_id = %s", [pk])
        assert cur.fetchone()[0] == chunks[pk]
        cur.execute("SELECT set_config('search_path', %s, true)", [schema])


@pytest.mark.django_db
def test_a_chunks_new_chunk_id_reaches_its_index_row() -> None:
    """Nothing in the app renames a chunk; a hand-made UPDATE must not leave its index row ordering ties by the
    old name."""
    ingest_text("Ferry timetable for the outer islands.", source_id="ferry")
    chunk = Chunk.objects.get()
    Chunk.objects.filter(pk=chunk.pk).update(chunk_id="renamed:1:0")
    assert _keys() == {chunk.pk: "renamed:1:0"}


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
            cur.execute(
                "SELECT count(*) FROM pg_trigger WHERE tgname IN ('rag_chunk_tsv_tie_key', 'rag_app_chunk_tie_key')"
            )
            assert cur.fetchone()[0] == 0
        _migrate([("rag_app", "0010_tsv_tie_key")])
        assert _keys() == chunks
    finally:
        _migrate(latest)
