"""PostgreSQL's lexical index keeps each chunk's chunk_id (the string) beside its tsvector.

The candidate query orders equal scores by chunk_id (ARCHITECTURE rule 3). The index window
(rag_app.search.lexical._pg_window) scores the tsvector table alone, without joining the chunk table,
so it could not order its ties the same way: when the window's edge fell inside a run of equal scores
(a question whose words many chunks hold in the same combination), it could not prove its top-k and the
full query ran, 31 ms at the median at 100k chunks (docs/PERFORMANCE.md, session 23). With the chunk_id
in the index row, the window is a prefix of the full query's order and proves its top-k whenever it holds
enough rows the reader may see. Existing rows are filled from the chunk table. SQLite's FTS5 index
(bm25, whose scores seldom tie) is unchanged.
"""

from django.db import migrations


def up(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE rag_chunk_tsv ADD COLUMN tie_key text NOT NULL DEFAULT ''")
    # The same statement as rag_app.search.lexical.mend_tie_keys, frozen here.
    schema_editor.execute(
        "UPDATE rag_chunk_tsv t SET tie_key = c.chunk_id FROM rag_app_chunk c WHERE c.id = t.chunk_id"
    )


def down(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute("ALTER TABLE rag_chunk_tsv DROP COLUMN tie_key")


class Migration(migrations.Migration):
    dependencies = [
        ("rag_app", "0009_answer_reason_codes"),
    ]

    operations = [migrations.RunPython(up, down)]
