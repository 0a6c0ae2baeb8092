"""Lexical index: SQLite FTS5 or a PostgreSQL tsvector + GIN, plus the term statistics table.

Both indexes hold exactly the tokens of Chunk.search_text (jieba search mode, folded), so the
query side only has to tokenize the same way. Queries are built from tokens, each one quoted,
never from the raw question: FTS syntax in a question (quotes, NEAR, OR, *, ^, :) is inert.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, connections

from rag_app.pipeline.records import Scope
from rag_app.pipeline.textproc import glued_pieces, version_splits

from . import dense
from .planner import SEQSCAN_OFF, local_settings
from .scope import document_condition, permitted_chunks
from .scoring import CHUNKS_KEY, TOKENS_KEY, CorpusStats

# The MATCH / tsquery uses at most this many of a query's terms (the rarest ones); relevance
# is still computed over all of them. Bounds the cost of a pasted page of text.
MAX_MATCH_TERMS = 24
COMMON_SHARE = 0.05
COMMON_MIN_DF = 100  # small corpora: every term is matched
# The candidate query first takes this many best index rows (at least 4x the limit) and filters
# only those; the full query runs only when that cannot prove the same top-k (`_window`).
FTS_WINDOW = 200
# PostgreSQL orders chunk_ids by their bytes, as Python's sort (rule 3's tie-break) orders the strings, whatever
# the database's collation.
BYTE_ORDER = 'COLLATE "C"'


def _is_postgres() -> bool:
    return connection.vendor == "postgresql"


# --- writing (inside the ingest transaction) ------------------------------------------------


def index_rows(rows: Sequence[tuple[int, str]], *, counted: bool = True) -> None:
    """Add (chunk pk, search_text) rows to the index and, when `counted`, their terms to the statistics."""
    if not rows:
        return
    with connection.cursor() as cur:
        if _is_postgres():
            # The row's tie_key (its chunk's chunk_id, which the window orders ties by) is the database's to
            # write: a trigger copies it from the chunk table and refuses a chunk the table lacks (migration 0010).
            cur.executemany(
                "INSERT INTO rag_chunk_tsv (chunk_id, tsv)"
                " VALUES (%s, array_to_tsvector(array_remove(string_to_array(%s, ' '), '')))",
                list(rows),
            )
        else:
            cur.executemany("INSERT INTO rag_chunk_fts (rowid, search_text) VALUES (%s, %s)", list(rows))
        if counted:
            _add_term_stats(cur, [text for _, text in rows], sign=1)


def unindex_rows(rows: Sequence[tuple[int, str]], *, counted: bool = True) -> None:
    """Remove (chunk pk, search_text) rows that are in the index, and when `counted` their terms from the
    statistics; the chunk rows themselves stay."""
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
        if rows and counted:
            _add_term_stats(cur, [text for _, text in rows], sign=-1)


def uncount_rows(texts: Sequence[str]) -> None:
    """Take indexed rows' terms (their search_text) out of the statistics; the rows stay in the index."""
    if texts:
        with connection.cursor() as cur:
            _add_term_stats(cur, texts, sign=-1)


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


