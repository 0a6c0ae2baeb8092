"""The asker's chosen scope as a SQL condition, ANDed with the visibility rule inside the index query.

Scope narrows; it never widens: rag_app.access decides what may be read, and this only keeps the
part of it the asker chose (levels, access groups, documents), before top-k like the rule itself.
Retired documents (Document.retired_at set) are left out here too: retirement is not visibility
(they stay readable), only retrieval.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group

from rag_app.access import sql_condition
from rag_app.models import Document, SourceLevel
from rag_app.pipeline.records import Scope


def _marks(values: tuple[str, ...]) -> str:
    return ", ".join(["%s"] * len(values))


def scope_condition(scope: Scope | None, *, document_alias: str = "d") -> tuple[str, list[Any]]:
    """(SQL boolean over the documents table aliased `document_alias`, params); "1 = 1" when unscoped."""
    if scope is None or scope.is_empty:
        return "1 = 1", []
    parts: list[str] = []
    params: list[Any] = []
    d = document_alias
    if scope.levels:
        levels = SourceLevel._meta.db_table
        parts.append(f"{d}.level_id IN (SELECT sl.id FROM {levels} sl WHERE sl.slug IN ({_marks(scope.levels)}))")  # noqa: S608
        params += list(scope.levels)
    if scope.groups:
        links, groups = Document.groups.through._meta.db_table, Group._meta.db_table
        parts.append(
            f"EXISTS (SELECT 1 FROM {links} sg JOIN {groups} g ON g.id = sg.group_id"  # noqa: S608
            f" WHERE sg.document_id = {d}.id AND g.name IN ({_marks(scope.groups)}))"
        )
        params += list(scope.groups)
    if scope.documents:
        parts.append(f"{d}.source_id IN ({_marks(scope.documents)})")
        params += list(scope.documents)
    return "(" + " AND ".join(parts) + ")", params


def active_condition(*, document_alias: str = "d") -> str:
    """Not retired: a retired document stays readable (rag_app.access) but is never retrieved."""
    return f"{document_alias}.retired_at IS NULL"


def document_condition(user: Any, scope: Scope | None, *, document_alias: str = "d") -> tuple[str, list[Any]]:
    """What search may return for this asker: the visibility rule AND the chosen scope AND not retired.

    All three are inside the index query, so top-k is taken over active documents only.
    """
    access_sql, access_params = sql_condition(user, document_alias=document_alias)
    scope_sql, scope_params = scope_condition(scope, document_alias=document_alias)
    active_sql = active_condition(document_alias=document_alias)
    if scope_sql == "1 = 1":
        return f"({access_sql} AND {active_sql})", access_params
    return f"({access_sql} AND {scope_sql} AND {active_sql})", [*access_params, *scope_params]


def permitted_chunks(cur: Any, pks: list[int], condition: tuple[str, list[Any]]) -> list[tuple[int, str]]:
    """(pk, chunk_id) of the chunks among `pks` that are searched and pass `condition` (document_condition's
    SQL over the documents aliased "d"): how a search filters the best rows of an index it read first.

    On SQLite the join order is pinned with CROSS JOIN: chunk by id, then its version, then its document.
    Left to itself (no ANALYZE statistics), the planner starts from the documents through the retired_at
    index ("retired_at IS NULL" holds for nearly all of them, but an indexed equality looks selective) and
    walks every document's chunks: 300 ms instead of 2 ms at 100k chunks, in the lexical window and in the
    vector search alike (docs/PERFORMANCE.md). PostgreSQL allows no ON after CROSS JOIN and plans well.
    """
    if not pks:
        return []
    join = " CROSS JOIN " if cur.db.vendor == "sqlite" else " JOIN "
    sql_condition_, params = condition
    cur.execute(
        "SELECT c.id, c.chunk_id FROM rag_app_chunk c"  # noqa: S608 - only placeholders
        f"{join}rag_app_documentversion v ON v.id = c.version_id{join}rag_app_document d ON d.id = v.document_id"
        f" WHERE c.id IN ({', '.join(['%s'] * len(pks))}) AND v.searched AND {sql_condition_}",
        [*pks, *params],
    )
    return [(int(pk), str(chunk_id)) for pk, chunk_id in cur.fetchall()]
