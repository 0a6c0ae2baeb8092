"""The document viewer: chunks, cited chunk, newer-version banner, versions, permissions."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.views.conftest import HTMX, client_for

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_versions(levels):
    factories.ingest_text("First wording of the travel rules.", source_id="hr/travel/rules", title="Travel")
    factories.ingest_text("Second wording of the travel rules.", source_id="hr/travel/rules", title="Travel")
    return "hr/travel/rules"


def test_it_resolves_source_ids_with_slashes(staff_user, two_versions):
    """/documents/<source_id>/v<n>/ works when the source_id itself contains slashes."""
    url = reverse("document_version", args=[two_versions, 2])
    assert url == "/documents/hr/travel/rules/v2/"
    html = client_for(staff_user).get(url).content.decode()
    assert "Second wording" in html and 'id="chunk-0"' in html


def test_it_highlights_the_cited_chunk(staff_user, two_versions):
    """?chunk=<index> marks that chunk as cited (the #chunk-<index> fragment scrolls to it)."""
    html = client_for(staff_user).get(reverse("document_version", args=[two_versions, 2]) + "?chunk=0").content.decode()
    assert 'class="chunk cited" id="chunk-0"' in html


def test_it_warns_when_a_newer_version_exists(staff_user, two_versions):
    """An old version shows a banner linking to the newest one, and the version list."""
    html = client_for(staff_user).get(reverse("document_version", args=[two_versions, 1])).content.decode()
    assert "First wording" in html
    assert 'class="banner newer"' in html and 'href="/documents/hr/travel/rules/v2/"' in html
    assert "version 1" in html and "version 2" in html


def test_the_current_version_has_no_banner(staff_user, two_versions):
    """The current version shows no newer-version banner."""
    html = client_for(staff_user).get(reverse("document_version", args=[two_versions, 2])).content.decode()
    assert 'class="banner newer"' not in html


def test_it_redirects_the_bare_document_url_to_the_current_version(staff_user, two_versions):
    """/documents/<source_id>/ goes to the current version."""
    response = client_for(staff_user).get(reverse("document_latest", args=[two_versions]))
    assert response.status_code == 302 and response["Location"] == "/documents/hr/travel/rules/v2/"


def test_it_404s_for_an_unknown_version(staff_user, two_versions):
    """A version number that does not exist is 404."""
    assert client_for(staff_user).get(reverse("document_version", args=[two_versions, 9])).status_code == 404


def test_it_404s_for_documents_outside_the_users_groups(staff_user, levels):
    """Restricted documents do not exist for users outside their groups (404, not 403)."""
    factories.ingest_text("Secret board minutes.", source_id="board/minutes", title="Minutes", groups=["board"])
    client = client_for(staff_user)
    assert client.get(reverse("document_version", args=["board/minutes", 1])).status_code == 404
    assert client.get(reverse("document_latest", args=["board/minutes"])).status_code == 404
    assert "board/minutes" not in client.get(reverse("document_list")).content.decode()


def test_group_members_see_restricted_documents(levels):
    """A member of the document's group can read it."""
    member = factories.make_user("boardie", groups=("staff", "board"))
    factories.ingest_text("Secret board minutes.", source_id="board/minutes", title="Minutes", groups=["board"])
    response = client_for(member).get(reverse("document_version", args=["board/minutes", 1]))
    assert response.status_code == 200


def test_it_escapes_document_text_and_title(staff_user, levels):
    """A document's title and text are shown as text."""
    factories.ingest_text("<script>alert(1)</script>", source_id="x", title="<img src=x onerror=alert(1)>")
    html = client_for(staff_user).get(reverse("document_version", args=["x", 1])).content.decode()
    assert "<script>alert" not in html and "<img src=x" not in html


def test_the_document_list_links_each_visible_document(staff_user, two_versions):
    """The list links to the document's current version."""
    html = client_for(staff_user).get(reverse("document_list")).content.decode()
    assert 'href="/documents/hr/travel/rules/"' in html


def test_it_forbids_users_without_a_role(outsider, two_versions):
    """No role, no documents."""
    assert client_for(outsider).get(reverse("document_version", args=[two_versions, 1])).status_code == 403


def test_the_viewer_is_a_full_page_for_htmx_too(staff_user, two_versions):
    """The viewer has no swap target: htmx requests (boosted links) get the page."""
    response = client_for(staff_user).get(reverse("document_version", args=[two_versions, 2]), **HTMX)
    assert response.status_code == 200 and "<html" in response.content.decode()


def test_only_web_urls_become_links(staff_user, levels):
    """A stored javascript: URL is not rendered as a link; an https URL is."""
    from rag_app.models import Document

    factories.ingest_text("Text.", source_id="js", title="JS")
    factories.ingest_text("Text.", source_id="web", title="Web")
    Document.objects.filter(source_id="js").update(url="javascript:alert(1)")
    Document.objects.filter(source_id="web").update(url="https://example.org/policy")
    client = client_for(staff_user)
    assert "javascript:" not in client.get(reverse("document_version", args=["js", 1])).content.decode()
    assert (
        'href="https://example.org/policy"' in client.get(reverse("document_version", args=["web", 1])).content.decode()
    )
