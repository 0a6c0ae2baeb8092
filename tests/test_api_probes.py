"""Adversarial probes of the API against the page and the CLI: one input, one rule, one answer (helper session).

Each test asserts the correct behaviour. The ones marked BUG in their docstring fail on the code as probed
(commit 40400eb); the others pin what was checked and found right. Run:
DEBUG=1 .venv/bin/python -m pytest -q tests/test_api_probes.py -p no:cacheprovider
(RAG_TEST_DB=postgres: the NUL-in-token probe fails only there, the calendar-edge dates only on SQLite).
"""

from __future__ import annotations

import json
import re

import pytest
import yaml
from django.contrib.auth.models import Group
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app.models import Answer, Document, Feedback, SourceLevel
from tests import factories
from tests.views.conftest import client_for
from tests.workers import run_queued_jobs

pytestmark = pytest.mark.django_db

REFUND = "Refunds are accepted within 30 days of purchase with the original receipt."


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def _cli_error(question: str) -> tuple[str, str]:
    """(message, code) of `manage.py ask QUESTION` refusing the question."""
    with pytest.raises(CommandError) as info:
        call_command("ask", question)
    message, code = re.fullmatch(r"(.*) \((\w+)\)", str(info.value), re.S).groups()  # type: ignore[union-attr]
    return message, code


def _page_errors(response) -> list[str]:
    return re.findall(
        r"<li>(.*?)</li>",
        " ".join(re.findall(r'class="errorlist[^"]*"[^>]*>(.*?)</ul>', response.content.decode(), re.S)),
    )


@pytest.fixture
def corpus(levels) -> None:
    factories.ingest_text(REFUND, source_id="policy/refund.txt", title="Refund policy")


# --- questions: the same bad input, the same error on every entry point ------------------------------------


@pytest.mark.parametrize(
    "question",
    ["", "   \n\t ", "x" * 2001, "what\x00is this"],
    ids=["empty", "whitespace-only", "2001-chars", "nul"],
)
def test_the_api_refuses_a_bad_question_with_the_same_code_and_message_as_the_cli(corpus, staff_user, question):
    """BUG. validation.clean_question is the one rule, but the API's AskInput.question (a DRF CharField with
    max_length, blank and NUL checks of its own) answers first: code `invalid` and DRF's wording ("This field
    may not be blank.", "Ensure this field has no more than 2000 characters.", "Null characters are not
    allowed.") where the CLI (and, for the length, the page) give empty_question / question_too_long /
    invalid_question with the rule's message. A zero-width-only question gets empty_question on the API, a
    space-only one `invalid`: clients cannot branch on the code."""
    message, code = _cli_error(question)
    response = api(staff_user).post("/api/v1/ask", {"question": question}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert (body["code"], body["fields"]["question"]) == (code, [message])
    assert not Answer.objects.exists()


def test_a_too_long_question_is_refused_with_the_same_message_on_the_page_and_the_api(corpus, staff_user):
    """BUG. forms.AskForm says the limit is named with "the same message the API and the CLI give"; the API's
    is DRF's."""
    page = client_for(staff_user).post(reverse("ask"), {"question": "x" * 2001})
    response = api(staff_user).post("/api/v1/ask", {"question": "x" * 2001}, format="json")
    assert page.status_code == response.status_code == 400
    assert "The question is 2,001 characters long; the limit is 2,000." in _page_errors(page)
    assert response.json()["detail"] == "The question is 2,001 characters long; the limit is 2,000."


@pytest.mark.parametrize("question", ["\u200b\u200b", "a\u202eb", "bell \x07"], ids=["zero-width", "bidi", "control"])
def test_invisible_bidi_and_control_questions_get_the_same_code_everywhere(corpus, staff_user, question):
    """Safe: where the API lets validation.clean_question decide, page, API and CLI agree."""
    message, code = _cli_error(question)
    body = api(staff_user).post("/api/v1/ask", {"question": question}, format="json").json()
    page = client_for(staff_user).post(reverse("ask"), {"question": question})
    assert (body["code"], body["detail"]) == (code, message)
    assert page.status_code == 400 and message in _page_errors(page)


# --- comments and notes: measured as typed, like questions -------------------------------------------------


def test_a_comment_of_2000_typed_characters_is_accepted_whatever_its_normal_form(corpus, staff_user, reviewer_user):
    """BUG. The fix made for questions (count as typed; U+0958 is two characters in NFC) was not made for
    comments and review notes: validation.clean_comment measures the NFC form, so 2,000 typed characters
    (the API's max_length and the form's counter allow them) are refused as "4,000 characters long"."""
    answer = api(staff_user).post("/api/v1/ask", {"question": "refund days?"}, format="json").json()
    comment = "\u0958" * 2000
    response = api(staff_user).post(
        f"/api/v1/answers/{answer['id']}/feedback", {"kind": "not_helpful", "comment": comment}, format="json"
    )
    assert response.status_code == 201, response.json()
    note = api(reviewer_user).post(
        f"/api/v1/answers/{answer['id']}/review", {"verdict": "ok", "note": comment}, format="json"
    )
    assert note.status_code == 201, note.json()


# --- documents: one rule per field whichever way it is changed --------------------------------------------


def test_a_url_changed_through_the_api_follows_the_upload_rule(corpus, admin_user_role):
    """BUG. An upload refuses a URL that is not http(s) (ingest.service.check_request: invalid_url); PATCH
    documents/<id> takes DRF's URLField, which allows ftp:// and ftps://, and stores it. The API and the
    answer JSON then carry a link the document page (views.documents._web_url) refuses to show."""
    client = api(admin_user_role)
    upload = client.post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("b.txt", b"Some text here."), "url": "ftp://files.example.org/b.txt"},
        format="multipart",
    )
    assert upload.status_code == 400 and upload.json()["code"] == "invalid_url"
    patch = client.patch("/api/v1/documents/policy/refund.txt", {"url": "ftp://files.example.org/r"}, format="json")
    assert patch.status_code == 400, patch.json()
    assert Document.objects.get(source_id="policy/refund.txt").url == ""


