"""Lexical index: SQLite FTS5 or a PostgreSQL tsvector + GIN, plus the term statistics table.

Both indexes hold exactly the tokens of Chunk.search_text (jieba search mode, folded), so the
query side only has to tokenize the same way. Queries are built from tokens, each one quoted,
never from the raw question: FTS syntax in a question (quotes, NEAR, OR, *, ^, :) is inert.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, connections

from .permissions import access_condition
from .scoring import CHUNKS_KEY, TOKENS_KEY, CorpusStats

# The MATCH / tsquery uses at most this many of a query's terms (the rarest ones); relevance
# is still computed over all of them. Bounds the cost of a pasted page of text.
MAX_MATCH_TERMS = 24
COMMON_SHARE = 0.05
COMMON_MIN_DF = 100  # small corpora: every term is matched


def _is_postgres() -> bool:
    return connection.vendor == "postgresql"


# --- writing (inside the ingest transaction) ------------------------------------------------


def index_rows(rows: Sequence[tuple[int, str]]) -> None:
    """Add (chunk pk, search_text) rows to the index and their terms to the statistics."""
    if not rows:
        return
    with connection.cursor() as cur:
        if _is_postgres():
            cur.executemany(
                "INSERT INTO rag_chunk_tsv (chunk_id, tsv)"
                " VALUES (%s, array_to_tsvector(array_remove(string_to_array(%s, ' '), '')))",
                list(rows),
            )
        else:
            cur.executemany("INSERT INTO rag_chunk_fts (rowid, search_text) VALUES (%s, %s)", list(rows))
        _add_term_stats(cur, [text for _, text in rows], sign=1)


def unindex_rows(rows: Sequence[tuple[int, str]]) -> None:
    """Remove (chunk pk, search_text) rows that are in the index; the chunk rows themselves stay."""
    if not rows:
        return
    with connection.cursor() as cur:
        if _is_postgres():
            cur.execute(
                "DELETE FROM rag_chunk_tsv WHERE chunk_id = ANY(%s) RETURNING chunk_id", [[pk for pk, _ in rows]]
            )
            deleted = {int(r[0]) for r in cur.fetchall()}
            rows = [(pk, text) for pk, text in rows if pk in deleted]
        else:
            # Contentless FTS5 deletes by replaying the original tokens; replaying a row that is
            # not in the index would corrupt it, so only indexed rowids are replayed.
            indexed = _indexed_rowids(cur, [pk for pk, _ in rows])
            rows = [(pk, text) for pk, text in rows if pk in indexed]
            cur.executemany(
                "INSERT INTO rag_chunk_fts (rag_chunk_fts, rowid, search_text) VALUES ('delete', %s, %s)",
                list(rows),
            )
        if rows:
            _add_term_stats(cur, [text for _, text in rows], sign=-1)


def _indexed_rowids(cur: Any, pks: Sequence[int]) -> set[int]:
    found: set[int] = set()
    for i in range(0, len(pks), 500):
        part = pks[i : i + 500]
        marks = ", ".join(["%s"] * len(part))
        cur.execute(f"SELECT rowid FROM rag_chunk_fts WHERE rowid IN ({marks})", part)  # noqa: S608
        found.update(int(r[0]) for r in cur.fetchall())
    return found


def _add_term_stats(cur: Any, texts: Iterable[str], *, sign: int) -> None:
    df: Counter[str] = Counter()
    n_chunks = n_tokens = 0
    for text in texts:
        tokens = text.split()
        df.update(set(tokens))
        n_chunks += 1
        n_tokens += len(tokens)
    df[CHUNKS_KEY] = n_chunks
    df[TOKENS_KEY] = n_tokens
    # Sorted, so concurrent ingests lock term rows in the same order (no deadlock on PostgreSQL).
    cur.executemany(
        "INSERT INTO rag_search_term (term, df) VALUES (%s, %s)"
        " ON CONFLICT (term) DO UPDATE SET df = rag_search_term.df + excluded.df",
        [(term, sign * count) for term, count in sorted(df.items())],
    )


# --- reading ----------------------------------------------------------------------------------


def corpus_stats(terms: Sequence[str]) -> CorpusStats:
    """Document frequencies of `terms` among indexed (current) chunks, with N and total tokens."""
    keys = [CHUNKS_KEY, TOKENS_KEY, *terms]
    found: dict[str, int] = {}
    with connection.cursor() as cur:
        for i in range(0, len(keys), 500):
            part = keys[i : i + 500]
            marks = ", ".join(["%s"] * len(part))
            cur.execute(f"SELECT term, df FROM rag_search_term WHERE term IN ({marks})", part)  # noqa: S608
            found.update((term, int(df)) for term, df in cur.fetchall())
    return CorpusStats(
        chunks=max(found.pop(CHUNKS_KEY, 0), 0),
        tokens=max(found.pop(TOKENS_KEY, 0), 0),
        df={t: max(found.get(t, 0), 0) for t in terms},
    )


def match_terms(terms: Sequence[str], stats: CorpusStats) -> list[str]:
    """The terms worth sending to the index: present in it, rarest first, at most MAX_MATCH_TERMS.

    Terms in more than COMMON_SHARE of the chunks (and more than COMMON_MIN_DF) are left out of
    the match (they would make the index score a large share of the corpus for almost no idf)
    unless nothing rarer is present; they still count in every candidate's relevance.
    """
    present = [t for t in terms if stats.df.get(t, 0) > 0]
    present.sort(key=lambda t: (stats.df[t], t))
    rare = [t for t in present if stats.df[t] <= max(COMMON_SHARE * stats.chunks, COMMON_MIN_DF)]
    return (rare or present[:2])[:MAX_MATCH_TERMS]


def candidates(*, terms: Sequence[str], weights: dict[str, float], user: Any, limit: int) -> list[tuple[int, float]]:
    """(chunk pk, engine score) of current, permitted chunks matching any term, best first.

    The permission and is_current conditions are part of the query, so top-k is taken over
    what this user may see and never over old versions.
    """
    if not terms or limit <= 0:
        return []
    access_sql, access_params = access_condition(user, document_alias="d")
    joins = (
        " JOIN rag_app_chunk c ON c.id = {key}"
        " JOIN rag_app_documentversion v ON v.id = c.version_id"
        " JOIN rag_app_document d ON d.id = v.document_id"
    )
    with connection.cursor() as cur:
        if _is_postgres():
            score = " + ".join(["(CASE WHEN t.tsv @@ %s::tsquery THEN %s ELSE 0 END)"] * len(terms))
            score_params: list[Any] = []
            for term in terms:
                score_params += [_tsquery_lexeme(term), weights.get(term, 1.0)]
            sql = (
                f"SELECT t.chunk_id, {score} AS s FROM rag_chunk_tsv t"  # noqa: S608 - only placeholders
                + joins.format(key="t.chunk_id")
                + f" WHERE t.tsv @@ %s::tsquery AND v.is_current AND {access_sql}"
                " ORDER BY s DESC, c.chunk_id LIMIT %s"
            )
            query = " | ".join(_tsquery_lexeme(t) for t in terms)
            cur.execute(sql, [*score_params, query, *access_params, limit])
            return [(int(pk), float(s)) for pk, s in cur.fetchall()]
        sql = (
            "SELECT f.rowid, -bm25(rag_chunk_fts) AS s FROM rag_chunk_fts f"  # noqa: S608 - only placeholders
            + joins.format(key="f.rowid")
            + f" WHERE rag_chunk_fts MATCH %s AND v.is_current AND {access_sql}"
            " ORDER BY s DESC, c.chunk_id LIMIT %s"
        )
        cur.execute(sql, [" OR ".join(_fts5_phrase(t) for t in terms), *access_params, limit])
        return [(int(pk), float(s)) for pk, s in cur.fetchall()]


def _fts5_phrase(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'


def _tsquery_lexeme(term: str) -> str:
    return "'" + term.replace("\\", "\\\\").replace("'", "''") + "'"


def clear_index(*, using: str = "default") -> None:
    """Empty the lexical and vector indexes and the term statistics (after the chunk table was flushed)."""
    conn = connections[using]
    with conn.cursor() as cur:
        if conn.vendor == "postgresql":
            cur.execute("TRUNCATE rag_chunk_tsv")
        else:
            cur.execute("INSERT INTO rag_chunk_fts (rag_chunk_fts) VALUES ('delete-all')")
        cur.execute("DELETE FROM rag_chunk_vec")
        # The vector generation counter survives (and moves), so no process keeps serving a stale matrix.
        cur.execute("DELETE FROM rag_search_term WHERE term <> %s", ["#vectors"])
        cur.execute(
            "INSERT INTO rag_search_term (term, df) VALUES ('#vectors', 1)"
            " ON CONFLICT (term) DO UPDATE SET df = rag_search_term.df + 1"
        )
