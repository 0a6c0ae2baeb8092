"""Bad input and outages (session 28 probes): bad input gets a clear error in the user's language and loses nothing;
every question asked is stored with its trace, whatever happened.

Each test asserts the correct behaviour; each failing one is a confirmed defect, marked xfail(strict=True) with what
the user sees. They run on SQLite and on PostgreSQL (RAG_TEST_DB=postgres); the outage tests stop the session's
Redis (tests/redisserver.py) and talk to the scripted embedding server (tests/embedding_server.py) over real HTTP.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app import services
from rag_app.ingest.parsers import EmptyDocument, parse
from rag_app.models import Answer, Document, IngestJob, SourceLevel
from rag_app.services.ingest_jobs import ingest_job_create
from rag_app.tasks import ingest_file
from tests import factories, redisserver
from tests.embedding_server import EmbeddingServer, embedding_server
from tests.llm_server import Reply, ScriptedServer, completion, scripted_server
from tests.services.test_ask import use_llm
from tests.views.conftest import client_for
from tests.workers import run_queued_jobs

pytestmark = pytest.mark.django_db

__all__ = ["embedding_server", "scripted_server"]  # fixtures

ZH = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}
REFUND = (
    "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt. "
    "Gift cards cannot be refunded."
)
Q_REFUND = "Within how many days of purchase are refunds accepted?"
needs_redis = pytest.mark.skipif(redisserver.SERVER is None, reason="needs redis-server (scripts/system-deps.sh)")


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    cache.clear()


def _has_chinese(text: str) -> bool:
    return any("\u4e00" <= ch <= "\u9fff" for ch in text)


# --- Redis down while a question is asked ------------------------------------------------------------------------


@needs_redis
def test_asking_while_redis_is_down_stores_the_question(levels, staff_user):
    """docs/DEPLOYMENT.md: with the broker down "Asking is not affected"; in the one-server and several-machine shapes
    the broker and the ask throttle's cache are one Redis. rag_app/throttling.py AskThrottle._count calls the cache
    unguarded (views/ask.py ask_wait, api AskApi.throttle_classes), so a Redis outage turns every question into a 500
    (page and API) and nothing is stored: the question is lost."""
    assert redisserver.SERVER is not None
    factories.ingest_text(REFUND, source_id="policy/refund.txt", title="Refund policy")
    web = client_for(staff_user)
    web.raise_request_exception = False
    client = api(staff_user)
    client.raise_request_exception = False
    redisserver.SERVER.stop()
    try:
        page = web.post(reverse("ask"), {"question": Q_REFUND})
        response = client.post("/api/v1/ask", {"question": Q_REFUND}, format="json")
    finally:
        redisserver.SERVER.start()
    assert page.status_code in (200, 302), page.status_code
    assert response.status_code == 201, response.content[:300]
    assert Answer.objects.filter(question=Q_REFUND).count() == 2


# --- the upload page's refusals in the reader's language -----------------------------------------------------------


@pytest.mark.parametrize(
    "fields",
    [
        {"source_id": " policy/refund.txt"},  # a leading space
        {"source_id": "policy/\u200brefund.txt"},  # a zero-width space
        {"title": "Refund\x07 policy"},  # a control character
    ],
    ids=["source_id-space", "source_id-zero-width", "title-control"],
)
def test_the_upload_page_refuses_bad_identifiers_in_the_readers_language(levels, admin_user_role, fields):
    """Everything else on the page is in Chinese (labels, help texts, the job failures: presentation.JOB_FAILURES);
    the one sentence that says what is wrong with the admin's input is English: forms._check_source_id and
    ingest.service.check_request pass on validation's English strings (the question and comment rules use gettext)."""
    client = client_for(admin_user_role)
    response = client.post(
        reverse("document_upload"), {"file": SimpleUploadedFile("refund.txt", REFUND.encode()), **fields}, **ZH
    )
    assert response.status_code == 400
    assert not IngestJob.objects.exists() and not Document.objects.exists()
    html = response.content.decode()
    errors = html.split('class="errorlist', 1)[1].split("</ul>", 1)[0] if 'class="errorlist' in html else ""
    if not errors:  # a non-field error is shown in the form's error panel
        errors = html.split('class="panel error"', 1)[1].split("</div>", 1)[0] if 'class="panel error"' in html else ""
    assert errors, "the page names no error"
    assert _has_chinese(errors), errors


