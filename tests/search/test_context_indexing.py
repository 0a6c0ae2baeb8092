"""Chunks are indexed with their document's title and section path (and re-indexed by a command)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import call_command

from rag_app.models import Chunk
from rag_app.search.hybrid import search
from rag_app.search.indexing import chunk_context, passage_text
from tests import factories

pytestmark = pytest.mark.django_db


def test_the_context_is_the_title_and_the_breadcrumb_without_repeating_the_title() -> None:
    assert chunk_context("Apache License 2.0", "4. Redistribution") == "Apache License 2.0 > 4. Redistribution"
    assert chunk_context("Refund policy", "Refund policy > Exceptions") == "Refund policy > Exceptions"
    assert chunk_context("", "") == "" and passage_text("", "text") == "text"
    assert passage_text("Title", "text") == "Title\ntext"


def test_words_only_in_the_title_find_the_chunk(levels) -> None:
    """ "Zanzibar" is only in the title: the chunk is found by it, and its stored text is unchanged."""
    factories.ingest_text("There is no warranty for the program.", source_id="lic", title="Zanzibar Public Licence")
    chunk = Chunk.objects.get()
    assert chunk.text == "There is no warranty for the program."
    assert "zanzibar" in chunk.search_text.split()
    assert [r.source_id for r in search(user=None, question="zanzibar", limit=5)] == ["lic"]


def test_rag_reindex_brings_an_old_index_up_to_date(levels) -> None:
    """A chunk indexed without its title (as before this change) is found by the title after the command."""
    from rag_app.search import lexical

    factories.ingest_text("There is no warranty for the program.", source_id="lic", title="Zanzibar Public Licence")
    chunk = Chunk.objects.get()
    old = " ".join(t for t in chunk.search_text.split() if t not in {"zanzibar", "public", "licence"})
    lexical.unindex_rows([(chunk.pk, chunk.search_text)])
    lexical.index_rows([(chunk.pk, old)])
    Chunk.objects.filter(pk=chunk.pk).update(search_text=old)
    assert search(user=None, question="zanzibar", limit=5) == []
    out = StringIO()
    call_command("rag_reindex", stdout=out, stderr=StringIO())
    assert "re-indexed 1 chunks" in out.getvalue()
    assert [r.source_id for r in search(user=None, question="zanzibar", limit=5)] == ["lic"]
    call_command("rag_reindex", stdout=(again := StringIO()), stderr=StringIO())
    assert "re-indexed 0 chunks" in again.getvalue()  # idempotent