def test_a_blank_title_sent_with_a_new_version_keeps_the_title_as_on_the_web(levels, admin_user_role):
    """BUG (or an undocumented difference). The web upload reads a blank title/url as "keep"
    (views.documents.document_upload: `data["title"] or None`); the API passes "" on, so a client that sends
    every form field (curl -F title="$TITLE" with nothing set) wipes the document's title and URL. The API
    documents this "sent empty = clear" meaning for groups only."""
    client = api(admin_user_role)
    first = {
        "file": SimpleUploadedFile("a.txt", b"Refunds take 30 days."),
        "title": "Refund policy",
        "url": "https://example.org/a",
    }
    assert client.post("/api/v1/documents/?wait=1", first, format="multipart").status_code == 201
    second = {"file": SimpleUploadedFile("a.txt", b"Refunds take 31 days."), "title": "", "url": ""}
    response = client.post("/api/v1/documents/?wait=1", second, format="multipart")
    assert response.status_code == 201
    assert (response.json()["document"]["title"], response.json()["document"]["url"]) == (
        "Refund policy",
        "https://example.org/a",
    )


def test_the_versions_list_refuses_bad_paging_and_unknown_parameters_like_every_other_list(corpus, staff_user):
    """BUG. documents/, answers/ and ingest-jobs/ refuse limit=abc and unknown parameters with 400; the versions
    list (DocumentVersionsApi, PAGE_PARAMETERS only) silently answers the default page."""
    client = api(staff_user)
    assert client.get("/api/v1/documents/?limit=abc").status_code == 400
    assert client.get("/api/v1/documents/?ordering=-title").status_code == 400
    assert client.get("/api/v1/documents/policy/refund.txt/versions/?limit=abc").status_code == 400
    assert client.get("/api/v1/documents/policy/refund.txt/versions/?ordering=-sha256").status_code == 400


# --- date filters ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("tz", "query"),
    [
        ("Asia/Shanghai", "date_from=0001-01-01"),
        ("America/New_York", "date_to=9999-12-31"),
        ("Asia/Shanghai", "date=0001-01-01"),
        ("America/New_York", "date=9999-12-31"),
    ],
)
def test_a_date_filter_at_the_edge_of_the_calendar_is_never_a_500(corpus, reviewer_user, settings, tz, query):
    """BUG. selectors.answer_list builds aware datetimes (date 0001-01-01 00:00 +08:00, 9999-12-31 23:59 -05:00)
    that overflow when converted to UTC for the query: 500 on the API and an unhandled OverflowError on the
    review page, under any TIME_ZONE but UTC (this product's users are in Asia/Shanghai). SQLite only (its backend
    makes the value naive in Python; PostgreSQL takes the aware value): the default database of `make run`."""
    settings.TIME_ZONE = tz
    response = api(reviewer_user).get("/api/v1/answers/?" + query)
    page = Client(raise_request_exception=False)
    page.force_login(reviewer_user)
    web = page.get("/review/?" + query.replace("date=", "date_from="))
    assert (response.status_code, web.status_code < 500) == (200, True), (response.status_code, web.status_code)


