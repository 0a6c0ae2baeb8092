"""rag_app/admin.py: levels editable, level changes audited (single and bulk), evidence and ingest jobs read-only."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from rag_app.models import Chunk, Document, IngestJob, LevelChange, SourceLevel
from rag_app.services.ingest_jobs import ingest_job_create
from tests.factories import make_admin, make_document, make_user
from tests.workers import run_queued_jobs


@pytest.fixture
def admin_client_role(db: None) -> Client:
    client = Client()
    client.force_login(make_admin("root"))
    return client


@pytest.mark.django_db
def test_bulk_action_sets_level_and_records_each_change(
    admin_client_role: Client, levels: dict[str, SourceLevel]
) -> None:
    """The 'set level' action asks for a level, then changes each document and logs who/from/to."""
    docs = [make_document(level="note"), make_document(level="reviewed"), make_document(level="official")]
    url = reverse("admin:rag_app_document_changelist")
    ids = [str(d.pk) for d in docs]
    confirm = admin_client_role.post(url, {"action": "set_level", "_selected_action": ids})
    assert confirm.status_code == 200 and b"Set level" in confirm.content
    done = admin_client_role.post(
        url, {"action": "set_level", "_selected_action": ids, "apply": "1", "level": levels["official"].pk}
    )
    assert done.status_code == 302
    assert set(Document.objects.values_list("level__slug", flat=True)) == {"official"}
    changes = LevelChange.objects.filter(field="document.level").order_by("old_value")
    assert [(c.old_value, c.new_value, c.user.username if c.user else None) for c in changes] == [
        ("note", "official", "root"),
        ("reviewed", "official", "root"),
    ]


@pytest.mark.django_db
def test_change_form_level_change_is_recorded(admin_client_role: Client, levels: dict[str, SourceLevel]) -> None:
    """Changing the level in a document's change form saves it and writes one LevelChange."""
    doc = make_document(level="note", title="Refunds")
    url = reverse("admin:rag_app_document_change", args=[doc.pk])
    response = admin_client_role.post(
        url, {"title": "Refunds", "url": "", "level": levels["reviewed"].pk, "versions-TOTAL_FORMS": "0",
              "versions-INITIAL_FORMS": "0", "versions-MIN_NUM_FORMS": "0", "versions-MAX_NUM_FORMS": "1000"},
    )  # fmt: skip
    assert response.status_code == 302, response.content[:2000]
    doc.refresh_from_db()
    assert doc.level == levels["reviewed"]
    change = LevelChange.objects.get(document=doc)
    assert (change.old_value, change.new_value) == ("note", "reviewed")


@pytest.mark.django_db
def test_change_form_groups_change_is_audited(admin_client_role: Client, levels: dict[str, SourceLevel]) -> None:
    """Groups set in the change form go through the audited path (document.groups), like the pages'."""
    from tests.factories import make_group

    doc = make_document(level="note", title="Refunds")
    hr = make_group("hr")
    url = reverse("admin:rag_app_document_change", args=[doc.pk])
    response = admin_client_role.post(
        url, {"title": "Refunds", "url": "", "level": levels["note"].pk, "groups": [hr.pk],
              "versions-TOTAL_FORMS": "0", "versions-INITIAL_FORMS": "0", "versions-MIN_NUM_FORMS": "0",
              "versions-MAX_NUM_FORMS": "1000"},
    )  # fmt: skip
    assert response.status_code == 302, response.content[:2000]
    assert list(doc.groups.values_list("name", flat=True)) == ["hr"]
    change = LevelChange.objects.get(document=doc, field="document.groups")
    assert (change.old_value, change.new_value, change.user.username) == ("", "hr", "root")


@pytest.mark.django_db
def test_change_form_refuses_a_role_group_added_and_keeps_one_already_there(
    admin_client_role: Client, levels: dict[str, SourceLevel]
) -> None:
    """A role group added as a document's group is refused with the pages' message (access.check_access_groups); one
    a document already has is kept while another group is added (dropping it would open the document to all staff)."""
    from django.contrib.auth.models import Group

    from tests.factories import make_group

    doc = make_document(level="note", title="Refunds")
    hr, reviewer = make_group("hr"), Group.objects.get(name="reviewer")
    url = reverse("admin:rag_app_document_change", args=[doc.pk])
    form = {"title": "Refunds", "url": "", "level": levels["note"].pk, "versions-TOTAL_FORMS": "0",
            "versions-INITIAL_FORMS": "0", "versions-MIN_NUM_FORMS": "0", "versions-MAX_NUM_FORMS": "1000"}  # fmt: skip
    response = admin_client_role.post(url, {**form, "groups": [hr.pk, reviewer.pk]})
    assert response.status_code == 200
    assert "&#x27;reviewer&#x27;: a role group gives its members a role" in response.content.decode()
    assert not doc.groups.exists()
    doc.groups.add(reviewer)  # restricted to a role group before the rule
    response = admin_client_role.post(url, {**form, "groups": [hr.pk, reviewer.pk]})
    assert response.status_code == 302
    assert sorted(doc.groups.values_list("name", flat=True)) == ["hr", "reviewer"]


