"""Trial 30d: a developer integrating with the REST API and the operator at the command line.

Each test is a defect found by driving the running app (`make run`, token auth, the published OpenAPI schema) and the
commands the README prints. Each asserts the behaviour the README and docs/ describe, and is a strict xfail until it is
fixed.
"""

from __future__ import annotations

import unicodedata
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app import services
from rag_app.models import Document
from tests import factories

pytestmark = pytest.mark.django_db


def api_for(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def test_ingest_refuses_an_unknown_group_as_the_api_does(tmp_path: Path, levels, admin_user_role, staff_user):
    path = tmp_path / "parking.txt"
    path.write_text("Parking permits are renewed every March.\n", encoding="utf-8")
    call_command("ingest", str(path), stdout=StringIO(), stderr=StringIO())  # open to all staff
    assert Document.objects.get(source_id="parking.txt").groups.count() == 0

    # The API's answer to the same bad input: 400 naming the field, nothing changed.
    response = api_for(admin_user_role).post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("parking.txt", b"Parking permits are renewed every March.\n"), "groups": "finanse"},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert "groups" in response.json()["fields"]

    # The command line with the same typo.
    failed = False
    try:
        call_command("ingest", str(path), "--group", "finanse", stdout=StringIO(), stderr=StringIO())
    except CommandError:
        failed = True
    assert failed, "an unknown --group is not refused"
    assert not Group.objects.filter(name="finanse").exists()
    assert Document.objects.get(source_id="parking.txt").groups.count() == 0


def test_a_source_id_spelled_in_another_unicode_normal_form_is_the_same_document(admin_user_role, levels):
    composed = unicodedata.normalize("NFC", "policies/Müller-Reisekosten")
    decomposed = unicodedata.normalize("NFD", composed)
    assert composed != decomposed
    client = api_for(admin_user_role)
    first = client.post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("r.txt", b"Travel costs are refunded within 30 days.\n"), "source_id": composed},
        format="multipart",
    )
    assert first.status_code == 201, first.content
    second = client.post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("r.txt", b"Travel costs are refunded within 45 days.\n"), "source_id": decomposed},
        format="multipart",
    )
    # Either a new version of the same document, or a refusal: never a second, indistinguishable document.
    assert second.status_code in (200, 201, 400), second.content
    looks_the_same = [
        d for d in Document.objects.values_list("source_id", flat=True) if unicodedata.normalize("NFC", d) == composed
    ]
    assert len(looks_the_same) == 1, looks_the_same


def test_the_406_every_operation_answers_is_in_the_schema(staff_user, reviewer_user, levels):
    factories.make_document(source_id="notes/parking", text="Parking permits are renewed every March.")
    schema = yaml.safe_load(api_for(staff_user).get("/api/v1/schema/").content)
    probes = [
        (staff_user, "/api/v1/documents/", "get", "/api/v1/documents/"),
        (staff_user, "/api/v1/documents/notes/parking", "get", "/api/v1/documents/{source_id}"),
        (reviewer_user, "/api/v1/answers/", "get", "/api/v1/answers/"),
    ]
    for user, url, method, path in probes:
        response = getattr(api_for(user), method)(url + "?format=api")
        assert response.status_code == 406, (url, response.status_code)
        assert response.json()["code"] == "not_acceptable"
        responses = schema["paths"][path][method]["responses"]
        assert "406" in responses, f"{method.upper()} {path} documents {sorted(responses)}"
    ask = api_for(staff_user).post(
        "/api/v1/ask", {"question": "When are parking permits renewed?"}, format="json", HTTP_ACCEPT="application/xml"
    )
    assert ask.status_code == 406
    assert "406" in schema["paths"]["/api/v1/ask"]["post"]["responses"]


def test_a_renamed_document_is_found_by_its_new_title(admin_user_role, staff_user, levels):
    question = "When are Zeppelin hangar permits renewed?"
    factories.make_document("Permits are renewed every March at the front desk.\n", source_id="rules/a", title="Garage")
    factories.make_document("Permits are renewed every June at the front desk.\n", source_id="rules/b", title="Garage")
    response = api_for(admin_user_role).patch(
        "/api/v1/documents/rules/a", {"title": "Zeppelin hangar rules"}, format="json"
    )
    assert response.status_code == 200, response.content
    assert response.json()["title"] == "Zeppelin hangar rules"

    answer = services.ask(user=staff_user, question=question)
    assert answer.state == "answered", (answer.state, answer.reason)
    assert [p.text for p in answer.paragraphs.all()] == ["Permits are renewed every March at the front desk."]


def test_a_document_retitled_by_a_new_upload_is_found_by_its_new_title(staff_user, levels):
    """The same text uploaded again with a new title changes no version, and its chunks are found by the new title
    at once, as after a PATCH (indexing.reindex_document)."""
    text = "Permits are renewed every March at the front desk.\n"
    factories.make_document(text, source_id="rules/a", title="Garage")
    factories.make_document("Permits are renewed every June at the front desk.\n", source_id="rules/b", title="Garage")
    result = factories.ingest_text(text, source_id="rules/a", title="Zeppelin hangar rules")
    assert (result.status, result.version) == ("unchanged", 1)
    answer = services.ask(user=staff_user, question="When are Zeppelin hangar permits renewed?")
    assert answer.state == "answered", (answer.state, answer.reason)
    assert [p.text for p in answer.paragraphs.all()] == ["Permits are renewed every March at the front desk."]
