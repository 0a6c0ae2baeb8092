"""Migrations of session 30, on the database the suite runs on (SQLite, or PostgreSQL with RAG_TEST_DB=postgres).

0017: the versions retrieval reads (`searched`) start as the current ones, which were the only ones indexed."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from tests.migrating import migrate_to

BEFORE_SEARCHED = ("rag_app", "0016_citation_level_as_answered")


@pytest.mark.django_db(transaction=True)
def test_0017_searches_the_current_versions_and_no_other() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    apps = migrate_to([BEFORE_SEARCHED])
    try:
        Document, DocumentVersion = apps.get_model("rag_app", "Document"), apps.get_model("rag_app", "DocumentVersion")
        doc = Document.objects.create(source_id="refunds")
        old, current = (
            DocumentVersion.objects.create(document=doc, version=n, sha256=str(n), text="t", is_current=n == 2).pk
            for n in (1, 2)
        )
        DocumentVersion = migrate_to(latest).get_model("rag_app", "DocumentVersion")
        got = {v.pk: (v.searched, v.superseded_on) for v in DocumentVersion.objects.all()}
        assert got == {old: (False, None), current: (True, None)}
    finally:
        migrate_to(latest)
        apps = MigrationExecutor(connection).loader.project_state(latest).apps
        apps.get_model("rag_app", "Document").objects.filter(source_id="refunds").delete()
