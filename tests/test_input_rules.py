"""The smaller holes of issue 11: each input rule, and each entry point that must apply it."""

from __future__ import annotations

import io
import json

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app.ingest.parsers import BinaryFile, parse
from rag_app.models import Answer, Document, SourceLevel
from rag_app.validation import InvalidQuestion, clean_question
from tests import factories
from tests.views.conftest import client_for
from tests.workers import run_queued_jobs

pytestmark = pytest.mark.django_db


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def test_deeply_nested_json_is_a_400_not_a_500(staff_user):
    """A body nested past the recursion limit is a parse error with the usual shape."""
    body = '{"question": ' + "[" * 100_000 + "]" * 100_000 + "}"
    response = api(staff_user).post("/api/v1/ask", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "parse_error"
    assert not Answer.objects.exists()


@pytest.mark.parametrize("question", ["\u200b", "\ufeff\u200b ", "\u202e\u202c", "\u2066\u2069\u200d", " \u200c\n"])
def test_a_question_of_invisible_characters_is_empty(question):
    """Zero-width, BOM and bidi characters alone are refused like a blank question."""
    with pytest.raises(InvalidQuestion) as info:
        clean_question(question)
    assert info.value.code == "empty_question"


def test_the_web_form_refuses_an_invisible_question(staff_user):
    """The form applies the same rule (it calls it), so nothing is stored."""
    response = client_for(staff_user).post(reverse("ask"), {"question": "\u200b\u200b"})
    assert response.status_code == 400 and not Answer.objects.exists()


def test_a_long_paste_is_refused_with_the_limit_named_not_cut(staff_user):
    """5,000 characters: a clear error naming the limit, nothing stored, no silent truncation."""
    html = client_for(staff_user).get(reverse("ask")).content.decode()
    assert 'maxlength="' not in html  # a browser would cut the paste silently
    response = client_for(staff_user).post(reverse("ask"), {"question": "x" * 5000})
    assert response.status_code == 400
    assert "5,000 characters long; the limit is 2,000" in response.content.decode()
    assert not Answer.objects.exists()


def test_the_web_ask_shares_the_api_throttle(staff_user, settings, levels):
    """One bucket per user: asks through the API and the form count together."""
    cache.clear()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"ask": "2/min"}}
    from rest_framework.settings import api_settings

    api_settings.reload()
    try:
        assert api(staff_user).post("/api/v1/ask", {"question": "one?"}, format="json").status_code == 201
        assert client_for(staff_user).post(reverse("ask"), {"question": "two?"}).status_code == 302
        third = client_for(staff_user).post(reverse("ask"), {"question": "three?"})
        assert third.status_code == 429 and "Too many questions" in third.content.decode()
        assert api(staff_user).post("/api/v1/ask", {"question": "four?"}, format="json").status_code == 429
        assert Answer.objects.count() == 2
    finally:
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"ask": "60/min"}}
        api_settings.reload()
        cache.clear()


@pytest.mark.parametrize("weight", ["1e7", "-2000000", "inf"])
def test_the_web_level_forms_cap_the_weight_like_the_api(admin_user_role, levels, weight):
    """Create and update refuse a weight past MAX_LEVEL_WEIGHT, as the API does."""
    client = client_for(admin_user_role)
    created = client.post(reverse("level_create"), {"slug": "huge", "label": "Huge", "weight": weight})
    assert created.status_code == 400 and not SourceLevel.objects.filter(slug="huge").exists()
    level = levels["note"]
    client.post(reverse("level_update", args=[level.pk]), {"label": "Note", "weight": weight})
    level.refresh_from_db()
    assert level.weight == 1.0
    assert weight == "inf" or (
        api(admin_user_role)
        .post("/api/v1/levels/", {"slug": "huge", "label": "H", "weight": float(weight)}, format="json")
        .status_code
        == 400
    )


