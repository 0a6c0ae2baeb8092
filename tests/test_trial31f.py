"""Trial 31f: a team lead whose deployment grew (1,500 documents, 20 groups, 5,000 answers) wants every list to stay
as fast at that size as on the first day. Each test counts the SQL statements one request makes at two sizes: a count
that grows with the rows is a statement per row (N+1), so the assertion is that it does not grow (never a clock).

The app's own pages and API lists (library, picker, review queue and its filters, history, levels page, upload jobs,
provenance, answers, documents, versions, ingest jobs) measured flat at 3 and 18 rows; these are what did not.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from rag_app.models import Document, LevelChange
from tests import factories
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db

SLUGS = ("official", "reviewed", "note")


def statements(client: Client, method: str, url: str, data: dict[str, object] | None = None) -> int:
    """How many SQL statements one request makes (after a first request has warmed the session)."""
    if method == "get":
        client.get(url)
    with CaptureQueriesContext(connection) as ctx:
        response = client.get(url) if method == "get" else client.post(url, data or {})
    assert response.status_code in (200, 302), response.status_code
    return len(ctx.captured_queries)


def add_documents(start: int, count: int, *, versions: int = 1) -> list[Document]:
    docs = []
    for i in range(start, start + count):
        for v in range(versions):
            factories.ingest_text(
                f"Policy {i} says refunds take {i + v} days.", source_id=f"policy-{i}", level=SLUGS[i % 3]
            )
        docs.append(Document.objects.get(source_id=f"policy-{i}"))
    return docs


@pytest.fixture
def admin(levels):
    return factories.make_admin()


def test_the_bulk_level_preview_does_not_read_each_documents_level_alone(admin):
    """Choosing 1,500 documents and a level shows what will change: one SELECT per document's level before."""
    client = client_for(admin)
    url = reverse("document_levels")
    few = [d.pk for d in add_documents(0, 3)]
    small = statements(client, "post", url, {"documents": few, "level": "note"})
    many = few + [d.pk for d in add_documents(3, 15)]
    large = statements(client, "post", url, {"documents": many, "level": "note"})
    assert large == small


def test_the_levels_pages_change_log_reaches_every_change(admin):
    """README: "every change is recorded". One bulk change of 150 documents writes 150 rows: the change log showed
    the newest 100 and nothing said more existed, so every earlier change was out of the admin's reach."""
    LevelChange.objects.create(user=admin, field="level.weight", old_value="1", new_value="the-oldest-change")
    LevelChange.objects.bulk_create(
        LevelChange(user=admin, field="level.weight", old_value="1", new_value=f"w{i}") for i in range(150)
    )
    client = client_for(admin)
    page = client.get(reverse("levels")).content.decode()
    assert "the-oldest-change" not in page  # newest first, a page at a time
    seen = page
    for _ in range(5):  # follow the change log's "next" links
        found = re.search(r'href="\?([^"]*changes_page=\d+[^"]*)"[^>]*>[^<]*next', page)
        if not found:
            break
        page = client.get(reverse("levels") + "?" + found.group(1).replace("&amp;", "&")).content.decode()
        seen += page
    assert "the-oldest-change" in seen


def test_a_confirmed_bulk_level_change_writes_in_statements_that_do_not_grow_with_the_documents(admin):
    """Setting 1,500 documents to a level took five statements per document (savepoint, lock, update, audit row,
    release). Each changed document still gets its own audit row, and one already at the level none."""
    client = client_for(admin)
    url = reverse("document_levels")
    few = [d.pk for d in add_documents(0, 3)]
    small = statements(client, "post", url, {"documents": few, "level": "note", "confirm": "yes"})
    docs = add_documents(3, 15)
    to_change = [d for d in docs if d.level.slug != "note"]
    large = statements(client, "post", url, {"documents": [d.pk for d in docs], "level": "note", "confirm": "yes"})
    assert large == small
    assert set(Document.objects.filter(pk__in=[d.pk for d in docs]).values_list("level__slug", flat=True)) == {"note"}
    rows = LevelChange.objects.filter(field="document.level", document__in=docs)
    assert sorted((r.document_id, r.old_value, r.new_value, r.user_id) for r in rows) == sorted(
        (d.pk, d.level.slug, "note", admin.pk) for d in to_change
    )


def test_the_admin_document_list_does_not_read_each_current_version_alone(admin):
    client = client_for(admin)
    url = reverse("admin:rag_app_document_changelist")
    add_documents(0, 3)
    small = statements(client, "get", url)
    add_documents(3, 15)
    assert statements(client, "get", url) == small


def test_the_admin_document_page_does_not_read_the_document_per_version(admin):
    client = client_for(admin)
    few = add_documents(0, 1, versions=2)[0]
    many = add_documents(1, 1, versions=12)[0]
    small = statements(client, "get", reverse("admin:rag_app_document_change", args=[few.pk]))
    assert statements(client, "get", reverse("admin:rag_app_document_change", args=[many.pk])) == small


def test_the_admin_level_list_counts_documents_in_one_statement(admin):
    client = client_for(admin)
    url = reverse("admin:rag_app_sourcelevel_changelist")
    small = statements(client, "get", url)
    for i in range(12):
        factories.make_level(f"extra-{i}", weight=float(i))
    assert statements(client, "get", url) == small


def test_the_change_logs_pager_keeps_the_document_search_and_page(admin):
    """Paging the change log leaves the documents' search and page as the admin had them (and the reverse keeps the
    log's own page out of the documents' links, as before)."""
    LevelChange.objects.bulk_create(
        LevelChange(user=admin, field="level.weight", old_value="1", new_value=f"w{i}") for i in range(101)
    )
    page = client_for(admin).get(reverse("levels"), {"q": "policy", "page": "1"}).content.decode()
    assert 'href="?q=policy&amp;page=1&amp;changes_page=2"' in page
    assert "page 1 of 2" in page