def read_unheld(terms: Sequence[str], stats: CorpusStats) -> tuple[list[str], CorpusStats]:
    """The question's terms with a term no chunk holds read as its parts where it has some:

    - a name run together with its version ("gplv3", "v2") as its parts (textproc.version_splits) when every part
      is indexed: the documents write "GPL", "version 3";
    - a Chinese word jieba's dictionary lacks, which its HMM glued out of single characters the question runs
      together ("7分算正常吗": 分算; "甲醇钠碰到水会怎样": 水会), as its dictionary pieces (textproc.glued_pieces)
      that some chunk holds, when there is one: the documents write "7分以上为正常", "遇水". A piece no chunk
      holds is left out when it is one character (the index never holds it as a word), kept otherwise.

    A term no chunk holds weighs the most in the question's yardstick, so left whole it would sink every
    candidate's relevance. Returns the terms and their stats."""
    versions = {t: r for t in terms if not stats.df.get(t) and (r := version_splits(t))}
    glued = {t: p for t in terms if t not in versions and not stats.df.get(t) and (p := glued_pieces(t))}
    if not versions and not glued:
        return list(terms), stats
    split_parts = (p for r in versions.values() for split in r for p in split)
    parts = corpus_stats(list(dict.fromkeys([*split_parts, *itertools.chain(*glued.values())])))
    out: list[str] = []
    for t in terms:
        if t in glued:
            held = [p for p in glued[t] if parts.df.get(p) or len(p) > 1]
            out.extend(held if any(parts.df.get(p) for p in held) else (t,))
            continue
        split = next((sp for sp in versions.get(t, ()) if all(parts.df.get(p) for p in sp)), (t,))
        out.extend(split)
    out = list(dict.fromkeys(out))
    df = {**stats.df, **parts.df}
    return out, CorpusStats(chunks=stats.chunks, tokens=stats.tokens, df={t: df.get(t, 0) for t in out})


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


def candidates(
    *, terms: Sequence[str], weights: dict[str, float], user: Any, limit: int, scope: Scope | None = None
) -> list[tuple[int, float]]:
    """(chunk pk, engine score) of searched, permitted chunks matching any term, best first.

    The permission and `searched` conditions are part of the query, so top-k is taken over
    what this user may see and never over versions no longer searched (indexing.settle_versions).
    """
    if not terms or limit <= 0:
        return []
    access_sql, access_params = document_condition(user, scope, document_alias="d")
    to_document = (
        " JOIN rag_app_documentversion v ON v.id = c.version_id JOIN rag_app_document d ON d.id = v.document_id"
    )
    joins = " JOIN rag_app_chunk c ON c.id = {key}" + to_document
    with connection.cursor() as cur:
        found = _window(
            cur, terms=terms, weights=weights, to_document=to_document, access=(access_sql, access_params), limit=limit
        )
        if found is not None:
            return found
        if _is_postgres():
            score, score_params = _tsv_score(terms, weights)
            sql = (
                f"SELECT t.chunk_id, {score} AS s FROM rag_chunk_tsv t"  # noqa: S608 - only placeholders
                + joins.format(key="t.chunk_id")
                + f" WHERE t.tsv @@ %s::tsquery AND v.searched AND {access_sql}"
                f" ORDER BY s DESC, c.chunk_id {BYTE_ORDER} LIMIT %s"
            )
            with local_settings(cur, SEQSCAN_OFF):  # as in the window (_pg_window)
                cur.execute(sql, [*score_params, _tsquery(terms), *access_params, limit])
                return [(int(pk), float(s)) for pk, s in cur.fetchall()]
        sql = (
            "SELECT f.rowid, -bm25(rag_chunk_fts) AS s FROM rag_chunk_fts f"  # noqa: S608 - only placeholders
            + joins.format(key="f.rowid")
            + f" WHERE rag_chunk_fts MATCH %s AND v.searched AND {access_sql}"
            " ORDER BY s DESC, c.chunk_id LIMIT %s"
        )
        cur.execute(sql, [_fts5_match(terms), *access_params, limit])
        return [(int(pk), float(s)) for pk, s in cur.fetchall()]


