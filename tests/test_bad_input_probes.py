"""Bad input gets a clear error and loses nothing; every answer asked is stored with its trace (session 25).

A helper's adversarial probes, each asserting the correct behaviour. Twenty failed before their fixes: a model's
reply holding a lone surrogate or NUL (nothing was stored: the store's fallback failed the same way), a 200 that is
no chat completion, an embedding server that is down, titles and section names a file carries with control or
bidi characters (and NUL on PostgreSQL), a file name that is not UTF-8 on the command line, counts and batch sizes
under 1, `ask --user ""`, a question of 2,000 characters whose normal form is longer. The others pin what was
checked and found right. The NUL cases matter on PostgreSQL (SQLite stores NUL):
RAG_TEST_DB=postgres DEBUG=1 .venv/bin/python -m pytest -q tests/test_bad_input_probes.py -k "nul or goes_on"
"""

from __future__ import annotations

import importlib
import io
import json

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app import services
from rag_app.ingest.parsers import ParseError, parse
from rag_app.models import Answer, Document, Trace
from tests import factories
from tests.embedding_server import embedding_server
from tests.llm_server import Reply, ScriptedServer, completion
from tests.services.test_ask import use_llm

pytestmark = pytest.mark.django_db

REFUND = (
    "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt. "
    "Gift cards cannot be refunded. Store credit is issued for items without a receipt."
)
__all__ = ["embedding_server"]  # a fixture
Q_REFUND = "Within how many days of purchase are refunds accepted?"


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


@pytest.fixture
def corpus(levels: object) -> None:
    factories.ingest_text(REFUND, source_id="policy/refund.txt", title="Refund policy")


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    cache.clear()


# --- the model returns text the database cannot store ------------------------------------------------


@pytest.mark.parametrize("structured", ["none", "json_schema"])
def test_a_model_reply_with_a_lone_surrogate_is_still_stored_with_its_trace(
    settings, scripted_server: ScriptedServer, corpus, staff_user, structured
):
    """A model (or a proxy) that returns an unpaired UTF-16 surrogate ("\\ud83d" of a cut emoji) in its
    content: the answer must still be stored (answered, or error with a reason) with its trace; ask()
    must not raise."""
    use_llm(settings, scripted_server.base_url, structured=structured)
    if structured == "none":
        content = "Refunds are accepted within 30 days \ud83d [S1]"
    else:
        content = json.dumps({"paragraphs": [{"text": "Refunds within 30 days \ud83d", "citation_ids": ["S1"]}]})
        content = content.replace("\\ud83d", "\ud83d")  # what json.loads of the body gives the client
    scripted_server.queue(completion(content))
    answer = services.ask(user=staff_user, question=Q_REFUND, mode="llm")
    assert Answer.objects.filter(pk=answer.pk).exists()
    assert Trace.objects.filter(answer=answer).exists()


def test_an_internal_error_after_alignment_keeps_the_alignment_in_its_trace(
    settings, scripted_server: ScriptedServer, corpus, staff_user, monkeypatch
):
    """A failure after the answer was aligned (here: the check that it states something raises) is stored as
    `internal_error` with the trace the run had: the dropped marker the model wrote is kept, as the trace
    promises (services/ask._store_failure stores without the alignment only if the database refuses it)."""
    import importlib

    ask_module = importlib.import_module("rag_app.services.ask")  # the module, not the function it exports
    use_llm(settings, scripted_server.base_url, structured="none")
    scripted_server.queue(completion("Refunds are accepted within 30 days of purchase. [S1: thirty days]"))

    def boom(aligned: object) -> bool:
        raise RuntimeError("a bug after alignment")

    monkeypatch.setattr(ask_module, "states_something", boom)
    answer = services.ask(user=staff_user, question=Q_REFUND, mode="llm")
    assert (answer.state, answer.reason) == ("error", "internal_error")
    trace = Trace.objects.get(answer=answer)
    assert trace.dropped_markers == ["[S1: thirty days]"] and "RuntimeError" in trace.error


