from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from rag_app.models import Document, DocumentVersion, IngestJob, LevelChange
from tests import factories


def upload(name: str, data: bytes) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


# --- reading -----------------------------------------------------------------------------


def test_it_requires_credentials(api_as):
    """No credentials: 401 with a JSON body and a WWW-Authenticate challenge."""
    response = api_as(None).get("/api/v1/documents/")
    assert response.status_code == 401
    assert response.json()["code"] == "not_authenticated"
    assert response["WWW-Authenticate"] == "Token"


def test_it_rejects_a_bad_token(api_as, db):
    """A wrong token is refused with 401, not treated as anonymous."""
    client = api_as(None)
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get("/api/v1/documents/")
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_it_refuses_a_user_without_a_role(api_as):
    """Signed in but in no role group: 403."""
    response = api_as(factories.make_user(groups=())).get("/api/v1/documents/")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"


def test_it_lists_only_visible_documents(api_as, staff_user, admin_user_role):
    """Staff see open documents and those of their groups; admins see every document."""
    factories.make_document(source_id="open.txt")
    factories.make_document(source_id="hr/secret.txt", groups=["hr"])
    factories.make_document(source_id="team/notes.txt", groups=["team"])
    staff_user.groups.add(factories.make_group("team"))

    staff_ids = [d["source_id"] for d in api_as(staff_user).get("/api/v1/documents/").json()["results"]]
    admin_ids = [d["source_id"] for d in api_as(admin_user_role).get("/api/v1/documents/").json()["results"]]

    assert staff_ids == ["open.txt", "team/notes.txt"]
    assert admin_ids == ["hr/secret.txt", "open.txt", "team/notes.txt"]


def test_it_filters_and_pages_the_list(api_as, staff_user):
    """?level= and ?q= filter; limit/offset page with a count."""
    factories.make_document(source_id="a.txt", level="official")
    factories.make_document(source_id="b.txt", level="note", title="Refund notes")
    factories.make_document(source_id="c.txt", level="note")
    client = api_as(staff_user)

    notes = client.get("/api/v1/documents/?level=note&limit=1").json()
    refund = client.get("/api/v1/documents/?q=refund").json()

    assert notes["count"] == 2
    assert [d["source_id"] for d in notes["results"]] == ["b.txt"]
    assert notes["next"] is not None
    assert [d["source_id"] for d in refund["results"]] == ["b.txt"]


def test_it_rejects_unknown_list_filters(api_as, staff_user):
    """An unknown query parameter is a 400 naming it, not silently ignored."""
    response = api_as(staff_user).get("/api/v1/documents/?colour=red")
    assert response.status_code == 400
    assert response.json()["fields"] == {"colour": ["Unknown field."]}


def test_it_shows_a_document_with_honest_metadata(api_as, staff_user):
    """A missing title is null with the source_id as display title; a missing url is null (rule 7)."""
    factories.make_document(source_id="policy/refund.txt", level=None)
    body = api_as(staff_user).get("/api/v1/documents/policy/refund.txt").json()
    assert body["source_id"] == "policy/refund.txt"
    assert body["title"] is None
    assert body["display_title"] == "policy/refund.txt"
    assert body["url"] is None
    assert body["level"] is None
    assert body["groups"] == []
    assert body["current_version"] == 1


def test_a_hidden_document_looks_unknown(api_as, staff_user):
    """A document restricted to other groups is a 404, the same as one that does not exist."""
    factories.make_document(source_id="hr/secret.txt", groups=["hr"])
    client = api_as(staff_user)
    hidden = client.get("/api/v1/documents/hr/secret.txt")
    missing = client.get("/api/v1/documents/nope.txt")
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["code"] == "not_found"
    assert client.get("/api/v1/documents/hr/secret.txt/versions/").status_code == 404


def test_it_lists_versions_newest_first(api_as, staff_user):
    """Every version stays listed after a change, newest first, with its chunk count."""
    factories.make_document("First text.", source_id="v.txt")
    factories.make_document("Second, different text.", source_id="v.txt")
    body = api_as(staff_user).get("/api/v1/documents/v.txt/versions/").json()
    assert [(v["version"], v["is_current"]) for v in body["results"]] == [(2, True), (1, False)]
    assert all(v["chunks"] >= 1 for v in body["results"])


# --- uploading ---------------------------------------------------------------------------


