"""The tie-key trigger of 0010 names the chunk table without a schema, so it failed wherever the search path is
empty, as in a restore of `pg_dump`'s output (which sets it to ''): every row loaded into rag_chunk_tsv was
refused. The function now carries the search path it was created under. And the key follows its chunk: a change
of a chunk's chunk_id (nothing in the app makes one; a hand-made UPDATE could) is copied to its index row, which
would otherwise keep ordering ties by the old one and break the window's proof (rag_app.search.lexical).
"""

from django.db import migrations

from ._postgres_only import run_on_postgres

POSTGRES_UP = [
    "ALTER FUNCTION rag_chunk_tsv_tie_key() SET search_path FROM CURRENT",
    """CREATE FUNCTION rag_app_chunk_tie_key() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
    UPDATE rag_chunk_tsv SET tie_key = NEW.chunk_id WHERE chunk_id = NEW.id;
    RETURN NULL;
END
$$""",
    "CREATE TRIGGER rag_app_chunk_tie_key AFTER UPDATE OF chunk_id ON rag_app_chunk"
    " FOR EACH ROW WHEN (OLD.chunk_id IS DISTINCT FROM NEW.chunk_id) EXECUTE FUNCTION rag_app_chunk_tie_key()",
]
POSTGRES_DOWN = [
    "DROP TRIGGER IF EXISTS rag_app_chunk_tie_key ON rag_app_chunk",
    "DROP FUNCTION IF EXISTS rag_app_chunk_tie_key()",
    "ALTER FUNCTION rag_chunk_tsv_tie_key() RESET search_path",
]


class Migration(migrations.Migration):
    dependencies = [
        ("rag_app", "0010_tsv_tie_key"),
    ]

    operations = [migrations.RunPython(run_on_postgres(POSTGRES_UP), run_on_postgres(POSTGRES_DOWN))]