def test_a_model_reply_with_a_lone_surrogate_through_the_api_is_a_stored_answer(
    settings, scripted_server: ScriptedServer, corpus, staff_user
):
    use_llm(settings, scripted_server.base_url, structured="none")
    scripted_server.queue(completion("Refunds are accepted within 30 days \udc00 [S1]"))
    response = api(staff_user).post("/api/v1/ask", {"question": Q_REFUND, "mode": "llm"}, format="json")
    assert response.status_code == 201, response.content[:300]
    assert Answer.objects.count() == 1


# --- odd questions ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    ["x" * 2000, "退款 refund 返金 환불 возврат?", "٣٠ يوما؟", "[S1] [S2]", "👍 refund?"],
    ids=["2000", "mixed-scripts", "arabic", "markers", "emoji-and-a-word"],
)
def test_odd_but_valid_questions_are_stored_as_a_state_not_an_internal_error(corpus, staff_user, question):
    answer = services.ask(user=staff_user, question=question)
    assert answer.state in (Answer.State.ANSWERED, Answer.State.NO_EVIDENCE), (answer.state, answer.reason)
    assert Trace.objects.filter(answer=answer).exists()


@pytest.mark.parametrize(
    "question", ["???!!!...", "🙂🙂🙂", "👍🏽👨‍👩‍👧", "。，、？"], ids=["punct", "emoji", "emoji-zwj", "cjk-punct"]
)
def test_a_question_without_a_letter_or_digit_is_refused_as_empty(corpus, staff_user, question):
    """Nothing to look for (session 32, tests/test_trial32b.py): refused with a clear error, not answered "nothing
    related" as if the documents had been searched; nothing is stored."""
    with pytest.raises(services.InvalidQuestion) as info:
        services.ask(user=staff_user, question=question)
    assert info.value.code == "empty_question"
    assert not Answer.objects.exists()


def test_a_question_of_exactly_2000_characters_is_accepted_whatever_its_normal_form(corpus, staff_user):
    """2,000 characters as typed is within the limit the form counts and the API's max_length allows; NFC
    normalisation (U+0958 DEVANAGARI QA is a composition exclusion: NFC writes it as two characters) must not
    turn it into a refusal that says the question is 4,000 characters long."""
    question = "\u0958" * 2000
    response = api(staff_user).post("/api/v1/ask", {"question": question}, format="json")
    assert response.status_code == 201, response.json()


# --- management commands with bad arguments -----------------------------------------------------------


@pytest.mark.parametrize("batch", ["0", "-5"])
def test_rag_reindex_refuses_a_batch_size_that_is_not_positive(corpus, batch):
    """--batch 0 is range(..., 0): a ValueError traceback; --batch -5 silently re-indexes nothing and says
    "re-indexed 0 chunks". Either must be a CommandError naming the option (rag_embed clamps its --batch)."""
    out = io.StringIO()
    with pytest.raises(CommandError, match="batch"):
        call_command("rag_reindex", "--batch", batch, stdout=out, stderr=io.StringIO())


def test_ingest_cli_a_file_name_that_is_not_utf8_with_source_id_is_an_error_line_not_a_traceback(levels, tmp_path):
    """A Latin-1 file name on a UTF-8 file system (Python reads it with surrogate escapes): with --source-id the
    source_id is fine, but the file name is stored as is and the database cannot encode it. Expected: the
    file is ingested (the name made storable) or an error line + CommandError, never an uncaught exception."""
    import os

    raw = os.fsencode(str(tmp_path)) + b"/caf\xe9-menu.txt"
    with open(raw, "wb") as f:
        f.write(b"The cafe menu changes every Monday.")
    path = os.fsdecode(raw)
    import contextlib

    with contextlib.suppress(CommandError):  # a clear, handled failure is acceptable too
        call_command("ingest", path, "--source-id", "cafe-menu", stdout=io.StringIO(), stderr=io.StringIO())
    # either way the command did not crash with a UnicodeEncodeError (the test would have errored above)


