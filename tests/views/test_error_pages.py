"""The styled 403, 404 and 500 pages (DEBUG off), in both languages; the API keeps its JSON errors.

This module is also the URLconf of the tests marked `ERRORS_URLS`: the app's URLs and handlers plus
views that fail on purpose.
"""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.template import loader
from django.test import RequestFactory
from django.urls import include, path, reverse
from django.utils import translation

from config.urls import handler403, handler404, handler500
from rag_app.views.errors import permission_denied
from tests import factories
from tests.views.conftest import client_for


def _boom(request: HttpRequest) -> HttpResponse:
    raise RuntimeError("secret internal detail /etc/passwd")


def _denied(request: HttpRequest) -> HttpResponse:
    raise PermissionDenied("secret reason")


urlpatterns = [
    path("boom/", _boom),
    path("api/v1/plain-boom", _boom),  # not a DRF view: the handler must still answer JSON
    path("api/v1/plain-denied", _denied),
    path("", include("config.urls")),
]
__all__ = ["handler403", "handler404", "handler500", "urlpatterns"]

ERRORS_URLS = pytest.mark.urls("tests.views.test_error_pages")
ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}
ASK_LINK = '<a href="/">Go to the ask page</a>'
NAV = '<nav aria-label="Main">'

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _debug_off(settings):
    settings.DEBUG = False


def no_inline_code(html: str) -> bool:
    """What the CSP would block: inline scripts, style attributes or elements, on* handlers."""
    scripts_ok = all(tag.lstrip().startswith("src=") for tag in html.split("<script")[1:])
    return scripts_ok and " style=" not in html and "<style" not in html and " onclick=" not in html


# --- 403 ---------------------------------------------------------------------------------------


def test_a_staff_user_on_a_reviewer_page_gets_the_styled_403(staff_user):
    """Status 403, a heading, the role needed, a way back to the ask page, and the nav."""
    response = client_for(staff_user).get(reverse("review_list"))
    html = response.content.decode()
    assert response.status_code == 403
    assert '<h1 id="error-title">You cannot open this page</h1>' in html
    assert "You are signed in as staff1, but this page needs the reviewer role." in html
    assert "Ask an administrator" in html
    assert ASK_LINK in html
    assert NAV in html and "My questions" in html
    assert '<a href="/accounts/login/?next=/review/">Log in as someone else</a>' in html
    assert "Forbidden" not in html
    assert response["Content-Security-Policy"] and no_inline_code(html)


@pytest.mark.parametrize(
    ("page", "role"), [("levels", "admin"), ("document_upload", "admin"), ("review_list", "reviewer")]
)
def test_the_403_names_the_role_the_page_needs(staff_user, page, role):
    """The role comes from the view's role_required decorator, so each page names its own."""
    html = client_for(staff_user).get(reverse(page)).content.decode()
    assert f"this page needs the {role} role." in html


def test_a_user_without_any_role_is_not_sent_back_to_the_ask_page(outsider):
    """The ask page would refuse them too: the 403 offers logging in as someone else instead."""
    response = client_for(outsider).get(reverse("ask"))
    html = response.content.decode()
    assert response.status_code == 403
    assert "You are signed in as nobody, but this page needs the staff role." in html
    assert ASK_LINK not in html
    assert '<a href="/accounts/login/?next=/">Log in as someone else</a>' in html


def test_a_403_without_a_known_role_says_so_generically(staff_user):
    """A PermissionDenied from a view without role_required: a generic sentence, never the exception's text."""
    request = RequestFactory().get("/somewhere/")
    request.user = staff_user
    html = permission_denied(request, PermissionDenied("secret reason")).content.decode()
    assert "You are signed in as staff1, but your account may not open this page." in html
    assert "secret reason" not in html


def test_the_403_is_translated(staff_user):
    """Chinese UI: heading, the sentence with the translated role name, the links."""
    html = client_for(staff_user).get(reverse("review_list"), **ZH).content.decode()
    assert '<html lang="zh-hans">' in html
    assert "您无法打开此页面" in html
    assert "您当前以 staff1 身份登录，但此页面需要“审阅人”角色。" in html
    assert "前往提问页面" in html and "以其他账户登录" in html


def test_the_403_escapes_the_username(db):
    """A username is user data: escaped like everything else."""
    user = factories.make_user("<b>x</b>", groups=("staff",))
    html = client_for(user).get(reverse("levels")).content.decode()
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html


@pytest.mark.parametrize(
    ("referer", "shown"),
    [
        ("http://testserver/documents/?q=a&b=1", True),
        ("https://evil.example/phish", False),
        ("javascript:alert(1)", False),
        ("http://testserver/review/", False),  # the refused page itself
    ],
)
def test_the_back_link_is_offered_only_for_pages_of_this_site(staff_user, referer, shown):
    """The Referer becomes a back link only when it is another page on this host."""
    html = client_for(staff_user).get(reverse("review_list"), HTTP_REFERER=referer).content.decode()
    assert ("Back to the previous page" in html) is shown
    if shown:
        assert '<a href="http://testserver/documents/?q=a&amp;b=1">Back to the previous page</a>' in html


