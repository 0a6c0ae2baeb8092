"""Row locks a writer takes on rows it points at but does not change (one rule for both databases).

`key_share(model, pks)`: inside a transaction, the rows that still exist, held until commit. On PostgreSQL this is
`FOR KEY SHARE`, the lock a foreign-key check takes: other writers that point at the same rows go on, a delete of
one waits for this commit (and then sees the rows that point at it). SQLite runs one writer at a time: a read.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection, models


def key_share(model: type[models.Model], pks: Iterable[int]) -> set[int]:
    keys = sorted({int(pk) for pk in pks})
    if not keys:
        return set()
    if connection.vendor != "postgresql":
        return set(model._default_manager.filter(pk__in=keys).values_list("pk", flat=True))
    table = connection.ops.quote_name(model._meta.db_table)
    marks = ", ".join(["%s"] * len(keys))
    with connection.cursor() as cur:
        cur.execute(f"SELECT id FROM {table} WHERE id IN ({marks}) FOR KEY SHARE", keys)  # noqa: S608 - a model's table
        return {int(row[0]) for row in cur.fetchall()}