def test_ingest_cli_json_output_for_a_non_utf8_file_name_is_encodable(levels, tmp_path):
    """Folder ingest with --json: the error object for a file whose name is not UTF-8 must be writable to a
    UTF-8 stdout (json.dumps(..., ensure_ascii=False) keeps the lone surrogate)."""
    import os
    import subprocess
    import sys

    folder = tmp_path / "docs"
    folder.mkdir()
    with open(os.fsencode(str(folder)) + b"/caf\xe9.txt", "wb") as f:
        f.write(b"The cafe menu changes every Monday.")
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8", "PYTHONUTF8": "0"}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    env.pop("DJANGO_SETTINGS_MODULE", None)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=root, env=env, check=True, timeout=300)
    run = subprocess.run(
        [sys.executable, "manage.py", "ingest", str(folder), "--json"],
        cwd=root, env=env, capture_output=True, text=True, timeout=300, errors="replace",
    )  # fmt: skip
    assert "Traceback" not in run.stderr, run.stderr[-1500:]
    assert run.returncode == 1 and '"status": "error"' in run.stdout, (run.stdout, run.stderr[-500:])


# --- wrong encodings are refused, never stored as mojibake ---------------------------------------------

KOREAN = "회사는 직원 휴가에 관한 새로운 규칙을 정했습니다. 신청은 30일 전까지 제출해야 합니다."
JAPANESE = "東京都の会社は、従業員の休暇について新しい規則を定めました。申請は三十日前までに提出してください。"


@pytest.mark.parametrize(
    ("text", "encoding"), [(KOREAN, "euc_kr"), (JAPANESE, "euc_jp")], ids=["korean-euc-kr", "japanese-euc-jp"]
)
@pytest.mark.xfail(
    strict=True,
    reason="known limitation (docs/SECURITY.md): a Korean or Japanese file in a legacy encoding reads as Chinese;"
    " charset-normalizer's own pick refused 2-7% of short GB18030 / Big5 Chinese samples, so it is not used",
)
def test_a_legacy_east_asian_encoding_is_read_right_or_refused_never_stored_as_mojibake(text, encoding):
    """Shift-JIS and cp1251 files are refused with "save the file as UTF-8" (fine); an EUC-KR or EUC-JP file
    is instead read as GB18030 / Big5-HKSCS and its gibberish is stored and indexed as if it were Chinese."""
    data = text.encode(encoding)
    try:
        parsed = parse(data, "notice.txt")
    except ParseError:
        return  # a clear refusal is the other correct outcome
    assert parsed.text == text, f"stored as {parsed.encoding}: {parsed.text[:30]!r}"


# --- a title the file carries follows the title rule ---------------------------------------------------


def _pdf_with_title(title: str) -> bytes:
    from pypdf import PdfWriter
    from pypdf.generic import NameObject, TextStringObject

    base = (factories.__file__.rsplit("/", 1)[0]) + "/fixtures/cc0_3pages.pdf"
    writer = PdfWriter(clone_from=base)
    writer._info.get_object()[NameObject("/Title")] = TextStringObject(title)  # type: ignore[union-attr]
    buf = io.BytesIO()
    writer.write(buf)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("file_name", "data"),
    [
        ("page.html", "<title>Invoice \u202etxt.exe</title><p>Refunds take thirty days.</p>".encode()),
        ("bell.html", b"<title>Alert\x07\x1b[31m red</title><p>Refunds take thirty days.</p>"),
        ("note.md", "# Policy \u202egnp.exe\n\nRefunds take thirty days.\n".encode()),
        ("meta.pdf", None),
    ],
    ids=["html-bidi", "html-control", "markdown-bidi", "pdf-bidi-nul"],
)
def test_a_title_the_file_carries_has_no_control_or_bidi_characters(levels, file_name, data):
    """SECURITY.md: titles shown to readers hold no control characters and no bidi overrides (they reorder
    what readers see: "rtl \\u202egnp.exe"). Given with an upload they are refused; taken from the file
    (<title>, the first H1, PDF metadata) they are stored as they are."""
    import unicodedata

    from rag_app.ingest.service import document_ingest

    if data is None:
        data = _pdf_with_title("Report \u202efdp.exe\x00 final")
    try:
        document_ingest(data=data, file_name=file_name, source_id=file_name, level="official")
    except ParseError:
        return
    title = Document.objects.get(source_id=file_name).title
    bad = [
        ch
        for ch in title
        if unicodedata.category(ch) in {"Cc", "Cs", "Co", "Cn"}
        or ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    ]
    assert not bad, f"stored title {title!r}"


# --- asking when the embedder fails ---------------------------------------------------------------------