# --- 404 ---------------------------------------------------------------------------------------


def test_an_unknown_url_gets_the_styled_404(staff_user):
    """Heading, what to do, links to the ask and documents pages, inside the usual layout."""
    response = client_for(staff_user).get("/no/such/page/")
    html = response.content.decode()
    assert response.status_code == 404
    assert '<h1 id="error-title">Page not found</h1>' in html
    assert "Check the link" in html
    assert ASK_LINK in html and '<a href="/documents/">Documents</a>' in html
    assert NAV in html
    assert no_inline_code(html)


def test_a_missing_object_gets_the_styled_404_too(staff_user):
    """Http404 from a view (an answer that does not exist) is the same page."""
    response = client_for(staff_user).get(reverse("answer_detail", args=[999999]))
    assert response.status_code == 404
    assert "Page not found" in response.content.decode()


def test_the_404_for_an_anonymous_visitor_offers_to_log_in(client):
    """No nav for anonymous visitors; a link to log in instead."""
    html = client.get("/no/such/page/").content.decode()
    assert "Page not found" in html and '<a href="/accounts/login/">Log in</a>' in html
    assert NAV not in html


def test_the_404_in_chinese_by_browser_language(client):
    """Accept-Language: zh-hans picks the Chinese page."""
    response = client.get("/no/such/page/", **ZH)
    html = response.content.decode()
    assert response.status_code == 404
    assert '<html lang="zh-hans">' in html
    assert "页面不存在" in html and "前往提问页面" in html
    assert "Page not found" not in html


def test_the_404_in_chinese_by_the_language_cookie(staff_user):
    """The language switch's cookie does too (nav included)."""
    client = client_for(staff_user)
    client.cookies[django_settings.LANGUAGE_COOKIE_NAME] = "zh-hans"
    html = client.get("/no/such/page/").content.decode()
    assert '<html lang="zh-hans">' in html and "页面不存在" in html and "文档" in html


# --- 500 ---------------------------------------------------------------------------------------


@ERRORS_URLS
def test_a_failing_view_gets_the_styled_500(staff_user, django_assert_num_queries):
    """A heading, what to do, a link home; no exception text; no database query to render it."""
    client = client_for(staff_user)
    client.raise_request_exception = False
    with django_assert_num_queries(0):
        response = client.get("/boom/")
    html = response.content.decode()
    assert response.status_code == 500
    assert '<h1 id="error-title">Something went wrong</h1>' in html
    assert "The error has been logged" in html
    assert ASK_LINK in html
    assert '<link rel="stylesheet" href="/static/rag_app/app.css">' in html
    assert "secret" not in html and "Traceback" not in html
    assert no_inline_code(html)


@ERRORS_URLS
def test_the_500_is_translated(client):
    """The language is still active when the 500 page renders."""
    client.raise_request_exception = False
    html = client.get("/boom/", **ZH).content.decode()
    assert '<html lang="zh-hans">' in html and "出了点问题" in html and "前往提问页面" in html


def test_the_500_template_renders_with_an_empty_context():
    """Django's own server_error renders 500.html with no context at all: still a page with a way home."""
    with translation.override("en"):
        html = loader.get_template("500.html").render({})
    assert "Something went wrong" in html and ASK_LINK in html


# --- the API keeps its JSON errors ---------------------------------------------------------------


def test_api_404s_stay_json(client):
    """Unknown paths under /api/ (the API's own catch-all, and outside it via the handler): JSON 404."""
    for url in ("/api/v1/nothing/here", "/api/v2/anything", "/api"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response["Content-Type"] == "application/json", url
        assert response.json()["code"] == "not_found"


def test_api_403s_stay_json(staff_user):
    """A staff user asking the reviewers' answer list through the API (session auth): DRF's JSON 403."""
    response = client_for(staff_user).get("/api/v1/answers/")
    assert response.status_code == 403
    assert response.json()["code"] == "permission_denied"


@ERRORS_URLS
def test_non_drf_errors_under_the_api_are_json(staff_user):
    """Even a plain Django view under /api/ answers JSON through the handlers, never the HTML pages."""
    client = client_for(staff_user)
    client.raise_request_exception = False
    denied = client.get("/api/v1/plain-denied")
    boom = client.get("/api/v1/plain-boom")
    assert denied.status_code == 403 and denied.json()["code"] == "permission_denied"
    assert boom.status_code == 500
    assert boom.json() == {"code": "server_error", "detail": "Internal server error; it has been logged."}
    assert b"secret" not in denied.content + boom.content
