"""Vector store for dense retrieval (used only when RAG_EMBEDDER is not `none`).

SQLite: float32 BLOBs keyed by chunk rowid (scored in process with numpy; this Python's sqlite3
cannot load the sqlite-vec extension). PostgreSQL: a pgvector column of any dimension; the HNSW
index is created for the embedder's dimension on the first write (rag_app.search.dense).
No foreign key, for the same reason as the lexical tables (flush truncates the chunk table).
"""

from django.db import migrations


def up(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    if vendor == "sqlite":
        schema_editor.execute("CREATE TABLE rag_chunk_vec (chunk_id INTEGER PRIMARY KEY, embedding BLOB NOT NULL)")
    elif vendor == "postgresql":
        schema_editor.execute("CREATE EXTENSION IF NOT EXISTS vector")
        schema_editor.execute("CREATE TABLE rag_chunk_vec (chunk_id bigint PRIMARY KEY, embedding vector NOT NULL)")


def down(apps, schema_editor):
    if schema_editor.connection.vendor in ("sqlite", "postgresql"):
        schema_editor.execute("DROP TABLE IF EXISTS rag_chunk_vec")


class Migration(migrations.Migration):
    dependencies = [
        ("rag_app", "0003_retrieval_search_index"),
    ]

    operations = [migrations.RunPython(up, down)]
