"""Trial 32h: a staff member's messy browser day (an expired session mid-question, a form sent with JavaScript off,
a URL opened that only a form may send to, a page left open while signing in again in another tab). Each test is a
defect found by driving the running app in Chromium, asserting what the README promises: nothing the reader typed is
lost, and every page the app answers with is its own, in the reader's language, with a way back."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from tests import factories
from tests.views.answers import make_answer
from tests.views.conftest import HTMX, client_for

pytestmark = pytest.mark.django_db

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-hans"}


@pytest.fixture(autouse=True)
def _debug_off(settings):
    settings.DEBUG = False


def _next(response) -> str:
    """Where the login page will send the reader back to."""
    target = response["HX-Redirect"] if "HX-Redirect" in response else response["Location"]
    assert target.startswith("/accounts/login/?")
    return parse_qs(urlsplit(target).query)["next"][0]


def test_a_plain_ask_after_the_session_expired_comes_back_with_the_question(client: Client) -> None:
    response = client.post(reverse("ask"), {"question": "How long is the refund window?\n"})
    assert response.status_code == 302
    back = _next(response)
    assert urlsplit(back).path == "/"
    assert parse_qs(urlsplit(back).query)["q"] == ["How long is the refund window?\n"]


def test_a_follow_up_interrupted_by_an_expired_session_comes_back_as_a_follow_up(client: Client, staff_user) -> None:
    earlier = make_answer(user=staff_user, question="When was GPL version 3 released?")
    response = client.post(
        reverse("ask"),
        {"question": "And version 2?", "parent": str(earlier.pk)},
        HTTP_HX_CURRENT_URL=f"http://testserver/?parent={earlier.pk}",
        **HTMX,
    )
    back = _next(response)
    assert parse_qs(urlsplit(back).query) == {"q": ["And version 2?"], "parent": [str(earlier.pk)]}
    # and signed in again, that URL is the follow-up's box with the question in it
    html = client_for(staff_user).get(back).content.decode()
    assert "And version 2?</textarea>" in html
    assert f'name="parent" value="{earlier.pk}"' in html


def test_a_plain_form_post_after_the_session_expired_returns_to_the_page_it_was_sent_from(
    client: Client, staff_user
) -> None:
    answer = make_answer(user=staff_user)
    page = f"http://testserver{answer.get_absolute_url()}"
    response = client.post(reverse("answer_feedback", args=[answer.pk]), {"kind": "helpful"}, HTTP_REFERER=page)
    assert response.status_code == 302
    assert _next(response) == answer.get_absolute_url()


@pytest.mark.parametrize(
    "referer",
    ["", "https://elsewhere.example/answers/1/", "http://testserver/answers/{pk}/feedback/"],
    ids=["none", "another-site", "the-endpoint-itself"],
)
def test_a_form_post_with_no_page_to_go_back_to_resumes_on_the_ask_page(client: Client, staff_user, referer) -> None:
    """No Referer, another site's, or the form's own endpoint (a page a refused post rendered there): never a URL that
    answers GET with 405, never another site."""
    answer = make_answer(user=staff_user)
    headers = {"HTTP_REFERER": referer.format(pk=answer.pk)} if referer else {}
    response = client.post(reverse("answer_feedback", args=[answer.pk]), {"kind": "helpful"}, **headers)
    assert _next(response) == "/"


def test_an_htmx_vote_after_the_session_expired_resumes_on_the_answer(client: Client, staff_user) -> None:
    answer = make_answer(user=staff_user)
    response = client.post(
        reverse("answer_feedback", args=[answer.pk]),
        {"kind": "helpful"},
        HTTP_HX_CURRENT_URL=f"http://testserver{answer.get_absolute_url()}",
        **HTMX,
    )
    assert response.status_code == 204 and _next(response) == answer.get_absolute_url()


def test_a_blank_question_resumes_on_the_page_it_was_asked_from(client: Client) -> None:
    """Nothing typed to keep: the page as it was (here a follow-up's box), not an empty ?q=."""
    response = client.post(
        reverse("ask"), {"question": " \n", "parent": "7"}, HTTP_REFERER="http://testserver/?parent=7"
    )
    assert _next(response) == "/?parent=7"


def test_a_405_is_the_apps_page_in_the_readers_language_with_a_way_back(staff_user) -> None:
    answer = make_answer(user=staff_user)
    response = client_for(staff_user).get(reverse("answer_feedback", args=[answer.pk]), **ZH)
    assert response.status_code == 405
    assert response["Allow"] == "POST"
    html = response.content.decode()
    assert '<html lang="zh-hans"' in html and 'class="skip-link"' in html  # the app's own page (base.html)
    assert "<h1" in html and "405" in html
    assert "前往提问页面" in html  # "Go to the ask page", as the 403 and 404 pages offer


def test_a_stale_form_gets_the_apps_page_with_the_question_to_ask_again(staff_user) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff_user)
    response = client.post(reverse("ask"), {"question": "退款期限是多久？", "csrfmiddlewaretoken": "x" * 64}, **ZH)
    assert response.status_code == 403
    html = response.content.decode()
    assert '<html lang="zh-hans"' in html and 'class="skip-link"' in html
    assert "cookie" not in html.lower()
    assert 'href="/?q=%E9%80%80%E6%AC%BE%E6%9C%9F%E9%99%90%E6%98%AF%E5%A4%9A%E4%B9%85%EF%BC%9F"' in html


