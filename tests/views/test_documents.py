"""The document viewer: chunks, cited chunk, newer-version banner, versions, permissions."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import timezone

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


def test_paging_keeps_the_cited_chunk(staff_user, levels, monkeypatch):
    """The pager's links keep ?chunk=: paging away from the cited chunk's page and back shows it highlighted."""
    from rag_app.views import documents

    monkeypatch.setattr(documents, "CHUNKS_PER_PAGE", 1)
    text = "\n\n".join(f"Refund rule {i}: refunds for order type {i} are paid within 30 days." for i in range(12))
    factories.ingest_text(text, source_id="rules")
    client = client_for(staff_user)
    url = reverse("document_version", args=["rules", 1])
    first = client.get(url + "?chunk=0").content.decode()
    assert 'class="chunk cited" id="chunk-0"' in first
    assert 'href="?chunk=0&amp;page=2"' in first
    second = client.get(url + "?chunk=0&page=2").content.decode()
    assert 'class="chunk cited"' not in second and 'href="?chunk=0&amp;page=1"' in second
    back = client.get(url + "?chunk=0&page=1").content.decode()
    assert 'class="chunk cited" id="chunk-0"' in back
    assert 'href="?page=2"' in client.get(url).content.decode()  # nothing cited: nothing to keep


def test_a_passage_opened_from_a_related_list_is_marked_but_not_called_cited(staff_user, two_versions):
    """?passage=<index> (a related passage, a retrieval candidate) highlights the chunk as the passage the reader
    opened; only ?chunk= (a citation's link) says cited."""
    html = (
        client_for(staff_user).get(reverse("document_version", args=[two_versions, 2]) + "?passage=0").content.decode()
    )
    assert 'class="chunk opened" id="chunk-0"' in html and "passage you opened" in html
    assert "cited" not in html.split('id="chunk-0"')[1].split("</section>")[0]


def test_paging_keeps_the_opened_passage(staff_user, levels, monkeypatch):
    """The pager keeps the parameter the viewer was opened with: ?passage= stays ?passage=, never becomes ?chunk=;
    with both, the citation wins (one chunk is marked)."""
    from rag_app.views import documents

    monkeypatch.setattr(documents, "CHUNKS_PER_PAGE", 1)
    text = "\n\n".join(f"Refund rule {i}: refunds for order type {i} are paid within 30 days." for i in range(12))
    factories.ingest_text(text, source_id="rules")
    client = client_for(staff_user)
    url = reverse("document_version", args=["rules", 1])
    second = client.get(url + "?passage=1").content.decode()
    assert 'class="chunk opened" id="chunk-1"' in second  # ?passage= opens the page that holds it
    assert 'href="?passage=1&amp;page=1"' in second and 'href="?passage=1&amp;page=3"' in second
    assert "?chunk=" not in second
    both = client.get(url + "?chunk=0&passage=1&page=1").content.decode()
    assert 'class="chunk cited" id="chunk-0"' in both and 'href="?chunk=0&amp;page=2"' in both
    assert 'href="?passage' not in both and 'class="chunk opened"' not in both


def test_the_viewer_marks_the_title_and_each_chunk_in_its_own_language(staff_user, levels):
    """The page is in the interface language; a Chinese document's title and text say they are Chinese (a screen
    reader's voice, the browser's fonts), chunk by chunk: an English chunk of the same document says English."""
    zh, en = (
        "退款须在购买之日起三十天内申请，逾期不予受理。" * 14,
        "Refunds abroad are paid in euros by the finance office. " * 6,
    )
    factories.ingest_text(f"{zh}\n\n{en}", source_id="zh/refunds", title="退款政策")
    html = client_for(staff_user).get(reverse("document_version", args=["zh/refunds", 1])).content.decode()
    assert '<html lang="en">' in html and '<h1 class="doc-title" lang="zh">退款政策</h1>' in html
    langs = re.findall(r'class="chunk-text" lang="(\w+)"', html)
    assert langs == ["zh", "en"], langs


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
    """The list links to the document's current version, by its number (a source_id may end like "/v2")."""
    html = client_for(staff_user).get(reverse("document_list")).content.decode()
    assert 'href="/documents/hr/travel/rules/v2/"' in html


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


# The library (/documents/): search, level filter, columns, paging, visibility.


@pytest.fixture
def library(levels):
    factories.ingest_text("Travel costs are refunded within 30 days.", source_id="hr/travel", title="Travel policy")
    factories.ingest_text("Travel costs are refunded within 14 days.", source_id="hr/travel", title="Travel policy")
    factories.ingest_text("Badges open the front door.", source_id="it/badges", title="", level="note")
    factories.ingest_text("Board pay rises.", source_id="board/pay", title="Board pay", groups=["board", "audit"])
    return ["hr/travel", "it/badges", "board/pay"]


def _library(user, query: str = "", **headers) -> str:
    response = client_for(user).get(reverse("document_list") + query, **headers)
    assert response.status_code == 200
    return response.content.decode()


def test_the_library_shows_title_source_id_level_version_date_and_groups(library):
    """Each row: title (source_id when there is none), source_id, level, current version, date, groups."""
    from rag_app.models import DocumentVersion

    member = factories.make_user("boardie", groups=("staff", "board"))
    html = _library(member)
    assert '<a href="/documents/hr/travel/v2/" lang="en">Travel policy</a>' in html
    assert "<code>hr/travel</code>" in html and "version 2" in html
    # no title: the source_id, nothing invented
    assert '<a href="/documents/it/badges/v1/" lang="en">it/badges</a>' in html
    assert 'class="badge level level-official"' in html and 'class="badge level level-note"' in html
    assert "audit, board" in html  # the document's access groups, sorted
    assert html.count("all staff") == 2  # the two open documents
    updated = DocumentVersion.objects.get(document__source_id="hr/travel", is_current=True).created_at
    assert f">{timezone.localtime(updated):%Y-%m-%d}</time>" in html
    assert "3 documents" in html
    assert 'class="table-scroll"' in html  # the wide table scrolls inside its box on a phone


def test_the_library_searches_source_id_and_title(staff_user, library):
    """?q= matches the source_id or the title, case-insensitively; the box keeps the query."""
    html = _library(staff_user, "?q=TRAVEL")
    assert "hr/travel" in html and "it/badges" not in html
    assert 'value="TRAVEL"' in html
    html = _library(staff_user, "?q=badges")
    assert "it/badges" in html and "hr/travel" not in html
    html = _library(staff_user, "?q=nothing-like-this")
    assert "No documents match these filters." in html and "No documents are shared with you yet." not in html


def test_the_library_filters_by_level(staff_user, library):
    """?level=<slug> keeps that level's documents and marks the option selected; an unknown level shows none."""
    html = _library(staff_user, "?level=note")
    assert "it/badges" in html and "hr/travel" not in html
    assert '<option value="note" selected>' in html
    assert "No documents match these filters." in _library(staff_user, "?level=nope")
    assert "No documents match these filters." in _library(staff_user, "?q=%00&level=%00")  # NUL: not found, no error


def test_a_restricted_document_is_listed_only_for_its_groups(staff_user, library):
    """Outside the document's groups it is absent (even searched by name); a member sees it."""
    for query in ("", "?q=board", "?level=official"):
        assert "board/pay" not in _library(staff_user, query)
    member = factories.make_user("auditor", groups=("staff", "audit"))
    assert '<a href="/documents/board/pay/v1/" lang="en">Board pay</a>' in _library(member, "?q=board")


def test_the_library_pages_by_50_and_keeps_the_filters(staff_user, levels):
    """Pager links carry q and level; page 2 applies them too."""
    for i in range(55):
        factories.ingest_text(f"Rota {i}.", source_id=f"rota/{i:02d}", title=f"Rota {i}", level="note")
    factories.ingest_text("Not a rota.", source_id="other", title="Other rota", level="official")
    html = _library(staff_user, "?q=rota&level=note")
    assert "55 documents" in html and html.count("<code>rota/") == 50
    assert 'href="?q=rota&amp;level=note&amp;page=2"' in html
    html = _library(staff_user, "?q=rota&level=note&page=2")
    assert html.count("<code>rota/") == 5 and "<code>other</code>" not in html


def test_the_filter_form_works_without_js_and_swaps_results_with_htmx(staff_user, library):
    """A plain GET form (no JS needed); htmx gets only the results block, which it swaps in place."""
    html = _library(staff_user)
    assert 'method="get" action="/documents/"' in html and 'hx-target="#document-results"' in html
    partial = _library(staff_user, "?q=travel", **HTMX)
    assert partial.lstrip().startswith('<div id="document-results">') and "<html" not in partial
    assert "hr/travel" in partial and "it/badges" not in partial


def test_the_library_view_reads_documents_only_through_selectors():
    """No Document.objects in the view: visibility is the selector's (rag_app.access) business."""
    import inspect

    from rag_app.views import documents

    assert "Document.objects" not in inspect.getsource(documents.document_list)
    assert "selectors.document_list(" in inspect.getsource(documents.document_list)