# --- uploads: file names ---------------------------------------------------------------------------------


@pytest.mark.parametrize("surface", ["api", "web"])
def test_a_file_name_with_an_invisible_character_never_becomes_a_version_of_another_document(
    levels, admin_user_role, surface
):
    """BUG. "notes\u200b.txt" breaks the source_id rule (the CLI refuses it), but Django's multipart parser drops
    non-printable characters from upload names before the app sees them, so the API and the web upload
    silently make it version 2 of the existing, different document "notes.txt"."""
    factories.ingest_text("Notes of the first meeting.", source_id="notes.txt", file_name="notes.txt")
    upload = SimpleUploadedFile("notes\u200b.txt", b"An unrelated file about parking.")
    if surface == "api":
        api(admin_user_role).post("/api/v1/documents/?wait=1", {"file": upload}, format="multipart")
    else:
        client_for(admin_user_role).post(reverse("document_upload"), {"file": upload})
        run_queued_jobs()
    assert Document.objects.get(source_id="notes.txt").versions.count() == 1


def test_two_files_of_one_name_in_one_web_upload_are_not_silently_made_versions_of_each_other(levels, admin_user_role):
    """BUG. Choosing hr/policy.txt and it/policy.txt together (a browser sends base names) queues two jobs for
    source_id "policy.txt": the second silently supersedes the first, which no longer answers anything (the
    CLI, given the folder, keeps them apart as hr/policy.txt and it/policy.txt). Refuse, or keep both."""
    client = client_for(admin_user_role)
    files = [
        SimpleUploadedFile("policy.txt", b"HR: leave is 25 days."),
        SimpleUploadedFile("policy.txt", b"IT: passwords rotate yearly."),
    ]
    response = client.post(reverse("document_upload"), {"file": files})
    run_queued_jobs()
    refused = response.status_code == 400
    kept_apart = Document.objects.count() == 2
    assert refused or kept_apart, list(Document.objects.values_list("source_id", flat=True))


def test_a_refused_file_of_a_multi_file_web_upload_is_named_in_the_error(levels, admin_user_role):
    """BUG. One bad name among several files refuses the whole upload (right: all or nothing) with
    "source_id must not start or end with whitespace" and no file name: with 30 files the admin cannot tell
    which. The CLI's error line names the file."""
    files = [SimpleUploadedFile("good.txt", b"Fine text."), SimpleUploadedFile(" bad.txt", b"Other text.")]
    response = client_for(admin_user_role).post(reverse("document_upload"), {"file": files})
    assert response.status_code == 400
    errors = " ".join(_page_errors(response))
    assert "whitespace" in errors and "bad.txt" in errors, errors


@pytest.mark.parametrize(
    ("name", "expected"),
    [("a/b/../c.txt", "c.txt"), ("..\\..\\evil.txt", "evil.txt"), ("x" * 600 + ".txt", None)],
    ids=["slash-dotdot", "backslash", "600-chars"],
)
def test_path_separators_in_an_uploaded_name_never_reach_the_source_id(levels, admin_user_role, name, expected):
    """Safe: the multipart parser keeps the base name only. A name longer than a source_id may be is refused, never
    cut (Django's cut to 255 characters made two long names one document: tests/test_robustness_probes28.py)."""
    boundary = "BOUNDARY"
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
        f"Content-Type: text/plain\r\n\r\nHello there. Some text.\r\n--{boundary}--\r\n"
    ).encode()
    response = api(admin_user_role).generic(
        "POST", "/api/v1/documents/?wait=1", body, content_type=f"multipart/form-data; boundary={boundary}"
    )
    if expected is None:
        assert (response.status_code, response.json()["code"]) == (400, "invalid_file_name")
        assert not Document.objects.exists()
        return
    assert response.status_code == 201, response.content[:300]
    source_id = response.json()["source_id"]
    assert ".." not in source_id and "\\" not in source_id and "/" not in source_id
    assert source_id == expected