def test_asking_while_the_embedding_server_is_down_is_stored_with_a_clear_reason(settings, levels, staff_user):
    """RAG_EMBEDDER=openai, server down: the question must be stored with its trace (it is), in a state that
    says what happened (e.g. error / embedder_unavailable, or a lexical-only answer), not the generic
    internal_error "Something went wrong" that a bug gets."""
    from tests.embedding_server import down_url

    factories.ingest_text(REFUND, source_id="policy/refund.txt")
    settings.RAG = {
        **settings.RAG,
        "EMBEDDER": "openai",
        "EMBEDDING_BASE_URL": down_url(),
        "EMBEDDING_MODEL": "model-a",
        "EMBEDDING_RETRIES": 1,
        "EMBEDDING_BACKOFF": 0.01,
        "EMBEDDING_TIMEOUT": 1.0,
    }
    answer = services.ask(user=staff_user, question=Q_REFUND)
    trace = Trace.objects.get(answer=answer)
    assert answer.state != Answer.State.ERROR or answer.reason != "internal_error", (answer.reason, trace.error)


def test_an_embedding_server_that_goes_down_after_the_search_does_not_lose_the_answer(
    settings, levels, staff_user, embedding_server, scripted_server: ScriptedServer, monkeypatch
):
    """The question was embedded and its evidence found; the server then fails while the model's paraphrase is
    checked for support. The answer is kept (support read from the words: the paraphrase is marked weak) and the
    trace says what happened; not internal_error."""
    ask_module = importlib.import_module("rag_app.services.ask")  # the package exports ask() under that name
    settings.RAG = {
        **settings.RAG,
        "EMBEDDER": "openai",
        "EMBEDDING_BASE_URL": embedding_server.base_url,
        "EMBEDDING_MODEL": "model-a",
        "EMBEDDING_RETRIES": 0,
        "EMBEDDING_BACKOFF": 0.01,
        "EMBEDDING_TIMEOUT": 1.0,
    }
    factories.ingest_text(REFUND, source_id="policy/refund.txt")
    use_llm(settings, scripted_server.base_url, structured="json_object")
    scripted_server.queue(
        completion(
            json.dumps({"paragraphs": [{"text": "You get a month to bring things back.", "citation_ids": ["S1"]}]})
        )
    )
    real = ask_module.assemble_selection

    def then_the_server_fails(selection):
        embedding_server.fail(times=20)
        return real(selection)

    monkeypatch.setattr(ask_module, "assemble_selection", then_the_server_fails)
    answer = services.ask(user=staff_user, question=Q_REFUND, mode="llm")
    trace = Trace.objects.get(answer=answer)
    assert answer.state == Answer.State.ANSWERED, (answer.reason, trace.error)
    assert "while checking support" in trace.error and "support read from the words only" in trace.error
    assert answer.paragraphs.get().weak


# --- the model server answers 200 with something that is not a chat completion ----------------------------


@pytest.mark.parametrize(
    "body",
    [
        "{}",
        '{"error": {"message": "model overloaded"}}',
        '{"choices": null}',
        '{"choices": [{"message": null}]}',
        '{"choices": [{"index": 0, "message": {"role": "assistant", "content": 42}}]}',
        '{"choices": [{"index": 0, "message": {"role": "assistant", "content": ["a", "b"]}}]}',
        "[]",
        "null",
        '"just a string"',
        b'{"choices": [{"message": {"content": "\xff\xfe bad bytes"}}]}',
        "",
        '{"choices": ["oops"]}',
        '{"choices": {"0": "x"}}',
        '{"choices": [{"message": "a string"}]}',
    ],
    ids=["empty-object", "error-object", "choices-null", "message-null", "content-int", "content-list",
         "array", "null", "string", "bad-utf8", "empty-body", "choice-string", "choices-object", "message-string"],
)  # fmt: skip
def test_a_200_that_is_not_a_chat_completion_is_a_stored_error_with_a_model_reason(
    settings, scripted_server: ScriptedServer, corpus, staff_user, body
):
    """Stored in state error with an llm_* reason (llm_bad_output / llm_empty_output), like an HTML proxy page
    is; not internal_error (the "a bug" bucket, logged with a traceback)."""
    use_llm(settings, scripted_server.base_url)
    scripted_server.queue(Reply(status=200, body=body))
    answer = services.ask(user=staff_user, question=Q_REFUND, mode="llm")
    trace = Trace.objects.get(answer=answer)
    assert trace.prompt, "the prompt the model was sent is not in the trace"
    assert answer.state == Answer.State.ERROR and answer.reason.startswith("llm_"), (
        answer.reason,
        Trace.objects.get(answer=answer).error,
    )


