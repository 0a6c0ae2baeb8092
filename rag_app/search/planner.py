"""PostgreSQL settings for the statements of one block: set, then restored, whatever encloses it.

`SET LOCAL` lasts to the end of the transaction and does nothing outside one (an ask runs in
autocommit). Inside a caller's transaction it would also outlive the block. So the block runs in
its own transaction or savepoint, and the earlier values are put back when it ends; if the block
fails, rolling back its savepoint restores them.

Retrieval reads through indexes: the lexical window through the GIN index (`enable_seqscan` off;
with a common term the planner otherwise scans the whole tsvector table in parallel), the vector
search through HNSW with the permission filter inside the scan (`hnsw.iterative_scan`). Each query
asks for what it needs; `hybrid.search` sets both once around all of its reads (INDEX_READS), and a
block inside a block that already holds its values costs nothing.
"""

from __future__ import annotations

import contextvars
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection, transaction

SEQSCAN_OFF = {"enable_seqscan": "off"}
HNSW_FILTERED = {"hnsw.iterative_scan": "relaxed_order"}
INDEX_READS = {**SEQSCAN_OFF, **HNSW_FILTERED}

# The values set by the enclosing blocks of this thread (or task), on their connection.
_active: contextvars.ContextVar[tuple[Any, dict[str, str]]] = contextvars.ContextVar("planner_settings")


@contextmanager
def local_settings(cur: Any, values: dict[str, str]) -> Iterator[None]:
    enclosing = _active.get((None, {}))
    held = enclosing[1] if enclosing[0] is connection.connection else {}
    names = [name for name, value in values.items() if held.get(name) != value]
    if not names:
        yield
        return
    token = _active.set((connection.connection, {**held, **values}))
    try:
        with _settings(cur, names, values):
            yield
    finally:
        _active.reset(token)


@contextmanager
def _settings(cur: Any, names: list[str], values: dict[str, str]) -> Iterator[None]:
    nested = transaction.get_connection().in_atomic_block
    with transaction.atomic():
        if not nested:  # the block's own transaction: its end discards the values, nothing to put back
            cur.execute(
                "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in names),
                [x for name in names for x in (name, values[name])],
            )
            yield
            return
        # One round trip reads each earlier value and sets the new one (select items run left to right).
        cur.execute(
            "SELECT " + ", ".join("current_setting(%s, true), set_config(%s, %s, true)" for _ in names),
            [x for name in names for x in (name, name, values[name])],
        )
        row = cur.fetchone()
        # An extension's setting is unknown (NULL) until its library loads, pgvector's at the first ::vector
        # of the connection. There is no earlier value to put back then: it ends with the transaction.
        before = [(name, row[2 * i]) for i, name in enumerate(names) if row[2 * i] is not None]
        yield
        if before:
            cur.execute(
                "SELECT " + ", ".join("set_config(%s, %s, true)" for _ in before),
                [x for pair in before for x in pair],
            )