def _window(
    cur: Any,
    *,
    terms: Sequence[str],
    weights: dict[str, float],
    to_document: str,
    access: tuple[str, list[Any]],
    limit: int,
) -> list[tuple[int, float]] | None:
    """The exact answer of the full candidate query, read from the index's best-scored rows alone, or None.

    Joining every matching row (thousands at 100k chunks) to its chunk, version and document to
    check `searched` and the permission costs more than scoring them. So the index's best rows are
    taken on their own first (SQLite: FTS5's bm25 order; PostgreSQL: our term weights over the
    tsvector table alone, so the sort holds ids and scores, not whole rows), and only those are
    joined and filtered. 100k chunks, median: SQLite full query 38 ms, window 10 ms; PostgreSQL
    21 ms and 7 ms, p95 161 ms and 39 ms (docs/PERFORMANCE.md).
    The result equals the full query's whenever the window holds every match or, on PostgreSQL, whose
    window is cut in the full query's own order, whenever it holds `limit` permitted rows; on SQLite,
    whose bm25 order leaves ties unordered, when its `limit`-th permitted row scores strictly above the
    window's last row (then no row outside the window can reach the top `limit`, ties included).
    Otherwise None: the caller runs the full query.
    """
    window = max(FTS_WINDOW, 4 * limit)
    if _is_postgres():
        found = _pg_rare_window(cur, terms, weights, to_document, access, window, limit)
        if found is not None:
            return found
        count, low, rows = _pg_window(cur, terms, weights, to_document, access, window)
        # The window is the first `window` rows of the full query's own order, ties included.
        return _proved_top(rows, count=count, low=low, window=window, limit=limit, prefix=True)
    cur.execute(
        "SELECT rowid, -bm25(rag_chunk_fts) AS s FROM rag_chunk_fts"
        " WHERE rag_chunk_fts MATCH %s ORDER BY s DESC LIMIT %s",
        [_fts5_match(terms), window],
    )
    top = [(int(pk), float(s)) for pk, s in cur.fetchall()]
    if not top:
        return []
    count, low = len(top), top[-1][1]
    permitted = permitted_chunks(cur, [pk for pk, _ in top], access)
    score_of = dict(top)
    rows = [(score_of[pk], chunk_id, pk) for pk, chunk_id in permitted]
    return _proved_top(rows, count=count, low=low, window=window, limit=limit)


def _proved_top(
    rows: list[tuple[float, str, int]],
    *,
    count: int,
    low: float,
    window: int,
    limit: int,
    unmatched_max: float | None = None,
    prefix: bool = False,
) -> list[tuple[int, float]] | None:
    """The top `limit` of a window's permitted rows (score, chunk_id, pk) when they are provably the full
    query's, or None. `count` rows were in the window and the last scored `low`; `unmatched_max` is the
    most a row the window's match left out can score (None: the window matched every term). `prefix`: the
    window was cut in the full query's order, equal scores by chunk_id (PostgreSQL), so every row it left out
    comes after all of its own and `limit` permitted rows prove the top-k, ties at its edge included;
    otherwise (FTS5's bm25 order, which does not order ties by chunk_id) the `limit`-th must score above
    the window's last row."""
    kept = sorted(rows, key=_best_first)[:limit]
    full = len(kept) == limit
    if unmatched_max is not None and not (full and kept[-1][0] > unmatched_max):
        return None
    if count < window or (full and (prefix or kept[-1][0] > low)):
        return [(pk, s) for s, _, pk in kept]
    return None


def _pg_rare_window(
    cur: Any,
    terms: Sequence[str],
    weights: dict[str, float],
    to_document: str,
    access: tuple[str, list[Any]],
    window: int,
    limit: int,
) -> list[tuple[int, float]] | None:
    """PostgreSQL: the window over the rows holding one of the question's rarer terms only, when that
    proves the top-k, or None.

    The commonest terms (the lowest weights, summing to under a third of the whole) match most of the
    rows that cost the window its time. A row that holds none of the other terms scores at most their
    sum, so when the `limit`-th permitted row of the rarer terms' window scores above that sum (and the
    window proves its own cut as usual), no row left out can reach the top `limit` (the "max score"
    bound of search engines). 75 captured windows at 100k chunks: p50 10.1 -> 4.7 ms, p95 56.6 -> 13.7
    ms, 63 of them proved this way (docs/PERFORMANCE.md)."""
    total = sum(weights.get(t, 1.0) for t in terms)
    common: list[str] = []
    bound = 0.0
    for term in sorted(terms, key=lambda t: (weights.get(t, 1.0), t)):
        if bound + weights.get(term, 1.0) >= total / 3:
            break
        common.append(term)
        bound += weights.get(term, 1.0)
    if not common:
        return None
    rare = [t for t in terms if t not in common]
    count, low, rows = _pg_window(cur, terms, weights, to_document, access, window, match=rare)
    # The database sums a row's weights in the question's order, this bound in another: the same terms' sum can
    # come out an ulp apart, so the bound is widened by far more than that (a tie at it then runs the full query).
    bound *= 1 + 1e-9
    return _proved_top(rows, count=count, low=low, window=window, limit=limit, unmatched_max=bound, prefix=True)