def test_a_stale_vote_offers_its_answers_page_again(staff_user) -> None:
    """Not a question: the page the form was on, in English here, and no claim that a question was kept."""
    answer = make_answer(user=staff_user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff_user)
    response = client.post(
        reverse("answer_feedback", args=[answer.pk]),
        {"kind": "helpful", "csrfmiddlewaretoken": "x" * 64},
        HTTP_REFERER=f"http://testserver{answer.get_absolute_url()}",
    )
    assert response.status_code == 403
    html = response.content.decode()
    assert "This form was out of date" in html
    assert f'<a href="{answer.get_absolute_url()}">Open the page again</a>' in html
    assert "question is kept" not in html
    assert not answer.feedback.exists()


def test_a_405_keeps_the_allow_header_and_the_api_keeps_its_json(staff_user) -> None:
    client = client_for(staff_user)
    response = client.get(reverse("answer_feedback", args=[make_answer(user=staff_user).pk]))
    assert response.status_code == 405 and response["Allow"] == "POST"
    assert "This address is not a page" in response.content.decode()
    api = APIClient()
    api.force_authenticate(user=staff_user)
    answered = api.put("/api/v1/ask", {"question": "x"}, format="json")
    assert answered.status_code == 405 and answered.json()["code"] == "method_not_allowed"


def test_a_stale_htmx_ask_takes_the_window_to_the_ask_box_with_the_question(staff_user) -> None:
    earlier = make_answer(user=staff_user)
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff_user)
    response = client.post(
        reverse("ask"),
        {"question": "A long question\n", "parent": str(earlier.pk)},
        HTTP_X_CSRFTOKEN="x" * 64,
        HTTP_HX_CURRENT_URL="http://testserver/",
        **HTMX,
    )
    back = response["HX-Redirect"]
    assert parse_qs(urlsplit(back).query) == {"q": ["A long question\n"], "parent": [str(earlier.pk)]}
    page = client.get(back).content.decode()
    assert "A long question\n</textarea>" in page
    assert "nothing was saved. Send it again." in page  # said why the reader is back at the box


def test_a_document_search_without_javascript_keeps_the_question_thread_and_ticks(staff_user) -> None:
    factories.make_levels()
    factories.make_document("The GPL is a copyleft licence.", source_id="licenses/gpl", title="GNU GPL")
    earlier = make_answer(user=staff_user, question="When was version 3 released?")
    html = (
        client_for(staff_user)
        .get(
            reverse("ask"),
            {
                "csrfmiddlewaretoken": "t",
                "parent": str(earlier.pk),
                "question": "And version 2?",
                "scope_levels": ["official"],
                "doc_q": "GPL",
            },
            follow=True,  # to the same address less the form's CSRF token
        )
        .content.decode()
    )
    assert "licenses/gpl" in html  # the search itself
    assert "And version 2?</textarea>" in html
    assert f'name="parent" value="{earlier.pk}"' in html
    assert re.search(r'<input[^>]*name="scope_levels" value="official"[^>]*\bchecked\b', html)