def test_api_responses_that_carry_document_text_are_not_stored(staff_user, levels):
    """Cache-Control: no-store on the API (chunks, answers, documents)."""
    factories.make_document("Open text for the cache test.", source_id="c.txt")
    chunk = factories.chunks_of("c.txt")[0]
    for url in (f"/api/v1/chunks/{chunk.chunk_id}", "/api/v1/documents/", "/api/v1/documents/c.txt"):
        assert api(staff_user).get(url)["Cache-Control"] == "no-store", url


def test_deploy_settings_come_from_the_environment(monkeypatch):
    """HSTS, the HTTPS redirect and the proxy header are set by environment variables."""
    import importlib

    import config.settings as conf

    monkeypatch.setenv("SECRET_KEY", "x" * 60)
    monkeypatch.setenv("SECURE_SSL_REDIRECT", "1")
    monkeypatch.setenv("SECURE_HSTS_SECONDS", "31536000")
    monkeypatch.setenv("SECURE_HSTS_INCLUDE_SUBDOMAINS", "1")
    monkeypatch.setenv("SECURE_PROXY_SSL_HEADER", "HTTP_X_FORWARDED_PROTO=https")
    try:
        reloaded = importlib.reload(conf)
        assert reloaded.SECURE_SSL_REDIRECT is True and reloaded.SECURE_HSTS_SECONDS == 31536000
        assert reloaded.SECURE_HSTS_INCLUDE_SUBDOMAINS is True
        assert reloaded.SECURE_PROXY_SSL_HEADER == ("HTTP_X_FORWARDED_PROTO", "https")
    finally:
        monkeypatch.undo()
        importlib.reload(conf)


@pytest.mark.parametrize("encoding", ["cp1252", "latin-1"])
def test_a_short_western_european_text_is_decoded_correctly(encoding):
    """'Café Ménétrier' in cp1252 or Latin-1 reads back as itself, never as a Baltic code page."""
    text = "Café Ménétrier, rue de l'Église: déjà vu à Noël."
    parsed = parse(text.encode(encoding), "menu.txt")
    assert parsed.text == text


@pytest.mark.parametrize(
    "data", [bytes(range(32)) * 4, b"\x00\x01\x02\x03\x04\x05" * 50, b"\x01\x02\x03\x1b[0m\x07" * 40]
)
def test_nul_and_control_bytes_are_binary_on_every_entry_point(admin_user_role, levels, data, tmp_path):
    """The parser refuses them, so the API, the web upload (each job fails `binary`) and the CLI all do
    (one validation)."""
    with pytest.raises(BinaryFile):
        parse(data, "noise.txt")
    response = api(admin_user_role).post(
        "/api/v1/documents/", {"file": SimpleUploadedFile("noise.txt", data)}, format="multipart"
    )
    assert response.status_code == 202
    assert (
        api(admin_user_role)
        .post("/api/v1/documents/?wait=1", {"file": SimpleUploadedFile("noise.txt", data)}, format="multipart")
        .json()["code"]
        == "binary"
    )
    form = client_for(admin_user_role).post(reverse("document_upload"), {"file": SimpleUploadedFile("noise.txt", data)})
    assert form.status_code == 302
    assert [(job.state, job.error_code) for job in run_queued_jobs()] == [("failed", "binary")] * 2
    path = tmp_path / "noise.txt"
    path.write_bytes(data)
    with pytest.raises(Exception, match="1 of 1 files failed"):
        call_command("ingest", str(path))
    assert not Document.objects.exists()


def test_the_viewer_pages_a_very_large_version(staff_user, levels, settings):
    """Thousands of chunks are shown a window at a time; ?chunk= opens the page that holds it."""
    settings.RAG = {**settings.RAG, "CHUNK_TARGET": 60, "CHUNK_MAX": 80}
    text = "\n\n".join(f"Paragraph {i} of the long handbook says nothing much." for i in range(450))
    factories.make_document(text, source_id="big.txt")
    client = client_for(staff_user)
    first = client.get(reverse("document_version", args=["big.txt", 1])).content.decode()
    assert (
        first.count('role="group" aria-label="chunk ') == 100
        and 'id="chunk-0"' in first
        and 'id="chunk-100"' not in first
    )
    cited = client.get(reverse("document_version", args=["big.txt", 1]) + "?chunk=321").content.decode()
    assert 'id="chunk-321"' in cited and 'id="chunk-0"' not in cited
    assert json.dumps("page 4 of").strip('"') in cited