def _pg_window(
    cur: Any,
    terms: Sequence[str],
    weights: dict[str, float],
    to_document: str,
    access: tuple[str, list[Any]],
    window: int,
    *,
    match: Sequence[str] | None = None,
) -> tuple[int, float, list[tuple[float, str, int]]]:
    """PostgreSQL, one statement: (rows in the window, the window's lowest score, its permitted rows as
    (score, chunk_id, pk)). The window is scored on the tsvector table alone, so its sort holds ids, keys
    and scores, not whole rows; it is cut in the full query's order (score, then chunk_id: the index row's
    `tie_key`, migration 0010), so it is a prefix of that order. It reads the rows that hold one of `match`
    (default: every term), each scored over all of `terms`."""
    access_sql, access_params = access
    score, score_params = _tsv_score(terms, weights)
    sql = (
        "WITH top AS MATERIALIZED ("  # noqa: S608 - only placeholders
        f"SELECT t.chunk_id AS id, {score} AS s FROM rag_chunk_tsv t WHERE t.tsv @@ %s::tsquery"
        f" ORDER BY s DESC, t.tie_key {BYTE_ORDER} LIMIT %s), edge AS (SELECT count(*) AS n, min(s) AS low FROM top)"
        " SELECT edge.n, edge.low, kept.s, kept.chunk_id, kept.id FROM edge LEFT JOIN ("
        " SELECT top.id, top.s, c.chunk_id FROM top JOIN rag_app_chunk c ON c.id = top.id"
        + to_document
        + f" WHERE v.searched AND {access_sql}) kept ON true"
    )
    # With a common term among thousands of matches the planner chose a parallel sequential scan of the
    # whole table (up to 200 ms at 100k chunks); the GIN bitmap reads only the matching rows (75 captured
    # queries at 100k: p95 46 -> 38 ms, worst 218 -> 66 ms, docs/PERFORMANCE.md).
    with local_settings(cur, SEQSCAN_OFF):
        cur.execute(sql, [*score_params, _tsquery(terms if match is None else match), window, *access_params])
        found = cur.fetchall()
    count, low = int(found[0][0]), float(found[0][1] or 0.0)
    return count, low, [(float(s), str(chunk_id), int(pk)) for _, _, s, chunk_id, pk in found if pk is not None]


def _tsv_score(terms: Sequence[str], weights: dict[str, float]) -> tuple[str, list[Any]]:
    """PostgreSQL: the sum of the weights of the terms a row's tsvector holds, as SQL and its parameters.
    The weights are summed as float8: a float bound on the client side arrives as a numeric literal, and
    numeric sums over the window's rows cost 17% of its time (140 windows at 100k chunks, each run twice:
    p50 5.22 -> 4.44 ms, the same rows in the same order; docs/PERFORMANCE.md, session 22)."""
    params: list[Any] = []
    for term in terms:
        params += [_tsquery_lexeme(term), weights.get(term, 1.0)]
    return " + ".join(["(CASE WHEN t.tsv @@ %s::tsquery THEN %s::float8 ELSE 0 END)"] * len(terms)), params


def _tsquery(terms: Sequence[str]) -> str:
    return " | ".join(_tsquery_lexeme(t) for t in terms)


def _fts5_match(terms: Sequence[str]) -> str:
    return " OR ".join(_fts5_phrase(t) for t in terms)


def _best_first(row: tuple[float, str, int]) -> tuple[float, str]:
    return (-row[0], row[1])


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
        # The vector generation mark survives (and moves), so no process keeps serving a stale matrix.
        cur.execute("DELETE FROM rag_search_term WHERE term <> %s", [dense.GENERATION_KEY])
        dense.bump_generation(cur)
