"""An Office file through the API: accepted by its extension and content, indexed with its locators."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile

from rag_app.ingest.parsers import SUPPORTED_EXTENSIONS
from tests import factories
from tests.ingest.test_office_parsers import make_pptx


def test_a_pptx_upload_is_indexed_slide_by_slide(api_as, admin_user_role):
    data = SimpleUploadedFile("deck.pptx", make_pptx(), content_type=SUPPORTED_EXTENSIONS[".pptx"])
    response = api_as(admin_user_role).post("/api/v1/documents/?wait=1", {"file": data})
    assert response.status_code in (200, 201), response.json()
    version = factories.current_version("deck.pptx")
    assert version.mime == SUPPORTED_EXTENSIONS[".pptx"]
    assert [(c.page, c.section) for c in factories.chunks_of("deck.pptx")][:2] == [
        (1, "Quarterly results"),
        (2, "Refund table"),
    ]