def test_check_deploy_passes_with_the_documented_settings():
    """The environment in docs/SECURITY.md makes `manage.py check --deploy` silent."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    env = {
        **os.environ,
        "DEBUG": "0",
        "SECRET_KEY": "k" * 20 + "-Deploy-check-key-with-enough-length-and-variety-123",
        "ALLOWED_HOSTS": "example.org",
        "SECURE_SSL_REDIRECT": "1",
        "SECURE_HSTS_SECONDS": "31536000",
        "SECURE_HSTS_INCLUDE_SUBDOMAINS": "1",
        "SECURE_HSTS_PRELOAD": "1",
    }
    env.pop("DJANGO_SETTINGS_MODULE", None)
    root = Path(__file__).resolve().parent.parent
    run = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr


# Found by a reviewing helper's probes (session 24).


def test_the_list_opens_a_document_whose_source_id_ends_like_a_version(levels, staff_user):
    """ "handbook/v2" is a valid source_id; the list's link opens it, not version 2 of "handbook"."""
    factories.make_document("Old handbook text one.", source_id="handbook")
    factories.ingest_text("Old handbook text two, changed.", source_id="handbook")
    factories.make_document("Appendix text about parking.", source_id="handbook/v2")
    client = client_for(staff_user)
    html = client.get(reverse("document_list")).content.decode()
    link = reverse("document_version", args=["handbook/v2", 1])
    assert f'href="{link}"' in html
    assert "Appendix text about parking." in client.get(link).content.decode()


def test_a_date_sent_alone_with_unchanged_content_keeps_the_other(levels):
    import datetime as dt

    from rag_app.ingest.service import IngestError
    from rag_app.models import DocumentVersion

    text = "Dated policy text for the dates test."
    factories.ingest_text(
        text, source_id="dated", effective_from=dt.date(2024, 1, 1), effective_until=dt.date(2024, 12, 31)
    )
    factories.ingest_text(text, source_id="dated", effective_until=dt.date(2025, 6, 30))
    v = DocumentVersion.objects.get(document__source_id="dated", is_current=True)
    assert (v.effective_from, v.effective_until) == (dt.date(2024, 1, 1), dt.date(2025, 6, 30))
    with pytest.raises(IngestError, match="before effective_from"):  # checked against the stored date
        factories.ingest_text(text, source_id="dated", effective_until=dt.date(2023, 6, 30))
    v.refresh_from_db()
    assert (v.effective_from, v.effective_until) == (dt.date(2024, 1, 1), dt.date(2025, 6, 30))


@pytest.mark.parametrize("comment", ["see \u202eevil\u202c here", "isolate \u2067x\u2069", "bell \x07"])
def test_comments_and_review_notes_refuse_bidi_overrides_as_questions_do(levels, staff_user, comment):
    from rag_app.models import AnswerReview, Feedback
    from tests.views.answers import refund_answer

    answer = refund_answer(user=staff_user)
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    feedback = api(staff_user).post(
        f"/api/v1/answers/{answer.pk}/feedback", {"kind": "not_helpful", "comment": comment}, format="json"
    )
    review = api(reviewer).post(
        f"/api/v1/answers/{answer.pk}/review", {"verdict": "ok", "note": comment}, format="json"
    )
    assert (feedback.status_code, review.status_code) == (400, 400)
    assert not Feedback.objects.exists() and not AnswerReview.objects.exists()


