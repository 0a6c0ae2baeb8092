"""Security headers, CSRF on forms and htmx requests, role helpers."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from config.csp import POLICY
from rag_app.access import has_role, visible_documents
from tests import factories
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db


def test_every_page_sends_a_csp_without_inline_scripts(staff_user):
    """The CSP header allows scripts only from our origin."""
    response = client_for(staff_user).get(reverse("ask"))
    csp = response["Content-Security-Policy"]
    assert csp == POLICY
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp


def test_the_login_page_has_the_csp_too(client):
    """Even anonymous pages carry the header."""
    assert "script-src 'self'" in client.get(reverse("login"))["Content-Security-Policy"]


def test_pages_have_no_inline_script_or_style(staff_user):
    """No <script> without src, no style attributes, no on* handlers: CSP would block them anyway."""
    html = client_for(staff_user).get(reverse("ask")).content.decode()
    for tag in html.split("<script")[1:]:
        assert tag.lstrip().startswith("src=")
    assert " style=" not in html and " onclick=" not in html and "<style" not in html


def test_the_body_sends_the_csrf_token_with_htmx_requests(staff_user):
    """hx-headers on <body> carries the CSRF token for every htmx request."""
    client = client_for(staff_user)
    html = client.get(reverse("ask")).content.decode()
    assert 'hx-headers=\'{"X-CSRFToken": "' in html


def test_posts_without_a_csrf_token_are_refused(staff_user):
    """CSRF is enforced on the ask form and on admin changes."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff_user)
    assert client.post(reverse("ask"), {"question": "hi"}).status_code == 403


def test_the_language_switch_is_served(staff_user):
    """The set_language view answers POSTs from the language form."""
    html = client_for(staff_user).get(reverse("ask")).content.decode()
    assert 'action="/i18n/setlang/"' in html


def test_roles_nest_and_superusers_hold_all(levels):
    """reviewer implies staff; admin implies reviewer and staff; a superuser is an admin."""
    reviewer = factories.make_user("r", groups=("reviewer",))
    admin = factories.make_user("a", groups=("admin",))
    root = factories.make_user("root", groups=(), is_superuser=True)
    nobody = factories.make_user("n", groups=())
    assert has_role(reviewer, "staff") and has_role(reviewer, "reviewer") and not has_role(reviewer, "admin")
    assert has_role(admin, "staff") and has_role(admin, "reviewer") and has_role(admin, "admin")
    assert has_role(root, "admin")
    assert not has_role(nobody, "staff")


def test_visibility_follows_groups(levels):
    """Open documents are visible to staff; restricted ones only to members and superusers."""
    factories.ingest_text("Open.", source_id="open")
    factories.ingest_text("Closed.", source_id="closed", groups=["hr"])
    staff = factories.make_user("s", groups=("staff",))
    hr = factories.make_user("h", groups=("staff", "hr"))
    admin = factories.make_user("a", groups=("staff", "admin"))
    root = factories.make_user("root", groups=(), is_superuser=True)
    nobody = factories.make_user("n", groups=())

    def ids(user):
        return set(visible_documents(user).values_list("source_id", flat=True))

    assert ids(staff) == {"open"}
    assert ids(hr) == {"open", "closed"}
    assert ids(admin) == {"open"}
    assert ids(root) == {"open", "closed"}
    assert ids(nobody) == set()


def test_pages_seen_signed_in_are_kept_by_no_cache(staff_user, levels):
    """A page that may show a restricted document's text is stored by neither a shared proxy nor the browser's
    history (config/private_pages.py): its response says private and no-store. The login page, seen signed out,
    keeps Django's own headers, and the API keeps its own no-store."""
    factories.make_document("The canteen opens at eight.", source_id="open/canteen")
    client = client_for(staff_user)
    for url in (reverse("ask"), reverse("document_list"), "/documents/open/canteen/v1/"):
        response = client.get(url)
        assert response.status_code == 200, url
        cache_control = response["Cache-Control"]
        assert "private" in cache_control and "no-store" in cache_control, (url, cache_control)
    assert Client().get(reverse("login")).has_header("Cache-Control")  # never_cache on Django's login view
    assert client.get("/api/v1/documents/")["Cache-Control"] == "no-store"  # the API's own, left as it is


def test_pages_show_no_template_syntax(staff_user, client):
    """A Django comment `{# #}` spans one line only: one spread over two printed itself at the top of every page."""
    for response in (client_for(staff_user).get(reverse("ask")), client.get(reverse("login"))):
        html = response.content.decode()
        assert not any(mark in html for mark in ("{#", "#}", "{%", "%}")), html[:300]