# --- files that are not what they seem -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "page",
    [
        b"<ul><li>Refunds are accepted within 30 days.<li hidden>Draft: 45 days?<li>Gift cards are final.</ul>"
        b"<p>Store credit is issued without a receipt.</p>",
        b"<p>Refunds are accepted within 30 days.<p hidden>Draft: 45 days?<p>Gift cards are final."
        b"<p>Store credit is issued without a receipt.",
        b"<p>Refunds are accepted within 30 days.</p><table><tr><td hidden>Draft: 45 days?<td>Gift cards are final."
        b"</table><p>Store credit is issued without a receipt.</p>",
    ],
    ids=["li", "p", "td"],
)
def test_a_hidden_element_without_its_end_tag_does_not_hide_the_rest_of_the_page(page):
    """HTML closes <li>, <p> and <td> by themselves when the next one opens (the HTML standard's optional end tags),
    and real pages leave them out. rag_app/ingest/parsers/html.py _Extractor.handle_starttag pushes every start tag of
    the hidden element's name onto its skip stack, so the next <li> "nests" in the hidden one and nothing closes them:
    every later sentence is lost from the version (a page that opens with one gives "no visible text"), so a new
    version of such a page answers less than the old one, with no error."""
    text = parse(b"<html><body>" + page + b"</body></html>", "refunds.html").text
    assert "Draft" not in text
    assert "Gift cards are final." in text
    assert "Store credit is issued without a receipt." in text


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("refund.txt", "\u200b\u200b\n\u200b".encode()),
        ("refund.txt", "\u2060\u200b \u200d".encode("utf-16")),
        ("refund.html", "<p>\u200b</p><p>\u2060</p>".encode()),
    ],
    ids=["zwsp-utf8", "word-joiner-utf16", "html"],
)
def test_a_file_of_invisible_characters_is_empty_and_keeps_the_current_version(levels, admin_user_role, name, data):
    """rag_app/ingest/parsers/__init__.py parse: `if not parsed.text.strip()` misses format characters (U+200B, U+2060,
    U+200D are Cf, not whitespace), the rule validation.clean_question applies to a question ("not made only of
    whitespace or invisible characters"). The admin sees "updated", v2 of one chunk; the refund policy stops
    answering."""
    factories.ingest_text(REFUND, source_id="policy/refund.txt", title="Refund policy")
    with pytest.raises(EmptyDocument):
        parse(data, name)
    response = api(admin_user_role).post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile(name, data), "source_id": "policy/refund.txt"},
        format="multipart",
    )
    assert response.status_code == 400 and response.json()["code"] == "empty", response.json()
    current = Document.objects.get(source_id="policy/refund.txt").current_version()
    assert current is not None and current.version == 1 and current.text.startswith("Refund policy.")


# --- names and identifiers -------------------------------------------------------------------------------------------


def _named(name: str, body: bytes) -> io.BytesIO:
    """A file the test client sends under `name` as it is: SimpleUploadedFile is an UploadedFile, whose name setter
    cuts past 255 characters already on the client's side (both files would be sent under one name)."""
    file = io.BytesIO(body)
    file.name = name
    return file


@pytest.mark.parametrize("surface", ["api", "web"])
def test_two_long_file_names_never_become_versions_of_one_document(levels, admin_user_role, surface):
    """source_id may be 500 characters (validation.MAX_SOURCE_ID_CHARS) and the product keeps upload names as sent
    (rag_app/uploads.py, "never changed silently"), but Django's UploadedFile name setter still cuts a name to 255
    characters, keeping the extension: "…office rules 2023.txt" and "…office rules 2024.txt" (289 characters) both
    arrive as the same 255-character name and the 2024 file silently replaces the 2023 one. Either keep the name or
    refuse it with a clear error; never merge two documents."""
    stem = ("Regional finance office rules on travel, lodging and meal reimbursement for staff on duty " * 4)[:280]
    names = [f"{stem} 2023.txt", f"{stem} 2024.txt"]
    bodies = [b"Travel is reimbursed at the 2023 rates.", b"Travel is reimbursed at the 2024 rates."]
    for name, body in zip(names, bodies, strict=True):
        if surface == "api":
            api(admin_user_role).post("/api/v1/documents/?wait=1", {"file": _named(name, body)}, format="multipart")
        else:
            client_for(admin_user_role).post(reverse("document_upload"), {"file": _named(name, body)})
            run_queued_jobs()
    merged = [(len(d.source_id), d.versions.count()) for d in Document.objects.all() if d.versions.count() > 1]
    assert not merged, f"two files became versions of one document: {merged}"


@pytest.mark.parametrize("how", ["upload", "patch", "level"])
def test_a_name_of_only_invisible_characters_is_refused(levels, admin_user_role, how):
    """validation.title_problem (titles on upload and PATCH, level labels via validate_label) refuses control and
    bidi characters but not a name made only of format characters (U+200B, U+2060), which a question is refused for
    ("empty_question"). Document.display_title falls back to the source_id only for an empty title, so the library,
    hover cards and sources show nothing to click or read."""
    client = api(admin_user_role)
    invisible = "\u200b\u2060"
    if how == "upload":
        response = client.post(
            "/api/v1/documents/?wait=1",
            {"file": SimpleUploadedFile("refund.txt", REFUND.encode()), "title": invisible},
            format="multipart",
        )
        shown = Document.objects.filter(source_id="refund.txt").first()
    elif how == "patch":
        factories.ingest_text(REFUND, source_id="refund.txt", title="Refund policy")
        response = client.patch("/api/v1/documents/refund.txt", {"title": invisible}, format="json")
        shown = Document.objects.get(source_id="refund.txt")
    else:
        response = client.post("/api/v1/levels/", {"slug": "draft", "label": invisible, "weight": 1.0}, format="json")
        level = SourceLevel.objects.filter(slug="draft").first()
        assert response.status_code == 400 and level is None, response.json()
        return
    assert response.status_code == 400, response.json()
    assert shown is None or shown.display_title.strip(invisible), shown.display_title


