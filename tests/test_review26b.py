"""Review of a6e18d7..bc950f3 (model-mode support rules, LLM deadline) and ad5d86e..1fe52df (API fixes, raw upload
names). Every test asserts the correct behaviour; each fails on bc950f3/1fe52df. Run:
DEBUG=1 .venv/bin/python -m pytest -q tests/test_review26b.py -p no:cacheprovider
"""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app.models import Document
from rag_app.pipeline.support import model_states_nothing, unsupported_facts
from tests.views.conftest import client_for


def api(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def _multipart(name: str, content: bytes) -> tuple[bytes, str]:
    boundary = "BOUNDARYxyz"
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{name}"\r\n'
            f"Content-Type: text/plain\r\n\r\n"
        ).encode()
        + content
        + f"\r\n--{boundary}--\r\n".encode()
    )
    return body, f"multipart/form-data; boundary={boundary}"


BIG = b"Parking policy. Staff park in lot B on weekdays.\n" * 60_000  # ~3 MB: over FILE_UPLOAD_MAX_MEMORY_SIZE


@pytest.mark.django_db
def test_api_upload_nul_in_extension_of_a_large_file_is_a_400_not_a_500(levels, admin_user_role):
    body, content_type = _multipart("notes.t\x00xt", BIG)
    client = api(admin_user_role)
    client.raise_request_exception = False
    response = client.generic("POST", "/api/v1/documents/?wait=1", body, content_type=content_type)
    assert response.status_code == 400, response.content[:300]
    assert not Document.objects.exists()


@pytest.mark.django_db
def test_web_upload_nul_in_extension_of_a_large_file_is_a_form_error_not_a_500(levels, admin_user_role):
    body, content_type = _multipart("notes.t\x00xt", BIG)
    client = client_for(admin_user_role)
    client.raise_request_exception = False
    response = client.generic("POST", "/manage/documents/upload/", body, content_type=content_type)
    assert response.status_code in (200, 400), response.status_code


# --- model-mode support: ordinary, correct model paragraphs flagged -----------------------------------------

INVOICE = "Invoices must be paid within 30 days of receipt. Late invoices incur a fee of 2 percent per month."


@pytest.mark.parametrize(
    "text",
    [
        "Payment is due within 30 days of receipt.",  # paraphrase: "Payment" (a singular noun) read as a name
        "Each invoice must be paid within 30 days of receipt.",  # determiner: lemminflect knows no closed class
        "During the first 30 days after receipt, the invoice must be paid.",
        "Unless paid within 30 days, invoices incur a fee of 2 percent per month.",
        "Every invoice must be paid within 30 days of receipt.",
    ],
)
def test_a_faithful_model_paraphrase_is_not_weak_for_its_opening_word(text):
    """A capitalised opening word that is a function word (Each, Every, During, Unless, Both, Such, Per, Upon,
    Despite, Everyone...) or an ordinary abstract noun (Payment, Delivery, Insurance, Compensation, Security,
    Eligibility...) is read as an unsupported name: the paragraph is weak whatever its support score."""
    assert unsupported_facts(text, [INVOICE], model=True) == []


@pytest.mark.parametrize(
    ("text", "snippet"),
    [
        (
            "第一，员工提交申请。第二，经理在三天内审批。",
            "员工提交申请后，经理在3天内审批。",
        ),  # enumeration 第一/第二 -> 1, 2
        ("安全第一，进入车间必须佩戴头盔。", "进入车间必须佩戴头盔。"),
        ("员工应严格遵守考勤制度。", "员工必须遵守考勤制度。"),  # jieba: 严格遵守/nr
        ("经理马上会回复邮件。", "经理会尽快回复邮件。"),  # jieba: 马上会/nr
    ],
)
def test_ordinary_chinese_model_paragraphs_state_no_unsupported_number_or_name(text, snippet):
    """第一/第二 (enumeration, 'firstly') become the numbers 1 and 2 (only English ordinals are left out), and
    jieba's POS tagger tags common words nr (严格遵守, 马上会, 黄金周): the paragraph is weak."""
    assert unsupported_facts(text, [snippet], model=True) == []


@pytest.mark.parametrize(
    "text",
    [
        "Personal information does not include anonymised or aggregated data.",
        "Applications with insufficient information are returned to the applicant.",
        "Claims are rejected when there is not enough information to verify them.",
        "The refund amount cannot be determined until the item is inspected.",
        "申请材料未提供身份证明的，不予受理。",
        "提供的发票未包含税号的，不予报销。",
        "若无法确定责任方，由部门经理裁决。",
        "如果没有找到收据，可以提交书面说明。",
        "信息不足的申请将被退回。",
    ],
)
def test_a_rule_about_missing_information_is_a_statement_not_an_abstention(text):
    """Policy sentences about missing information or documents ('insufficient information', 'cannot be
    determined until', 材料未提供…的不予受理, 无法确定…由…裁决) match _ABSTAINS_* as a whole clause (the Chinese
    clause split ignores '，'), so a correct, cited paragraph becomes insufficient and a one-paragraph answer
    becomes nothing_stated (no evidence)."""
    assert not model_states_nothing(text, "")