def test_admin_uploads_new_then_unchanged_then_updated(api_as, admin_user_role, levels):
    """?wait=1 (ingest within the request): 201 new, 200 unchanged for the same bytes, 201 updated with
    version 2 for changed bytes. The queued path (202 and a job): tests/api/test_ingest_jobs.py."""
    client = api_as(admin_user_role)
    first = client.post(
        "/api/v1/documents/?wait=1",
        {"file": upload("refund.txt", b"Refunds within 30 days."), "source_id": "policy/refund", "level": "official"},
    )
    again = client.post(
        "/api/v1/documents/?wait=1",
        {"file": upload("refund.txt", b"Refunds within 30 days."), "source_id": "policy/refund"},
    )
    changed = client.post(
        "/api/v1/documents/?wait=1",
        {"file": upload("refund.txt", b"Refunds within 14 days."), "source_id": "policy/refund"},
    )

    assert (first.status_code, first.json()["status"], first.json()["version"]) == (201, "new", 1)
    assert (again.status_code, again.json()["status"], again.json()["version"]) == (200, "unchanged", 1)
    assert (changed.status_code, changed.json()["status"], changed.json()["version"]) == (201, "updated", 2)
    assert changed.json()["document"]["level"] == "official"
    assert DocumentVersion.objects.filter(document__source_id="policy/refund").count() == 2


def test_upload_defaults_source_id_to_the_file_name_and_sets_groups(api_as, admin_user_role):
    """Without source_id the file name is the id; groups restrict the new document."""
    factories.make_group("hr")
    response = api_as(admin_user_role).post(
        "/api/v1/documents/?wait=1", {"file": upload("leave.txt", b"Leave policy."), "groups": ["hr"]}
    )
    assert response.status_code == 201
    assert response.json()["document"]["source_id"] == "leave.txt"
    assert response.json()["document"]["groups"] == ["hr"]


def test_staff_cannot_upload(api_as, staff_user):
    """Upload is an admin action: 403 and nothing stored."""
    response = api_as(staff_user).post("/api/v1/documents/", {"file": upload("a.txt", b"text")})
    assert response.status_code == 403
    assert not Document.objects.exists()


def test_upload_rejects_an_unsupported_type(api_as, admin_user_role):
    """An unsupported extension: 400 unsupported_type, and no document row."""
    response = api_as(admin_user_role).post("/api/v1/documents/?wait=1", {"file": upload("tool.exe", b"MZ\x90\x00")})
    assert response.status_code == 400
    assert response.json()["code"] == "unsupported_type"
    assert response.json()["detail"].startswith("This type of file cannot be read. Supported types: .txt")
    assert not Document.objects.exists()


def test_upload_rejects_binary_content(api_as, admin_user_role):
    """Binary bytes named .txt: a 4xx that says the file cannot be read, nothing stored."""
    response = api_as(admin_user_role).post(
        "/api/v1/documents/?wait=1", {"file": upload("data.txt", bytes(range(256)) * 40)}
    )
    assert response.status_code == 400
    assert response.json()["code"] != "invalid"
    assert response.json()["detail"]
    assert not Document.objects.exists()


def test_upload_rejects_an_oversize_file(api_as, admin_user_role, settings):
    """Over RAG_MAX_UPLOAD_BYTES: 413 too_large naming the limit, nothing stored."""
    settings.RAG = {**settings.RAG, "MAX_UPLOAD_BYTES": 1024}
    response = api_as(admin_user_role).post("/api/v1/documents/", {"file": upload("big.txt", b"word " * 400)})
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"
    assert "1,024" in response.json()["detail"]
    assert not Document.objects.exists()


def test_upload_rejects_unknown_fields_and_levels(api_as, admin_user_role, levels):
    """An unknown form field and an unknown level are each a 400 naming the field."""
    client = api_as(admin_user_role)
    extra = client.post("/api/v1/documents/", {"file": upload("a.txt", b"text"), "colour": "red"})
    level = client.post("/api/v1/documents/", {"file": upload("a.txt", b"text"), "level": "gospel"})
    missing = client.post("/api/v1/documents/", {"title": "no file"})
    assert extra.status_code == level.status_code == missing.status_code == 400
    assert list(extra.json()["fields"]) == ["colour"]
    assert list(level.json()["fields"]) == ["level"]
    assert list(missing.json()["fields"]) == ["file"]
    assert not Document.objects.exists()


def test_upload_needs_multipart(api_as, admin_user_role):
    """A JSON body is the wrong media type for an upload: 415."""
    response = api_as(admin_user_role).post("/api/v1/documents/", {"source_id": "x"}, format="json")
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