def test_empty_uploads_are_refused_as_empty_on_the_api_and_the_web(levels, admin_user_role):
    """Safe: 0 bytes are refused as a blank file is, code `empty`, nothing stored: `?wait=1` answers 400, a queued
    upload (API or page) is a failed job, so one empty file among several fails alone (tests/test_trial31b.py)."""
    client = api(admin_user_role)
    waited = client.post("/api/v1/documents/?wait=1", {"file": SimpleUploadedFile("e.txt", b"")}, format="multipart")
    assert waited.status_code == 400 and waited.json()["code"] == "empty"
    empty = client.post("/api/v1/documents/", {"file": SimpleUploadedFile("e.txt", b"")}, format="multipart")
    assert empty.status_code == 202 and empty.json()["job"]["results"][0]["error"] == "empty"
    web = client_for(admin_user_role).post(reverse("document_upload"), {"file": SimpleUploadedFile("e.txt", b"")})
    assert web.status_code == 302
    page = client_for(admin_user_role).get(reverse("document_upload")).content.decode()
    assert "The file holds no text." in page
    assert not Document.objects.exists()


# --- the schema says what the server answers -------------------------------------------------------------


def _documented(client, path: str, method: str) -> set[str]:
    schema = yaml.safe_load(client.get("/api/v1/schema/").content)
    return set(schema["paths"][path][method.lower()]["responses"])


def test_every_json_write_documents_the_413_it_returns(corpus, admin_user_role, client):
    """BUG. A JSON body over DATA_UPLOAD_MAX_MEMORY_SIZE is a 413 too_large on every write, but only ask and the
    upload list 413 in the schema (api.base.errors): feedback, review, levels create/update and document update
    do not, so schema-driven clients and the schemathesis check cannot expect it."""
    admin = api(admin_user_role)
    answer = admin.post("/api/v1/ask", {"question": "refund days?"}, format="json").json()["id"]
    body = json.dumps({"comment": "x" * 3_000_000})
    missing = []
    for method, url, path in [
        ("POST", f"/api/v1/answers/{answer}/feedback", "/api/v1/answers/{answer_id}/feedback"),
        ("POST", f"/api/v1/answers/{answer}/review", "/api/v1/answers/{answer_id}/review"),
        ("POST", "/api/v1/levels/", "/api/v1/levels/"),
        ("PATCH", "/api/v1/levels/official", "/api/v1/levels/{slug}"),
        ("PATCH", "/api/v1/documents/policy/refund.txt", "/api/v1/documents/{source_id}"),
    ]:
        response = admin.generic(method, url, body, content_type="application/json")
        assert response.status_code == 413 and response.json()["code"] == "too_large"
        if "413" not in _documented(client, path, method):
            missing.append(f"{method} {path}")
    assert missing == []


@pytest.mark.parametrize("how", [{"HTTP_ACCEPT": "text/html"}, {"query": "?format=api"}], ids=["accept", "format"])
def test_the_api_answers_only_in_the_content_type_its_schema_documents(corpus, staff_user, how):
    """BUG. The schema documents application/json only, but DRF's default renderers are on (settings
    REST_FRAMEWORK has no DEFAULT_RENDERER_CLASSES): Accept: text/html or ?format=api gets the Browsable API
    page, in production too; and ?format=json is an "Unknown field" 400 on the lists but accepted on details."""
    url = "/api/v1/documents/policy/refund.txt" + how.get("query", "")
    response = api(staff_user).get(url, **{k: v for k, v in how.items() if k != "query"})
    assert response["Content-Type"].startswith("application/json") or response.status_code == 406


def test_an_unsatisfiable_accept_header_is_the_error_shape(corpus, staff_user):
    """Safe (shape): 406 comes in the one JSON error shape (though no operation lists 406 in the schema)."""
    response = api(staff_user).get("/api/v1/documents/policy/refund.txt", HTTP_ACCEPT="application/xml")
    assert response.status_code == 406 and response.json()["code"] == "not_acceptable"


# --- authentication ----------------------------------------------------------------------------------------


def test_a_token_holding_a_nul_is_a_401_not_a_500(db):
    """BUG on PostgreSQL (passes on SQLite). DRF's TokenAuthentication looks the key up as given; a NUL in it is a
    DataError, so `Authorization: Token a\\x00b` is a 500 instead of 401. (Whether a NUL header reaches Django
    depends on the server in front.)"""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token a\x00b")
    assert client.get("/api/v1/documents/").status_code == 401


