"""`manage.py check --database default`: stored rows that break today's input rules.

Rows written before a rule existed are not changed behind anyone's back; this check names them so
an admin can re-ingest them under a valid source_id (docs/SECURITY.md).
"""

from __future__ import annotations

from typing import Any

from django.core import checks
from django.db import DatabaseError

from rag_app.validation import canonical_source_id, source_id_problem


@checks.register(checks.Tags.database)
def source_ids_valid(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if not databases:
        return []  # database checks run only when asked for (`check --database default`)
    from rag_app.models import Document

    problems: list[checks.CheckMessage] = []
    try:
        rows = list(Document.objects.values_list("pk", "source_id"))
    except DatabaseError:  # not migrated yet: nothing to check
        return []
    for pk, source_id in rows:
        problem = source_id_problem(source_id)
        if problem is None and source_id != canonical_source_id(source_id):
            problem = "it is not in the form ids are stored and looked up in (Unicode NFC): no page or command finds it"
        if problem is not None:
            problems.append(
                checks.Warning(
                    f"document {pk} has the source_id {source_id!r}: {problem}",
                    hint="Re-ingest it under a valid source_id; pages that link to it cannot be built.",
                    obj=f"Document {pk}",
                    id="rag_app.W001",
                )
            )
    return problems