# --- the same, end to end (real ingest, search and a scripted OpenAI-compatible server) ----------------------

CLAIMS = (
    "Claims policy. Claims are rejected when there is not enough information to verify them. "
    "Each claim must be filed within 30 days of the incident."
)


def _ask_llm(settings, server, user, text, question):
    import json

    from rag_app import services
    from tests.llm_server import completion

    settings.RAG = settings.RAG | {
        "OPENAI_BASE_URL": server.base_url,
        "LLM_STRUCTURED": "json_schema",
        "LLM_TIMEOUT": 5.0,
        "LLM_RETRIES": 0,
    }
    server.queue(completion(json.dumps({"paragraphs": [{"text": text, "citation_ids": ["S1"]}]})))
    return services.ask(user=user, question=question, mode="llm")


@pytest.mark.django_db
def test_a_verbatim_cited_rule_about_missing_information_is_answered(settings, scripted_server, levels, staff_user):
    """The model quotes the rule word for word and cites it; the answer is stored as no evidence (nothing_stated)."""
    from tests import factories

    factories.ingest_text(CLAIMS, source_id="policy/claims.txt", title="Claims policy")
    answer = _ask_llm(
        settings,
        scripted_server,
        staff_user,
        "Claims are rejected when there is not enough information to verify them.",
        "When are claims rejected?",
    )
    assert (answer.state, answer.reason) == ("answered", ""), (answer.state, answer.reason)


@pytest.mark.django_db
def test_a_verbatim_cited_sentence_opening_with_each_is_not_weak_in_the_api(
    settings, scripted_server, levels, staff_user
):
    """A faithful paraphrase ('Every claim' for the snippet's 'Each claim'): 'Every' (a determiner, which
    lemminflect's dictionary does not list) is read as a name the snippet lacks, so the API says weak."""
    from tests import factories

    factories.ingest_text(CLAIMS, source_id="policy/claims.txt", title="Claims policy")
    answer = _ask_llm(
        settings,
        scripted_server,
        staff_user,
        "Every claim must be filed within 30 days of the incident.",
        "Within how many days must a claim be filed?",
    )
    assert answer.state == "answered", (answer.state, answer.reason)
    paragraphs = api(staff_user).get(f"/api/v1/answers/{answer.pk}").json()["paragraphs"]
    assert [p["weak"] for p in paragraphs] == [False], paragraphs


# --- the JSON-only negotiation and the schema/docs pages ------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "accept"),
    [
        ("/api/v1/schema/", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
        ("/api/v1/schema/?format=json", "application/json"),
        ("/api/v1/docs/", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"),
    ],
)
def test_schema_and_docs_pages_still_answer_a_browser(staff_user, path, accept):
    response = client_for(staff_user).get(path, HTTP_ACCEPT=accept)
    assert response.status_code == 200, (response.status_code, response.content[:200])


# --- KeepFileNamesMiddleware runs on every multipart request, also where no upload is expected ----------------


@pytest.mark.django_db
def test_a_multipart_post_to_the_login_page_with_a_nul_file_name_is_not_a_500(db):
    """The middleware is first in MIDDLEWARE and applies to any multipart request: an anonymous visitor's POST to
    /accounts/login/ (CSRF reads request.POST) with a >2.5 MB file part named 'x.t<NUL>xt' makes Django's
    TemporaryUploadedFile raise ValueError (embedded null byte). Django's own parser dropped the NUL."""
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.raise_request_exception = False
    client.get("/accounts/login/")
    body, content_type = _multipart("x.t\x00xt", BIG)
    response = client.generic("POST", "/accounts/login/", body, content_type=content_type)
    assert response.status_code in (200, 403), response.status_code


# --- the total-deadline http client is never closed -------------------------------------------------------


def test_the_generators_http_client_is_closed_when_the_generator_goes(settings):
    """openai.OpenAI closes a client it made itself (SyncHttpxClientWrapper.__del__); one passed in as http_client
    (DefaultHttpxClient with the deadline hooks) it never closes: every ask's keep-alive socket is left to the
    garbage collector ('unclosed <socket ...>' ResourceWarning), where before it was closed."""
    import gc
    import json
    import threading
    import warnings
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from rag_app.generation.openai_compat import OpenAICompatGenerator

    body = json.dumps(
        {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}],
        }
    ).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as llama.cpp and vLLM answer

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for _ in range(3):
                generator = OpenAICompatGenerator(
                    base_url=f"http://127.0.0.1:{server.server_address[1]}/v1",
                    api_key="",
                    model="m",
                    timeout=5,
                    retries=0,
                    structured="none",
                    max_tokens=16,
                )
                generator.client.chat.completions.create(model="m", messages=[{"role": "user", "content": "q"}])
                del generator
            gc.collect()
    finally:
        server.shutdown()
        server.server_close()
    unclosed = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert unclosed == []