# --- API bodies and parameters of the wrong shape (expected to pass: checked, fine) -----------------------


@pytest.mark.parametrize(
    ("body", "content_type"),
    [
        ("[]", "application/json"),
        ('[{"question": "refund?"}]', "application/json"),
        ('["question"]', "application/json"),
        ("null", "application/json"),
        ("42", "application/json"),
        ('"refund?"', "application/json"),
        ('{"question": "refund?"}', "text/plain"),
        ("question=refund%3F", "application/x-www-form-urlencoded"),
        (b'{"question": "caf\xe9?"}', "application/json"),
        ('{"question": "\\ud800 refund?"}', "application/json"),
        ('{"question": "refund?", "parent_id": 99999999999999999999999999}', "application/json"),
        ('{"question": "refund?", "parent_id": 1e400}', "application/json"),
        ('{"question": "refund?", "scope": {"documents": ["a\\u0000b"]}}', "application/json"),
        ('{"question": "refund?", "scope": []}', "application/json"),
        ('{"question": "refund?", "scope": {"levels": "official"}}', "application/json"),
        ('{"question": "refund?", "mode": ["llm"]}', "application/json"),
        ('\ufeff{"question": "refund?"}', "application/json"),
    ],
)
def test_ask_api_bodies_of_the_wrong_shape_are_4xx_and_store_nothing(staff_user, levels, body, content_type):
    response = api(staff_user).generic("POST", "/api/v1/ask", body, content_type=content_type)
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    assert response.json()["code"]
    assert not Answer.objects.exists()


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/documents/?limit=-1",
        "/api/v1/documents/?offset=99999999999999999999999999",
        "/api/v1/documents/?limit=99999999999999999999999999",
        "/api/v1/ingest-jobs/?offset=99999999999999999999999999",
        "/api/v1/ingest-jobs/99999999999999999999999999",
        "/api/v1/answers/?offset=99999999999999999999999999",
        "/api/v1/answers/?limit=0",
        "/api/v1/documents/policy/refund.txt/versions/?offset=99999999999999999999999&limit=-3",
        "/api/v1/chunks/policy/refund.txt:v99999999999999999999999:0",
    ],
)
def test_api_huge_or_negative_numbers_are_never_a_500(admin_user_role, corpus, url):
    response = api(admin_user_role).get(url)
    assert response.status_code < 500, (url, response.content[:300])


def test_web_pages_with_huge_numbers_are_never_a_500(admin_user_role, corpus):
    from tests.views.conftest import client_for

    client = client_for(admin_user_role)
    for url in (
        "/?parent=99999999999999999999999999",
        "/?parent=" + "9" * 5000,
        "/documents/policy/refund.txt/v99999999999999999999999/",
        "/documents/policy/refund.txt/v1/?chunk=99999999999999999999999",
        "/documents/policy/refund.txt/v1/?chunk=-5",
        "/documents/policy/refund.txt/v1/?page=99999999999999999999999",
        "/answers/99999999999999999999999/",
        "/review/?page=99999999999999999999999",
    ):
        response = client.get(url)
        assert response.status_code < 500, (url, response.status_code)


# --- NUL characters from outside reach PostgreSQL text columns (run with RAG_TEST_DB=postgres) ------------


def test_a_model_reply_holding_a_nul_character_is_still_stored_with_its_trace(
    settings, scripted_server: ScriptedServer, corpus, staff_user
):
    """A model server that emits "\\u0000" (llama.cpp does for some tokenizers): PostgreSQL text columns
    cannot hold NUL, so storing the paragraph, and then the fallback error answer's trace.raw_output, fail."""
    use_llm(settings, scripted_server.base_url, structured="none")
    scripted_server.queue(completion("Refunds are accepted within 30 days\u0000 of purchase. [S1]"))
    response = api(staff_user).post("/api/v1/ask", {"question": Q_REFUND, "mode": "llm"}, format="json")
    assert response.status_code == 201, response.content[:300]
    answer = Answer.objects.get()
    assert Trace.objects.filter(answer=answer).exists()


