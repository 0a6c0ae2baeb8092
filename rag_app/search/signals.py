"""Keep the raw search tables in step with `flush` (tests, `manage.py flush`).

flush empties Django's tables but not these (they are not models). It emits post_migrate
afterwards, so when the chunk table is empty the index and term statistics are emptied too.
"""

from __future__ import annotations

from typing import Any

from django.db import connections
from django.db.models.signals import post_migrate


def clear_orphaned_index(sender: Any, using: str = "default", **kwargs: Any) -> None:
    if getattr(sender, "name", None) != "rag_app":
        return
    from rag_app.models import Chunk

    from .lexical import clear_index

    connection = connections[using]
    if "rag_search_term" not in connection.introspection.table_names():
        return
    if not Chunk.objects.using(using).exists():
        clear_index(using=using)


def connect() -> None:
    post_migrate.connect(clear_orphaned_index, dispatch_uid="rag_search_clear_orphaned_index")