@pytest.mark.parametrize("title", ["Bad\x07bell", "new\nline", "rtl \u202egnp.exe", "escape \x1b[31m red"])
def test_a_title_with_control_or_bidi_characters_is_refused_on_the_web_and_the_api(levels, admin_user_role, title):
    web = client_for(admin_user_role).post(
        reverse("document_upload"), {"file": SimpleUploadedFile("ctl.txt", b"Control title text."), "title": title}
    )
    uploaded = api(admin_user_role).post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("ctl2.txt", b"Control title text two."), "title": title},
        format="multipart",
    )
    assert (web.status_code, uploaded.status_code) == (400, 400)
    assert "title" in uploaded.json()["detail"] or "title" in json.dumps(uploaded.json())
    assert not Document.objects.exists()


def test_the_command_line_refuses_a_title_longer_than_its_column_instead_of_cutting_it(levels, tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Some text for the long title test.")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 of 1 files failed"):
        call_command("ingest", str(path), "--title", "T" * 600, "--source-id", "long-title", stderr=err)
    assert "the limit is 500" in err.getvalue()
    assert not Document.objects.filter(source_id="long-title").exists()


def test_a_title_changed_through_the_api_follows_the_same_rule(levels, admin_user_role):
    factories.make_document("Renamed text.", source_id="renamed")
    client = api(admin_user_role)
    bad = client.patch("/api/v1/documents/renamed", {"title": "rtl \u202egnp.exe"}, format="json")
    assert bad.status_code == 400 and "bidirectional" in json.dumps(bad.json())
    good = client.patch("/api/v1/documents/renamed", {"title": "Renamed policy"}, format="json")
    assert good.status_code == 200 and Document.objects.get(source_id="renamed").title == "Renamed policy"


def test_a_bad_review_filter_is_an_error_not_the_unfiltered_list(levels):
    from tests.views.answers import refund_answer
    from tests.views.conftest import HTMX

    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    refund_answer(user=reviewer)
    client = client_for(reviewer)
    for headers in ({}, HTMX):
        response = client.get(reverse("review_list"), {"state": "bogus", "date_from": "2024-02-30"}, **headers)
        html = response.content.decode()
        assert response.status_code == 400 and "cannot be used" in html
        assert "0 answers" in html and "refund" not in html.lower().split("review-results", 1)[1]
        # each error says which filter it is about in the form's own words, not the field's name
        alert = html.split('role="alert"')[1].split("</div>")[0]
        assert "<li>From: " in alert and "<li>State: " in alert and "date_from" not in alert
    assert client.get(reverse("review_list"), {"state": "answered"}).status_code == 200


@pytest.mark.parametrize("label", ["Bell\x07", "two\nlines", "rtl \u202elevel"])
def test_a_level_label_follows_the_title_rule_on_the_web_and_the_api(levels, admin_user_role, label):
    created = api(admin_user_role).post(
        "/api/v1/levels/", {"slug": "memo", "label": label, "weight": 0.5}, format="json"
    )
    web = client_for(admin_user_role).post(reverse("level_create"), {"slug": "memo2", "label": label, "weight": 0.5})
    assert (created.status_code, web.status_code) == (400, 400)
    assert not SourceLevel.objects.filter(slug__in=["memo", "memo2"]).exists()


def test_the_level_description_has_the_same_limit_on_the_web_as_on_the_api(levels, admin_user_role):
    long = "d" * 2001
    client_for(admin_user_role).post(
        reverse("level_create"), {"slug": "memo", "label": "Memo", "weight": 0.5, "description": long}
    )
    assert not SourceLevel.objects.filter(slug="memo").exists()
    client_for(admin_user_role).post(
        reverse("level_create"), {"slug": "memo", "label": "Memo", "weight": 0.5, "description": "d" * 2000}
    )
    assert SourceLevel.objects.filter(slug="memo").exists()  # the same form, within the limit, creates it


# --- refusals in the reader's language, with the same codes (session 28) -----------------------------------------


