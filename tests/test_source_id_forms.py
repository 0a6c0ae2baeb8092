"""A source_id is one document whatever Unicode form it arrives in (NFC, as typed; NFD, as macOS names files).

rag_app.models.SourceIdField stores and looks up every id in NFC (validation.canonical_source_id); these tests take
the decomposed spelling through each entry point (CLI, API, page, scope, queued jobs) and the check that names rows
stored in another form before the rule.
"""

from __future__ import annotations

import unicodedata
from io import StringIO
from pathlib import Path
from urllib.parse import quote

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client

from rag_app.ingest.service import IngestError
from rag_app.models import Answer, Chunk, Document, DocumentVersion
from rag_app.services.ingest_jobs import ingest_jobs_submit
from tests import factories

pytestmark = pytest.mark.django_db

COMPOSED = unicodedata.normalize("NFC", "policies/Müller-Reisekosten")
DECOMPOSED = unicodedata.normalize("NFD", COMPOSED)


api_for = factories.token_client


def test_the_two_spellings_differ():
    assert COMPOSED != DECOMPOSED and len(DECOMPOSED) == len(COMPOSED) + 1


def test_an_ingest_under_the_decomposed_spelling_stores_and_chunks_the_composed_one(levels):
    factories.make_document("Travel costs are refunded within 30 days.", source_id=DECOMPOSED)
    assert list(Document.objects.values_list("source_id", flat=True)) == [COMPOSED]
    assert all(c.startswith(COMPOSED + ":v1:") for c in Chunk.objects.values_list("chunk_id", flat=True))


def test_the_cli_makes_a_new_version_whichever_spelling_names_the_file(tmp_path: Path, levels):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    (first / f"{COMPOSED.rsplit('/', 1)[1]}.txt").write_text("Refunds within 30 days.\n", encoding="utf-8")
    (second / f"{DECOMPOSED.rsplit('/', 1)[1]}.txt").write_text("Refunds within 45 days.\n", encoding="utf-8")
    call_command("ingest", str(first), stdout=StringIO(), stderr=StringIO())
    call_command("ingest", str(second), stdout=StringIO(), stderr=StringIO())
    assert Document.objects.count() == 1
    assert DocumentVersion.objects.filter(is_current=True).get().version == 2


def test_api_and_viewer_find_the_document_by_either_spelling(admin_user_role, staff_user, levels):
    factories.make_document("Travel costs are refunded within 30 days.", source_id=COMPOSED)
    client = api_for(staff_user)
    for spelling in (COMPOSED, DECOMPOSED):
        response = client.get(f"/api/v1/documents/{quote(spelling)}")
        assert response.status_code == 200, (spelling, response.content)
        assert response.json()["source_id"] == COMPOSED
    page = Client()
    page.force_login(staff_user)
    response = page.get(f"/documents/{quote(DECOMPOSED)}/v1/")
    assert response.status_code == 200
    assert "refunded within 30 days" in response.content.decode()


def test_a_scope_may_name_the_document_in_either_spelling(staff_user, levels):
    factories.make_document("Travel costs are refunded within 30 days.", source_id=COMPOSED)
    factories.make_document("Parking permits are renewed every March.", source_id="notes/parking")
    response = api_for(staff_user).post(
        "/api/v1/ask",
        {"question": "When are travel costs refunded?", "scope": {"documents": [DECOMPOSED]}},
        format="json",
    )
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["scope"]["documents"] == [COMPOSED]
    assert body["state"] == "answered"
    assert {s["source_id"] for s in body["sources"]} == {COMPOSED}

    page = Client()
    page.force_login(staff_user)
    response = page.post("/", {"question": "When are travel costs refunded?", "scope_documents": [DECOMPOSED]})
    html = response.content.decode()
    assert response.status_code in (200, 302) and "errorlist" not in html, html[:2000]
    assert Answer.objects.latest("pk").scope["documents"] == [COMPOSED]


def test_two_files_of_one_upload_named_in_the_two_spellings_are_refused_as_one_name(admin_user_role, levels):
    files = [
        {"file_name": f"{name}.txt", "size": 10, "read": lambda: b"Refunds.\n"}
        for name in ("Müller", unicodedata.normalize("NFD", "Müller"))
    ]
    with pytest.raises(IngestError) as refused:
        ingest_jobs_submit(user=admin_user_role, files=files)
    assert refused.value.code == "duplicate_source_id"


def test_an_api_upload_under_the_decomposed_spelling_is_a_new_version(admin_user_role, levels):
    client = api_for(admin_user_role)
    for source_id, days in ((COMPOSED, 30), (DECOMPOSED, 45)):
        response = client.post(
            "/api/v1/documents/?wait=1",
            {"file": SimpleUploadedFile("r.txt", f"Refunds within {days} days.\n".encode()), "source_id": source_id},
            format="multipart",
        )
        assert response.status_code in (200, 201), response.content
        assert response.json()["source_id"] == COMPOSED
    assert DocumentVersion.objects.get(is_current=True).version == 2


def test_the_check_names_a_row_stored_in_another_form_before_the_rule(levels):
    with connection.cursor() as cursor:  # as an older release wrote it; today's field would compose it
        cursor.execute(
            "INSERT INTO rag_app_document (source_id, title, url, created_at, updated_at)"
            " VALUES (%s, '', '', CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)",
            [DECOMPOSED],
        )
    out = StringIO()
    call_command("check", "--database", "default", stdout=out, stderr=out)
    assert "rag_app.W001" in out.getvalue() and "NFC" in out.getvalue()