# --- editing -----------------------------------------------------------------------------


def test_admin_edits_metadata_and_the_level_change_is_audited(api_as, admin_user_role, levels):
    """PATCH sets title, url, groups and level; the level change leaves a LevelChange row."""
    factories.make_document(source_id="p.txt", level="note")
    factories.make_group("hr")
    response = api_as(admin_user_role).patch(
        "/api/v1/documents/p.txt",
        {"title": "Policy", "url": "https://intranet.example/p", "level": "official", "groups": ["hr"]},
        format="json",
    )
    assert response.status_code == 200
    body = response.json()
    assert (body["title"], body["url"], body["level"], body["groups"]) == (
        "Policy",
        "https://intranet.example/p",
        "official",
        ["hr"],
    )
    change = LevelChange.objects.get(document__source_id="p.txt", field="document.level")
    assert (change.field, change.old_value, change.new_value, change.user) == (
        "document.level",
        "note",
        "official",
        admin_user_role,
    )


def test_admin_can_clear_a_level(api_as, admin_user_role, levels):
    """level: null removes the level (the document then ranks lowest)."""
    factories.make_document(source_id="p.txt", level="note")
    response = api_as(admin_user_role).patch("/api/v1/documents/p.txt", {"level": None}, format="json")
    assert response.status_code == 200
    assert response.json()["level"] is None


def test_edit_rejects_bad_input_without_a_partial_change(api_as, admin_user_role, levels):
    """One bad field (unknown level) rejects the whole edit: the title is not changed either."""
    factories.make_document(source_id="p.txt", title="Old")
    response = api_as(admin_user_role).patch(
        "/api/v1/documents/p.txt", {"title": "New", "level": "gospel"}, format="json"
    )
    assert response.status_code == 400
    assert "level" in response.json()["fields"]
    assert Document.objects.get(source_id="p.txt").title == "Old"


def test_a_role_group_is_refused_as_an_access_group_on_upload_and_edit(api_as, admin_user_role, levels):
    """Access groups restrict documents; the role groups (staff, reviewer, admin) grant roles. Sent as a document's
    group, on an upload (queued or ?wait=1) or a PATCH, one is refused with the page's and the CLI's message
    (access.check_access_groups), in the reader's language, and nothing changes."""
    factories.make_document(source_id="p.txt")
    factories.make_group("hr")
    client = api_as(admin_user_role)
    said = "'admin': a role group gives its members a role, not access to documents"
    for url in ("/api/v1/documents/", "/api/v1/documents/?wait=1"):
        response = client.post(url, {"file": upload("leave.txt", b"Leave policy."), "groups": ["hr", "admin"]})
        assert response.status_code == 400
        assert said in response.json()["fields"]["groups"][0]
    response = client.patch("/api/v1/documents/p.txt", {"groups": ["staff"]}, format="json")
    assert response.status_code == 400 and "'staff': a role group" in response.json()["fields"]["groups"][0]
    zh = client.patch("/api/v1/documents/p.txt", {"groups": ["reviewer"]}, format="json", HTTP_ACCEPT_LANGUAGE="zh")
    assert "角色组" in zh.json()["fields"]["groups"][0]
    assert not Document.objects.get(source_id="p.txt").groups.exists()
    assert not Document.objects.filter(source_id="leave.txt").exists() and not IngestJob.objects.exists()


def test_edit_rejects_wrong_types_and_unknown_fields(api_as, admin_user_role):
    """A list where a string belongs, or a field the API does not know: 400 naming it."""
    factories.make_document(source_id="p.txt")
    client = api_as(admin_user_role)
    wrong = client.patch("/api/v1/documents/p.txt", {"title": ["a"]}, format="json")
    unknown = client.patch("/api/v1/documents/p.txt", {"source_id": "q.txt"}, format="json")
    not_object = client.patch("/api/v1/documents/p.txt", ["title"], format="json")
    assert wrong.status_code == unknown.status_code == not_object.status_code == 400
    assert list(wrong.json()["fields"]) == ["title"]
    assert unknown.json()["fields"] == {"source_id": ["Unknown field."]}


def test_staff_cannot_edit(api_as, staff_user):
    """PATCH is for admins: 403 for staff."""
    factories.make_document(source_id="p.txt")
    response = api_as(staff_user).patch("/api/v1/documents/p.txt", {"title": "x"}, format="json")
    assert response.status_code == 403