# --- an embedding server that blinks during a queued ingest -----------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_an_embedding_server_briefly_down_during_a_queued_ingest_is_retried(
    settings, levels, embedding_server: EmbeddingServer
):
    """docs/DEPLOYMENT.md "When things fail": "Transient errors (database restarting, embedding server unreachable):
    the task retries with exponential backoff ... RAG_INGEST_RETRIES times" (and rag_app/tasks.py says the same). But
    ingest.service._embedding_failures_are_ingest_errors turns EmbedderUnavailable into an IngestError, which
    services.ingest_jobs.ingest_job_run fails the job with at once ("final, never retried"): a blip of the GPU
    embedding server fails every upload in flight, and the admin must upload each file again."""
    settings.RAG = {
        **settings.RAG,
        "EMBEDDER": "openai",
        "EMBEDDING_BASE_URL": embedding_server.base_url,
        "EMBEDDING_API_KEY": "test-key",
        "EMBEDDING_MODEL": "model-a",
        "EMBEDDING_RETRIES": 1,
        "EMBEDDING_BACKOFF": 0.01,
        "EMBEDDING_TIMEOUT": 5.0,
        "INGEST_RETRIES": 3,
        "INGEST_RETRY_MAX_SECONDS": 1,
    }
    data = REFUND.encode()
    job = ingest_job_create(user=None, file_name="refund.txt", size=len(data), read=lambda: data)
    embedding_server.fail(times=2)  # the first try's two requests (EMBEDDING_RETRIES=1); the server is back after
    ingest_file.apply(args=[job.pk])
    job.refresh_from_db()
    assert (job.state, job.error_code) == (IngestJob.State.DONE, ""), (job.state, job.error_code, job.error)
    assert Document.objects.get(source_id="refund.txt").current_version() is not None


# --- a model server that hangs while a question is asked on the page -----------------------------------------------


def _gunicorn_timeouts() -> dict[str, int]:
    root = Path(django_settings.BASE_DIR)
    found = {}
    for name in ("Procfile", "deploy/systemd/rag-web.service"):
        match = re.search(r"gunicorn[^\n]*(?:\\\n[^\n]*)*?--timeout\s+(\d+)", (root / name).read_text())
        assert match is not None, f"{name} names no gunicorn --timeout"
        found[name] = int(match.group(1))
    return found


def test_a_hanging_model_server_is_given_up_on_before_the_web_worker_is_killed(
    settings, scripted_server: ScriptedServer, levels, staff_user
):
    """docs/CONFIGURATION.md: RAG_LLM_TIMEOUT is "seconds per model call, in all ... each retry has its own". Measured
    here at a small scale: a server that does not answer costs the ask (RAG_LLM_RETRIES + 1) whole timeouts before it
    is stored as `llm_timeout`. With the defaults (config/settings.py) that is 2 x 60 s plus the client's backoff and
    the retrieval, and the Procfile and deploy/systemd/rag-web.service give the sync gunicorn worker --timeout 120: the
    arbiter kills the worker first, so the answer that services.ask would store as `llm_timeout` never is. The ask's
    worst case must stay inside the web worker's timeout (a total deadline for the model, or a longer --timeout)."""
    factories.ingest_text(REFUND, source_id="policy/refund.txt", title="Refund policy")
    use_llm(settings, scripted_server.base_url, LLM_TIMEOUT=0.5, LLM_RETRIES=1)
    hang = completion('{"paragraphs": []}')
    scripted_server.queue(Reply(body=hang.body, delay=3.0), Reply(body=hang.body, delay=3.0))
    started = time.monotonic()
    answer = services.ask(user=staff_user, question=Q_REFUND, mode="llm")
    elapsed = time.monotonic() - started
    assert (answer.state, answer.reason) == (Answer.State.ERROR, "llm_timeout")
    assert len(scripted_server.requests) == 2 and elapsed >= 2 * 0.5  # each try waited its whole timeout

    from config import settings as shipped  # the defaults a deployment gets (.env and deploy/rag.env.example set none)

    # Every attempt together, with the pauses between them, ends at RAG_LLM_DEADLINE (OpenAICompatGenerator; its
    # own test: tests/generation/test_openai_compat.py).
    worst = shipped.RAG["LLM_DEADLINE"]
    for name, timeout in _gunicorn_timeouts().items():
        assert worst < timeout, f"{name}: an ask may wait {worst:.0f} s on the model; gunicorn kills it at {timeout} s"