def test_an_upload_refusal_keeps_its_code_in_every_language_and_the_cli_says_it_in_english(
    levels, admin_user_role, tmp_path
):
    """validation's messages follow the request's language (the upload page, the API); the codes that programs read
    do not change, and the command line, which has no reader's language, says the same rule in English."""
    client = api(admin_user_role)
    bodies = {}
    for language in ("en", "zh-CN"):
        response = client.post(
            "/api/v1/documents/?wait=1",
            {"file": SimpleUploadedFile("refund.txt", b"Refunds take thirty days."), "source_id": " refund.txt"},
            format="multipart",
            HTTP_ACCEPT_LANGUAGE=language,
        )
        assert response.status_code == 400
        bodies[language] = response.json()
    assert bodies["en"]["code"] == bodies["zh-CN"]["code"] == "invalid_source_id"  # the rule's code (trial 31e)
    assert list(bodies["en"]["fields"]) == list(bodies["zh-CN"]["fields"]) == ["source_id"]
    assert "must not start or end with whitespace" in bodies["en"]["detail"]
    assert "开头和结尾不能是空白字符" in bodies["zh-CN"]["detail"]

    path = tmp_path / "refund.txt"
    path.write_text("Refunds take thirty days.")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 of 1 files failed"):
        call_command("ingest", str(path), "--source-id", " refund.txt", stderr=err)
    assert "error invalid_source_id: source_id must not start or end with whitespace" in err.getvalue()
    assert not Document.objects.exists()


@pytest.mark.parametrize("title", ["\u200b\u2060", " \u200d "])
def test_a_title_that_shows_nothing_is_refused_on_the_command_line_too(levels, tmp_path, title):
    path = tmp_path / "t.txt"
    path.write_text("Some text for the invisible title test.")
    err = io.StringIO()
    with pytest.raises(CommandError, match="1 of 1 files failed"):
        call_command("ingest", str(path), "--title", title, stderr=err)
    assert "invalid_title: the title shows nothing" in err.getvalue()
    assert not Document.objects.exists()


# --- upload names kept whole (session 28) ----------------------------------------------------------------------------


def _named(name: str, body: bytes) -> io.BytesIO:
    file = io.BytesIO(body)
    file.name = name  # sent as it is (SimpleUploadedFile would cut it to 255 characters before sending)
    return file


@pytest.mark.parametrize("surface", ["api", "web"])
def test_a_file_name_up_to_500_characters_is_kept_whole_and_a_longer_one_refused(
    levels, admin_user_role, surface, settings
):
    """Django's UploadedFile cuts a name past 255 characters; the upload parsers keep it whole, up to what a source_id
    (and the stored file name) may be. Also for a file past FILE_UPLOAD_MAX_MEMORY_SIZE (a temporary file)."""
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024
    kept = "k" * 496 + ".txt"
    refused = "r" * 497 + ".txt"
    body = b"Travel is reimbursed at the published rates. " * 40  # over 1 KiB: written to a temporary file
    responses = []
    for name in (kept, refused):
        if surface == "api":
            responses.append(
                api(admin_user_role).post("/api/v1/documents/?wait=1", {"file": _named(name, body)}, format="multipart")
            )
        else:
            responses.append(client_for(admin_user_role).post(reverse("document_upload"), {"file": _named(name, body)}))
            run_queued_jobs()
    assert [d.source_id for d in Document.objects.all()] == [kept]
    assert Document.objects.get().current_version().file_name == kept
    assert responses[1].status_code == 400
    if surface == "api":
        assert responses[1].json()["code"] == "invalid_file_name", responses[1].json()
    assert "the file name is 501 characters long; the limit is 500" in responses[1].content.decode()


def test_a_large_upload_with_a_very_long_extension_is_refused_not_a_server_error(levels, admin_user_role, settings):
    """A file past FILE_UPLOAD_MAX_MEMORY_SIZE is written to a temporary file named after its extension: a
    300-character one could not be created (OSError, a 500). It is refused as the unsupported type it is."""
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 1024
    name = "notes." + "x" * 300
    client = api(admin_user_role)
    client.raise_request_exception = False
    response = client.post(
        "/api/v1/documents/?wait=1", {"file": _named(name, b"Some text. " * 200)}, format="multipart"
    )
    assert (response.status_code, response.json()["code"]) == (400, "unsupported_type"), response.json()
    assert not Document.objects.exists()
