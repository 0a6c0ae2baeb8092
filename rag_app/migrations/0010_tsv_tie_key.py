"""PostgreSQL's lexical index keeps each chunk's chunk_id (the string) beside its tsvector.

The candidate query orders equal scores by chunk_id (ARCHITECTURE rule 3). The index window
(rag_app.search.lexical._pg_window) scores the tsvector table alone, without joining the chunk table,
so it could not order its ties the same way: when the window's edge fell inside a run of equal scores
(a question whose words many chunks hold in the same combination), it could not prove its top-k and the
full query ran, 31 ms at the median at 100k chunks (docs/PERFORMANCE.md, session 23). With the chunk_id
in the index row, the window is a prefix of the full query's order and proves its top-k whenever it holds
enough rows the reader may see.

The key is written by the database, not by its callers: a trigger copies it from the chunk table on
every insert, so no writer can leave it out or get it wrong (a process of the release before this one,
still running between `migrate` and its restart, indexes as it did and its rows get their keys too), and
an index row for a chunk the table does not hold is refused. Existing rows are filled here. SQLite's FTS5
index (bm25, whose scores seldom tie) is unchanged.
"""

from django.db import migrations

from ._postgres_only import run_on_postgres

POSTGRES_UP = [
    "ALTER TABLE rag_chunk_tsv ADD COLUMN tie_key text NOT NULL DEFAULT ''",
    "UPDATE rag_chunk_tsv t SET tie_key = c.chunk_id FROM rag_app_chunk c WHERE c.id = t.chunk_id",
    """CREATE FUNCTION rag_chunk_tsv_tie_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    SELECT c.chunk_id INTO NEW.tie_key FROM rag_app_chunk c WHERE c.id = NEW.chunk_id;
    IF NOT FOUND THEN
        RAISE EXCEPTION USING MESSAGE = 'chunk ' || NEW.chunk_id || ' is not in the chunk table: nothing to index';
    END IF;
    RETURN NEW;
END
$$""",
    "CREATE TRIGGER rag_chunk_tsv_tie_key BEFORE INSERT OR UPDATE ON rag_chunk_tsv"
    " FOR EACH ROW EXECUTE FUNCTION rag_chunk_tsv_tie_key()",
]
POSTGRES_DOWN = [
    "DROP TRIGGER IF EXISTS rag_chunk_tsv_tie_key ON rag_chunk_tsv",
    "DROP FUNCTION IF EXISTS rag_chunk_tsv_tie_key()",
    "ALTER TABLE rag_chunk_tsv DROP COLUMN IF EXISTS tie_key",
]


class Migration(migrations.Migration):
    dependencies = [
        ("rag_app", "0009_answer_reason_codes"),
    ]

    operations = [migrations.RunPython(run_on_postgres(POSTGRES_UP), run_on_postgres(POSTGRES_DOWN))]
