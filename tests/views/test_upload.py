"""Admins add documents from the app: the same ingest service as the CLI and the API."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from rag_app.models import Chunk, Document, DocumentVersion
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db

POLICY = b"# Refunds\n\n## Deadline\n\nRefunds are paid within 14 days of the request.\n"


def _upload(client, content: bytes, name: str = "refunds.md", **fields):
    return client.post(reverse("document_upload"), {"file": SimpleUploadedFile(name, content), **fields})


@pytest.mark.parametrize("role", ["staff_user", "reviewer_user"])
def test_only_admins_may_upload(request, role, levels):
    """Staff and reviewers get 403 on the page and on a post; nothing is stored."""
    client = client_for(request.getfixturevalue(role))
    assert client.get(reverse("document_upload")).status_code == 403
    assert _upload(client, POLICY).status_code == 403
    assert not Document.objects.exists()


def test_it_adds_a_document_and_shows_its_first_version(admin_user_role, levels, reviewer_user):
    """A new file becomes version 1 with its level and groups; the viewer opens on it."""
    client = client_for(admin_user_role)
    page = client.get(reverse("document_upload"))
    assert page.status_code == 200 and b'enctype="multipart/form-data"' in page.content
    response = _upload(client, POLICY, source_id="policy/refunds", level="official", groups=["reviewer"])
    assert response.status_code == 302
    assert response["Location"] == reverse("document_version", args=["policy/refunds", 1])
    doc = Document.objects.get(source_id="policy/refunds")
    assert doc.level.slug == "official" and list(doc.groups.values_list("name", flat=True)) == ["reviewer"]
    assert doc.title == "Refunds"  # from the Markdown H1, since none was given
    assert Chunk.objects.filter(version__document=doc, section__contains="Deadline").exists()
    followed = client.get(response["Location"])
    assert "policy/refunds v1 1 chunks new" in followed.content.decode()


def test_the_same_file_again_is_unchanged_and_a_changed_one_is_a_new_version(admin_user_role, levels):
    client = client_for(admin_user_role)
    _upload(client, POLICY, source_id="refunds")
    again = _upload(client, POLICY, source_id="refunds")
    assert again["Location"] == reverse("document_version", args=["refunds", 1])
    changed = _upload(client, POLICY.replace(b"14 days", b"30 days"), source_id="refunds")
    assert changed["Location"] == reverse("document_version", args=["refunds", 2])
    assert list(DocumentVersion.objects.order_by("version").values_list("version", "is_current")) == [
        (1, False),
        (2, True),
    ]


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("tool.exe", b"MZ\x90\x00binary", "unsupported file type"),
        ("empty.txt", b"   \n", "empty"),
        ("broken.pdf", b"%PDF-1.4 not really a pdf", "PDF"),
    ],
)
def test_a_bad_file_is_refused_with_the_reason_and_nothing_is_stored(admin_user_role, levels, name, content, message):
    response = _upload(client_for(admin_user_role), content, name=name)
    assert response.status_code == 400
    assert message.lower() in response.content.decode().lower()
    assert not Document.objects.exists() and not Chunk.objects.exists()


def test_a_file_over_the_limit_is_refused_before_it_is_read(admin_user_role, levels, settings):
    settings.RAG = {**settings.RAG, "MAX_UPLOAD_BYTES": 1024}
    response = _upload(client_for(admin_user_role), b"x" * 2048, name="big.txt")
    assert response.status_code == 400
    assert "limit is 1,024 bytes" in response.content.decode()
    assert not Document.objects.exists()


def test_document_text_in_the_form_errors_is_escaped(admin_user_role, levels):
    """A hostile file name comes back escaped, never as markup."""
    response = _upload(client_for(admin_user_role), b"x", name="<script>alert(1)</script>.exe")
    assert response.status_code == 400
    assert b"<script>alert(1)</script>" not in response.content