def test_session_and_token_edge_cases_are_refused(levels):
    """Safe: a role removed mid-session is 403 at once (API and page); an inactive user's session is anonymous
    (401 / login redirect); a deleted user's token is 401; session writes without CSRF are 403."""
    user = factories.make_user("s1", groups=("staff",))
    session = Client(enforce_csrf_checks=True)
    session.force_login(user)
    assert session.get("/api/v1/documents/").status_code == 200
    user.groups.remove(Group.objects.get(name="staff"))
    assert session.get("/api/v1/documents/").status_code == 403 and session.get("/documents/").status_code == 403
    user.groups.add(Group.objects.get(name="staff"))
    user.is_active = False
    user.save()
    assert session.get("/api/v1/documents/").status_code == 401 and session.get("/documents/").status_code == 302
    gone = factories.make_user("gone", groups=("staff",))
    key = Token.objects.create(user=gone).key
    gone.delete()
    token = APIClient()
    token.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert token.get("/api/v1/documents/").status_code == 401
    admin = Client(enforce_csrf_checks=True)
    admin.force_login(factories.make_admin("adm"))
    factories.ingest_text(REFUND, source_id="r.txt")
    patch = admin.generic(
        "PATCH", "/api/v1/documents/r.txt", json.dumps({"title": "x"}), content_type="application/json"
    )
    assert patch.status_code == 403 and admin.post("/api/v1/documents/r.txt/retire").status_code == 403
    assert Document.objects.get(source_id="r.txt").title == "" and Document.objects.get().retired_at is None


# --- scope and numbers -------------------------------------------------------------------------------------


def test_a_scope_naming_a_hidden_document_reads_like_an_unknown_one_on_the_api_and_the_page(levels, staff_user):
    """Safe: the same 400 and wording for a hidden and a missing id (services.scope._unknown)."""
    factories.ingest_text("Secret salary bands.", source_id="secret.txt", groups=["hr"])
    factories.ingest_text(REFUND, source_id="open.txt")
    client = api(staff_user)

    def api_message(source_id: str) -> str:
        response = client.post(
            "/api/v1/ask", {"question": "salary?", "scope": {"documents": [source_id]}}, format="json"
        )
        assert response.status_code == 400
        return response.json()["fields"]["scope"][0].replace(source_id, "ID")

    assert api_message("secret.txt") == api_message("nothere.txt")
    page = client_for(staff_user)
    hidden = page.post(reverse("ask"), {"question": "salary?", "scope_documents": ["secret.txt"]})
    missing = page.post(reverse("ask"), {"question": "salary?", "scope_documents": ["nothere.txt"]})
    assert hidden.status_code == missing.status_code == 400
    assert [e.replace("secret.txt", "ID") for e in _page_errors(hidden)] == [
        e.replace("nothere.txt", "ID") for e in _page_errors(missing)
    ]
    assert not Answer.objects.exists()


def test_nan_and_huge_page_sizes_are_handled(corpus, admin_user_role):
    """Safe: a NaN weight is a 400 (the web form refuses it too); limit=10**9 is capped at 200."""
    client = api(admin_user_role)
    assert client.patch("/api/v1/levels/official", {"weight": "NaN"}, format="json").status_code == 400
    assert SourceLevel.objects.get(slug="official").weight == 3.0
    response = client.get("/api/v1/documents/?limit=1000000000")
    assert response.status_code == 200 and response.json()["count"] == 1


def test_feedback_on_a_citation_of_another_answer_is_refused(corpus, staff_user):
    """Safe: a citation id is accepted only among those the reader is shown on this answer."""
    client = api(staff_user)
    first = client.post("/api/v1/ask", {"question": "refund days?"}, format="json").json()
    second = client.post("/api/v1/ask", {"question": "refund receipt?"}, format="json").json()
    assert first["state"] == "answered"
    from rag_app.models import Citation

    other = Citation.objects.filter(paragraph__answer_id=first["id"]).first()
    response = client.post(
        f"/api/v1/answers/{second['id']}/feedback",
        {"kind": "citation_wrong", "citation_id": other.pk},
        format="json",
    )
    assert response.status_code == 400 and "citation_id" in response.json()["fields"]
    assert not Feedback.objects.exists()