NUL_TITLED = {
    "pdf": ("q.pdf", lambda: _pdf_with_title("Quarterly\x00 report")),
    # a NUL after the first 8 KiB is not sniffed as binary; the <title> text is not normalised
    "html": ("q.html", lambda: b"<!-- " + b"x" * 9000 + b" --><title>Quarterly\x00 report</title><p>Sales grew.</p>"),
}


@pytest.mark.parametrize("kind", list(NUL_TITLED))
def test_a_file_whose_own_title_holds_a_nul_is_ingested_or_refused_cleanly_with_wait(admin_user_role, levels, kind):
    """?wait=1: a clear 201 or 4xx, never a 500."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    name, make = NUL_TITLED[kind]
    response = api(admin_user_role).post(
        "/api/v1/documents/?wait=1", {"file": SimpleUploadedFile(name, make())}, format="multipart"
    )
    assert response.status_code < 500, response.content[:300]


@pytest.mark.parametrize("kind", list(NUL_TITLED))
def test_a_file_whose_own_title_holds_a_nul_fails_its_job_with_a_file_reason(
    admin_user_role, levels, kind, monkeypatch
):
    """Through the worker's task (rag_app.tasks.ingest_file, run here with .apply): done, or failed with a reason
    about the file, not internal_error (the bucket for bugs, logged with a traceback)."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from rag_app.models import IngestJob
    from rag_app.tasks import ingest_file

    name, make = NUL_TITLED[kind]
    queued = api(admin_user_role).post(
        "/api/v1/documents/", {"file": SimpleUploadedFile(name, make())}, format="multipart"
    )
    assert queued.status_code == 202
    # The task closes stale connections first; here that would close the test's own transaction.
    monkeypatch.setattr("rag_app.tasks.close_old_connections", lambda: None)
    ingest_file.apply(args=[queued.json()["job"]["id"]])
    job = IngestJob.objects.get(pk=queued.json()["job"]["id"])
    assert job.state == "done" or job.error_code not in ("internal_error", ""), (job.state, job.error_code, job.error)


def test_folder_ingest_goes_on_after_a_file_the_database_refuses(levels, tmp_path):
    """README: "an error line for a file it cannot read ... (the others go on), and exits non-zero if any
    failed". On PostgreSQL a NUL in an HTML <title> past the first 8 KiB raises DataError, which the command
    does not catch: a traceback, and every file after it in the folder is never ingested."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a-report.html").write_bytes(NUL_TITLED["html"][1]())
    (folder / "b-refunds.txt").write_text(REFUND)
    err = io.StringIO()
    try:
        call_command("ingest", str(folder), stdout=io.StringIO(), stderr=err)
    except CommandError as exc:  # the documented failure: an error line for the file, a non-zero exit
        assert "1 of 2 files failed" in str(exc) and "a-report.html error" in err.getvalue()
    assert Document.objects.filter(source_id="b-refunds.txt").exists()


@pytest.mark.parametrize("limit", ["0", "-3"])
def test_rag_eval_refuses_a_limit_that_is_not_positive(tmp_path, capfd, db, limit):
    """--limit 0 / -3 samples no questions: a CommandError naming --limit, not a traceback or a report of
    nothing (a report over zero questions reads like a measurement)."""
    from tests.management.test_rag_eval import squad

    dataset = squad(tmp_path)
    with pytest.raises(CommandError, match="limit"):
        call_command("rag_eval", dataset=str(dataset), cache_dir=str(tmp_path / "cache"), limit=int(limit), json=True)


def test_ask_command_refuses_an_empty_user_name(refund_corpus_open):
    """`ask "..." --user ""` (an unset shell variable) silently asks as the system instead of saying there
    is no such user, as `--user nobody` does."""
    with pytest.raises(CommandError, match="no user"):
        call_command("ask", Q_REFUND, "--user", "", stdout=io.StringIO())


@pytest.fixture
def refund_corpus_open(levels):
    factories.ingest_text(REFUND, source_id="policy/refund.txt")
