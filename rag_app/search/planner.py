"""PostgreSQL settings for the statements of one block: set, then restored, whatever encloses it.

`SET LOCAL` lasts to the end of the transaction and does nothing outside one (an ask runs in
autocommit). Inside a caller's transaction it would also outlive the block. So the block runs in
its own transaction or savepoint, and the earlier values are put back when it ends; if the block
fails, rolling back its savepoint restores them.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import transaction


@contextmanager
def local_settings(cur: Any, values: dict[str, str]) -> Iterator[None]:
    names = list(values)
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