@pytest.mark.django_db
def test_the_admin_deletes_no_document(admin_client_role: Client, levels: dict[str, SourceLevel]) -> None:
    """Versions and chunks are read-only here, so the admin refuses a document's delete (which would skip the
    index clean-up and the audit event of services.documents.document_delete, the documents page's delete)."""
    doc = make_document("Canteen hours are eight to five.", source_id="canteen", title="Canteen")
    url = reverse("admin:rag_app_document_delete", args=[doc.pk])
    response = admin_client_role.post(url, {"post": "yes"})
    assert response.status_code == 200 and b"Cannot delete document" in response.content
    assert Document.objects.filter(pk=doc.pk).exists() and Chunk.objects.exists()


@pytest.mark.django_db
def test_level_edit_is_audited(admin_client_role: Client, levels: dict[str, SourceLevel]) -> None:
    """Reweighting a level in the admin records old and new weight."""
    level = levels["note"]
    url = reverse("admin:rag_app_sourcelevel_change", args=[level.pk])
    response = admin_client_role.post(url, {"slug": "note", "label": "Note", "weight": "0.5", "description": ""})
    assert response.status_code == 302
    level.refresh_from_db()
    assert level.weight == 0.5
    change = LevelChange.objects.get(level=level, field="level.weight")
    assert (change.old_value, change.new_value) == ("1", "0.5")


@pytest.mark.django_db
def test_versions_and_chunks_are_read_only_and_searchable(
    admin_client_role: Client, levels: dict[str, SourceLevel]
) -> None:
    """Chunks can be searched and viewed but not changed; document text is escaped on display."""
    doc = make_document("<script>alert(1)</script> 退款期限为三十天。", source_id="xss")
    chunk = Chunk.objects.get(version__document=doc)
    changelist = admin_client_role.get(reverse("admin:rag_app_chunk_changelist"), {"q": "退款"})
    assert changelist.status_code == 200 and b"xss:v1:0" in changelist.content
    detail = admin_client_role.get(reverse("admin:rag_app_chunk_change", args=[chunk.pk]))
    assert detail.status_code == 200
    assert b"<script>alert(1)</script>" not in detail.content
    post = admin_client_role.post(reverse("admin:rag_app_chunk_change", args=[chunk.pk]), {"text": "edited"})
    assert post.status_code == 403
    chunk.refresh_from_db()
    assert chunk.text.startswith("<script>")
    assert admin_client_role.get(reverse("admin:rag_app_documentversion_changelist"), {"q": "xss"}).status_code == 200


@pytest.mark.django_db
def test_every_admin_page_renders(admin_client_role: Client, levels: dict[str, SourceLevel]) -> None:
    """Changelists (with search) and the document/version/chunk detail pages render for an admin."""
    doc = make_document("退款期限为三十天。", source_id="policy")
    version = doc.current_version()
    assert version is not None
    chunk = version.chunks.get()
    for name in ("sourcelevel", "document", "documentversion", "chunk", "levelchange"):
        response = admin_client_role.get(reverse(f"admin:rag_app_{name}_changelist"), {"q": "policy"})
        assert response.status_code == 200, name
    for name, pk in (("document", doc.pk), ("documentversion", version.pk), ("chunk", chunk.pk)):
        assert admin_client_role.get(reverse(f"admin:rag_app_{name}_change", args=[pk])).status_code == 200, name
    assert admin_client_role.get(reverse("admin:rag_app_document_add")).status_code == 403


@pytest.mark.django_db
def test_recent_ingest_jobs_are_listed_newest_first_read_only(admin_client_role: Client, levels) -> None:
    """The admin lists ingest jobs (state, who, progress, outcome), newest first; none can be added,
    changed or deleted there, and a queued file's bytes are never shown."""
    uploader = make_user("uploader", groups=("staff", "admin"))
    for name, data in (("first.txt", b"Canteen hours."), ("second.exe", b"MZ"), ("third.txt", b"SECRET-BYTES")):
        ingest_job_create(user=uploader, file_name=name, size=len(data), read=lambda data=data: data)
    run_queued_jobs()
    IngestJob.objects.filter(file_name="third.txt").update(state="queued", payload=b"SECRET-BYTES")
    page = admin_client_role.get(reverse("admin:rag_app_ingestjob_changelist")).content.decode()
    assert page.index("third.txt") < page.index("second.exe") < page.index("first.txt")
    assert "first.txt v1 1 chunks new" in page and "unsupported file type" in page and "uploader" in page
    third = IngestJob.objects.get(file_name="third.txt")
    detail = admin_client_role.get(reverse("admin:rag_app_ingestjob_change", args=[third.pk])).content.decode()
    assert "SECRET-BYTES" not in detail and "third.txt" in detail
    assert admin_client_role.get(reverse("admin:rag_app_ingestjob_add")).status_code == 403
    deleted = admin_client_role.post(reverse("admin:rag_app_ingestjob_delete", args=[third.pk]), {"post": "yes"})
    assert deleted.status_code == 403 and IngestJob.objects.filter(pk=third.pk).exists()
