"""Lexical search structures, one per database vendor (the other vendor's operation is a no-op).

SQLite: a contentless FTS5 table keyed by the chunk rowid, tokenised on spaces only, so its terms
are exactly the tokens in Chunk.search_text (the tokenchars keep "covid-19", "3.14", "o'neil" whole).
PostgreSQL: a tsvector per chunk ('simple' config, no stemming, no stop words) with a GIN index.
Both: rag_search_term, the number of indexed chunks holding each term (document frequency), plus
two reserved rows ("#chunks", "#tokens": '#' never occurs in a token) for N and the mean length.
All three are written and cleared inside the ingest transaction (rag_app.search.indexing).
No foreign key to rag_app_chunk (a TRUNCATE of the chunk table by `flush` must not fail); queries
join the chunk table, and rag_app.search.signals empties these tables when the chunks are flushed.
"""

from django.db import migrations

SQLITE_UP = [
    "CREATE VIRTUAL TABLE rag_chunk_fts USING fts5("
    "search_text, content='', tokenize=\"unicode61 remove_diacritics 0 tokenchars '-.'''\")",
    "CREATE TABLE rag_search_term (term TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID",
]
SQLITE_DOWN = ["DROP TABLE IF EXISTS rag_search_term", "DROP TABLE IF EXISTS rag_chunk_fts"]

POSTGRES_UP = [
    "CREATE TABLE rag_chunk_tsv ("
    " chunk_id bigint PRIMARY KEY, tsv tsvector NOT NULL)",
    "CREATE INDEX rag_chunk_tsv_gin ON rag_chunk_tsv USING gin (tsv)",
    "CREATE TABLE rag_search_term (term text PRIMARY KEY, df bigint NOT NULL)",
]
POSTGRES_DOWN = ["DROP TABLE IF EXISTS rag_search_term", "DROP TABLE IF EXISTS rag_chunk_tsv"]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        statements = statements_by_vendor.get(schema_editor.connection.vendor, [])
        for sql in statements:
            schema_editor.execute(sql)

    return run


def backfill(apps, schema_editor):
    """Index the current chunks of a database that already has some (ingested before this migration)."""
    from collections import Counter

    connection = schema_editor.connection
    if connection.vendor not in ("sqlite", "postgresql"):
        return
    with connection.cursor() as cur:
        cur.execute(
            "SELECT c.id, c.search_text FROM rag_app_chunk c"
            " JOIN rag_app_documentversion v ON v.id = c.version_id WHERE v.is_current"
        )
        rows = cur.fetchall()
        if not rows:
            return
        if connection.vendor == "postgresql":
            cur.executemany(
                "INSERT INTO rag_chunk_tsv (chunk_id, tsv)"
                " VALUES (%s, array_to_tsvector(array_remove(string_to_array(%s, ' '), '')))",
                rows,
            )
        else:
            cur.executemany("INSERT INTO rag_chunk_fts (rowid, search_text) VALUES (%s, %s)", rows)
        df = Counter()
        for _, text in rows:
            df.update(set(text.split()))
        df["#chunks"] = len(rows)
        df["#tokens"] = sum(len(text.split()) for _, text in rows)
        cur.executemany("INSERT INTO rag_search_term (term, df) VALUES (%s, %s)", sorted(df.items()))


class Migration(migrations.Migration):
    dependencies = [
        ("rag_app", "0002_seed_levels_groups"),
    ]

    operations = [
        migrations.RunPython(
            _run({"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}),
            _run({"sqlite": SQLITE_DOWN, "postgresql": POSTGRES_DOWN}),
        ),
        migrations.RunPython(backfill, migrations.RunPython.noop),
    ]