def test_a_document_search_without_javascript_with_a_level_gone_since_keeps_the_rest(staff_user) -> None:
    """A box ticked for a level deleted since (or a document no longer readable): the page still comes, with the
    question and the other ticks; nothing is refused on a search."""
    factories.make_levels()
    factories.make_document("Parking is free.", source_id="secret/parking", groups=["hr"])
    response = client_for(staff_user).get(
        reverse("ask"),
        {
            "question": "Where to park?",
            "scope_levels": ["official", "gone"],
            "scope_documents": ["secret/parking"],
            "doc_q": "park",
        },
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "Where to park?</textarea>" in html
    assert re.search(r'<input[^>]*name="scope_levels" value="official"[^>]*\bchecked\b', html)
    assert "secret/parking" not in html


def _language_next(html: str) -> str:
    """Where the header's language switch returns to."""
    match = re.search(r'<input name="next" type="hidden" value="([^"]*)">', html)
    assert match, "no language switch"
    return match.group(1).replace("&amp;", "&")


def test_the_language_switch_on_a_refused_forms_page_returns_to_a_page(admin_user_role) -> None:
    factories.make_levels()
    response = client_for(admin_user_role).post(
        reverse("level_create"),
        {"slug": "", "label": "", "weight": "x"},
        HTTP_REFERER="http://testserver/manage/levels/",
    )
    assert response.status_code == 400
    back = _language_next(response.content.decode())
    assert back == "/manage/levels/"
    assert client_for(admin_user_role).get(back).status_code == 200


def test_the_language_switch_under_a_refused_question_keeps_it(staff_user) -> None:
    client = client_for(staff_user)
    response = client.post(reverse("ask"), {"question": "x" * 2001})
    assert response.status_code == 400
    # Too long for an address (session 36: gunicorn refuses a long one): the page's own address stores nothing (any
    # post could fill the session table otherwise); the ask page, where app.js keeps what is typed in the tab.
    assert _language_next(response.content.decode()) == "/"
    assert "rag_resume_question" not in client.session
    short = client.post(reverse("ask"), {"question": "\x07 bell"})
    assert short.status_code == 400
    assert parse_qs(urlsplit(_language_next(short.content.decode())).query)["q"] == ["\x07 bell"]


def test_a_stale_form_with_a_blank_question_offers_its_page_not_a_kept_question(staff_user) -> None:
    """Nothing typed: no claim that a question was kept, even where the page it came from has a search in its URL."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff_user)
    response = client.post(
        reverse("ask"),
        {"question": "  ", "csrfmiddlewaretoken": "x" * 64},
        HTTP_REFERER="http://testserver/?doc_q=GPL&question=",
    )
    html = response.content.decode()
    assert response.status_code == 403
    assert '<a href="/?doc_q=GPL&amp;question=">Open the page again</a>' in html
    assert "question is kept" not in html


def test_a_document_search_without_javascript_leaves_no_csrf_token_in_the_address(staff_user) -> None:
    client = client_for(staff_user)
    sent = {"csrfmiddlewaretoken": "t" * 64, "parent": "", "question": "Refunds?", "doc_q": "GPL"}
    response = client.get(reverse("ask"), sent)
    assert response.status_code == 302
    assert parse_qs(urlsplit(response["Location"]).query) == {"question": ["Refunds?"], "doc_q": ["GPL"]}
    assert "Refunds?</textarea>" in client.get(response["Location"]).content.decode()


@pytest.mark.parametrize("htmx", [False, True], ids=["form", "htmx"])
def test_the_login_page_says_a_question_sent_signed_out_was_not_asked(client: Client, htmx: bool) -> None:
    """Signed out (an expired session) while sending a question: the login page says the question was not asked and
    will be back in the box; a visitor who only opens a page is told nothing of the sort."""
    response = client.post(reverse("ask"), {"question": "How long is the refund window?"}, **(HTMX if htmx else {}))
    login_page = client.get(_next_login(response)).content.decode()
    assert "your question was not asked" in login_page
    assert "your question was not asked" not in client.get(reverse("ask"), follow=True).content.decode()


def _next_login(response) -> str:
    return response["HX-Redirect"] if "HX-Redirect" in response else response["Location"]
