"""`manage.py check --database default`: stored rows that break today's input rules, or that an upgrade left behind.

Rows written before a rule existed are not changed behind anyone's back; these checks name them so an admin can
re-ingest them under a valid source_id (docs/SECURITY.md), replace an access group, or re-index (docs/DEPLOYMENT.md).
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


@checks.register(checks.Tags.database)
def no_role_group_as_access_group(
    app_configs: Any = None, databases: Any = None, **kwargs: Any
) -> list[checks.CheckMessage]:
    """A role group is never a document's access group (access.check_access_groups refuses one on every path); a
    document given one before the rule keeps it, which restricts it in a way no one means. Named here, up to 10."""
    if not databases:
        return []
    from rag_app.access import ROLES
    from rag_app.models import Document

    try:
        source_ids = list(
            Document.objects.filter(groups__name__in=ROLES)
            .distinct()
            .order_by("source_id")
            .values_list("source_id", flat=True)
        )
    except DatabaseError:
        return []
    if not source_ids:
        return []
    shown = ", ".join(repr(source_id) for source_id in source_ids[:10])
    more = f" and {len(source_ids) - 10} more" if len(source_ids) > 10 else ""
    return [
        checks.Warning(
            f"{len(source_ids)} document(s) have a role group ({', '.join(ROLES)}) among their access groups:"
            f" {shown}{more}. A role group gives its members a role, never access to documents.",
            hint="An administrator should replace it with an access group (or none, for all staff) on the documents"
            " page or in the Django admin.",
            obj="Document.groups",
            id="rag_app.W002",
        )
    ]


# How many searched chunks the index check reads, spread evenly over the table: about 2 ms each (jieba and the
# initialisms), so well under a second after the tokenizer has loaded. An upgrade that changes how chunks are indexed
# changes a share of them (the `car`-style initialisms of session 42 changed 28 of 325 workplace chunks), which a sample
# of this size finds; `rag_reindex --check` reads every chunk.
INDEX_SAMPLE = 200


@checks.register(checks.Tags.database)
def index_in_current_form(app_configs: Any = None, databases: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """A corpus indexed by an older release (a tokenizer, an initialism or the indexed context changed since) is
    searched by the words it was indexed with, not the ones this release reads in it; named here until `rag_reindex`
    runs."""
    if not databases:
        return []
    from rag_app.search.indexing import stale_index

    try:
        found = stale_index(sample=INDEX_SAMPLE)
    except DatabaseError:
        return []
    if not found.stale:
        return []
    of = f"{found.stale} of the {found.read} searched chunks read" + (
        f" (an even sample of {found.total})" if found.read < found.total else ""
    )
    return [
        checks.Warning(
            f"{of} are indexed in another form than this release indexes them, e.g. {', '.join(found.examples)}:"
            " searches miss words these chunks hold, or find words they no longer hold.",
            hint="Run `manage.py rag_reindex` (after every upgrade; `rag_reindex --check` counts every such chunk"
            " without writing).",
            obj="Chunk.search_text",
            id="rag_app.W003",
        )
    ]
