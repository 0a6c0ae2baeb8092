"""Trial 31e: an integrator writing a strictly typed client (a chat bot and a nightly sync job) against /api/v1/ from
the OpenAPI schema alone.

Each test is a defect found by driving the running app (`make run`, token auth, the published schema). Each asserts
what one consistent API does (every error names its field, one timestamp form, one reading of a number, a parameter
given once), and was a strict xfail until it was fixed.
"""

from __future__ import annotations

import datetime as dt
import json
from io import StringIO

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from rag_app.models import Answer, Document, IngestJob
from tests import factories
from tests.views.answers import refund_answer

pytestmark = pytest.mark.django_db

QUESTION = "When are parking permits renewed?"
PARKING = "Parking permits are renewed every March at the front desk.\n"


api_for = factories.token_client


def test_every_timestamp_is_written_in_one_form(staff_user, reviewer_user, levels):
    factories.make_document(PARKING, source_id="rules/parking", level="official")
    staff = api_for(staff_user)
    asked = staff.post("/api/v1/ask", {"question": QUESTION}, format="json")
    assert asked.status_code == 201, asked.content
    document = staff.get("/api/v1/documents/rules/parking").json()
    assert document["created_at"].endswith("Z")
    assert asked.json()["created_at"].endswith("Z"), asked.json()["created_at"]

    answer_id = asked.json()["id"]
    reviewer = api_for(reviewer_user)
    assert reviewer.post(f"/api/v1/answers/{answer_id}/review", {"verdict": "ok"}, format="json").status_code == 201
    listed = reviewer.get("/api/v1/answers/").json()["results"][0]
    detail = staff.get(f"/api/v1/answers/{answer_id}").json()
    assert detail["created_at"] == listed["created_at"]
    reviews = reviewer.get(f"/api/v1/answers/{answer_id}/review").json()
    assert detail["review"]["created_at"] == reviews[0]["created_at"]
    assert reviews[0]["created_at"].endswith("Z"), reviews

    out = StringIO()
    call_command("ask", QUESTION, "--json", "--user", staff_user.username, stdout=out)
    assert json.loads(out.getvalue())["created_at"].endswith("Z")


def test_an_upload_refused_for_one_field_names_that_field(admin_user_role, levels):
    client = api_for(admin_user_role)
    refused = {
        "url": {"url": "ftp://files.example.com/parking.txt"},
        "effective_until": {"effective_from": "2026-12-10", "effective_until": "2026-12-01"},
        "title": {"title": "x" * 501},
    }
    for field, sent in refused.items():
        for wait in ("?wait=1", ""):
            response = client.post(
                f"/api/v1/documents/{wait}",
                {"file": SimpleUploadedFile("parking.txt", PARKING.encode()), **sent},
                format="multipart",
            )
            assert response.status_code == 400, (field, wait, response.content)
            body = response.json()
            assert set(body) == {"code", "detail", "fields"}, (field, body)
            assert list(body["fields"]) == [field], (field, body)
            assert body["code"] != "invalid", "the rule's own code stays"


def test_a_parameter_sent_twice_is_refused(admin_user_role, reviewer_user, staff_user, levels):
    refund_answer(user=staff_user)
    response = api_for(reviewer_user).get("/api/v1/answers/?state=answered&state=no_evidence")
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["state"]

    response = api_for(staff_user).get("/api/v1/documents/?level=official&level=note")
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["level"]

    client = api_for(admin_user_role)
    response = client.post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("parking.txt", PARKING.encode()), "title": ["Parking", "Garage"]},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["title"]
    response = client.post(
        "/api/v1/documents/?wait=1&wait=0",
        {"file": SimpleUploadedFile("parking.txt", PARKING.encode())},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["wait"]


def test_a_number_is_read_one_way(admin_user_role, staff_user, levels):
    for source_id in ("rules/a", "rules/b", "rules/c"):
        factories.make_document(PARKING, source_id=source_id)
    staff = api_for(staff_user)
    assert len(staff.get("/api/v1/documents/?limit=1").json()["results"]) == 1
    for written in ("1.0", "1e0", "+1", " 1"):
        response = staff.get("/api/v1/documents/", {"limit": written})
        assert response.status_code == 400, (written, response.json())
        assert list(response.json()["fields"]) == ["limit"]

    answer = refund_answer(user=staff_user)
    for parent_id in (str(answer.pk), float(answer.pk)):
        response = staff.post("/api/v1/ask", {"question": QUESTION, "parent_id": parent_id}, format="json")
        assert response.status_code == 400, (parent_id, response.content)
        assert list(response.json()["fields"]) == ["parent_id"]
    response = api_for(admin_user_role).patch("/api/v1/levels/official", {"weight": "3"}, format="json")
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["weight"]
    # What stays accepted: an integer for a number, and the integers themselves.
    response = api_for(admin_user_role).patch("/api/v1/levels/official", {"weight": 3}, format="json")
    assert response.status_code == 200, response.content
    response = staff.post("/api/v1/ask", {"question": QUESTION, "parent_id": answer.pk}, format="json")
    assert response.status_code == 201, response.content


def test_an_undeclared_query_parameter_is_refused_on_every_operation(admin_user_role, staff_user, levels):
    factories.make_document(PARKING, source_id="rules/parking")
    answer = refund_answer(user=staff_user)
    staff = api_for(staff_user)
    admin = api_for(admin_user_role)
    probes = [
        (staff.post, "/api/v1/ask?mode=llm", {"question": QUESTION}),
        (staff.get, f"/api/v1/answers/{answer.pk}?lang=zh", None),
        (staff.get, "/api/v1/documents/rules/parking?version=1", None),
        (admin.patch, "/api/v1/documents/rules/parking?notify=1", {"title": "Parking"}),
        (admin.get, "/api/v1/levels/?limit=1", None),
    ]
    for method, url, body in probes:
        response = method(url, body, format="json") if body is not None else method(url)
        assert response.status_code == 400, (url, response.status_code)
        assert response.json()["code"] == "invalid"
        assert len(response.json()["fields"]) == 1, (url, response.json())
    # ?format=json stays allowed everywhere (content negotiation reads it).
    assert staff.get(f"/api/v1/answers/{answer.pk}?format=json").status_code == 200


def test_every_operation_in_the_schema_refuses_an_unknown_query_parameter(levels):
    """The rule above on every operation the schema lists, before it does anything (nothing is asked, uploaded,
    changed or deleted): a view whose handler reads query parameters declares it (ApiView.takes_query)."""
    everyone = factories.make_user("all_roles", groups=("staff", "reviewer", "admin"))
    factories.make_document(PARKING, source_id="rules/parking")
    answer = refund_answer(user=everyone)
    values = {
        "answer_id": str(answer.pk),
        "source_id": "rules/parking",
        "chunk_id": factories.chunks_of("rules/parking")[0].chunk_id,
        "job_id": "1",
        "slug": "official",
    }
    client = api_for(everyone)
    schema = yaml.safe_load(client.get("/api/v1/schema/").content)
    before = (Answer.objects.count(), Document.objects.count(), IngestJob.objects.count())
    operations = 0
    for path, item in schema["paths"].items():
        url = path
        for name, value in values.items():
            url = url.replace("{" + name + "}", value)
        for method in set(item) & {"get", "post", "patch", "delete"}:
            response = getattr(client, method)(f"{url}?zzz_not_a_parameter=1")
            assert response.status_code == 400, (method, url, response.status_code)
            assert response.json()["fields"] == {"zzz_not_a_parameter": ["Unknown field."]}, (method, url)
            operations += 1
    assert operations >= 20
    assert (Answer.objects.count(), Document.objects.count(), IngestJob.objects.count()) == before


def test_api_refusals_are_in_the_readers_language(staff_user, levels):
    client = api_for(staff_user)
    unknown = client.get("/api/v1/documents/?colour=red", HTTP_ACCEPT_LANGUAGE="zh-Hans").json()
    assert unknown["fields"]["colour"] != ["Unknown field."]
    missing = client.get("/api/v1/documents/rules/nope", HTTP_ACCEPT_LANGUAGE="zh-Hans").json()
    assert missing["code"] == "not_found"
    assert not missing["detail"].startswith("No document"), missing
    missing = client.get("/api/v1/answers/999", HTTP_ACCEPT_LANGUAGE="zh-Hans").json()
    assert not missing["detail"].startswith("No answer"), missing
    scope = client.post(
        "/api/v1/ask",
        {"question": QUESTION, "scope": {"levels": ["nope"]}},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-Hans",
    ).json()
    assert scope["fields"]["scope"] != ["Unknown levels in the scope: 'nope'."], scope


def test_an_answers_filter_with_its_dates_in_the_wrong_order_is_refused(reviewer_user, staff_user, levels):
    refund_answer(user=staff_user)
    response = api_for(reviewer_user).get("/api/v1/answers/?date_from=2026-12-10&date_to=2026-12-01")
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["date_to"]
    assert "2026-12-01" in response.json()["fields"]["date_to"][0]


def test_a_file_that_cannot_be_read_is_refused_under_file(admin_user_role, levels):
    """Edge of the fix above: a refusal of the file itself names `file`; the upload's size limit stays a 413
    without fields (a body, not a field, is too large)."""
    response = api_for(admin_user_role).post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("parking.exe", b"MZ\x90\x00")},
        format="multipart",
    )
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "unsupported_type"
    assert list(response.json()["fields"]) == ["file"]


def test_an_upload_over_the_size_limit_has_no_fields(admin_user_role, levels, settings):
    settings.RAG = {**settings.RAG, "MAX_UPLOAD_BYTES": 10}
    response = api_for(admin_user_role).post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("parking.txt", PARKING.encode())},
        format="multipart",
    )
    assert response.status_code == 413, response.content
    assert set(response.json()) == {"code", "detail"}


def test_the_review_page_refuses_its_dates_in_the_wrong_order_as_the_api_does(reviewer_user, staff_user, levels):
    """The same rule (validation.date_order_problem) on the page: the To box says what is wrong, with a 400."""
    refund_answer(user=staff_user)
    client = Client()
    client.force_login(reviewer_user)
    response = client.get(reverse("review_list"), {"date_from": "2026-12-10", "date_to": "2026-12-01"})
    assert response.status_code == 400
    assert "The end date 2026-12-01 is before the start date 2026-12-10." in response.content.decode()


def test_an_answers_filter_narrows_by_each_of_its_dates(reviewer_user, staff_user, levels):
    """`date` beside date_from or date_to narrows as every other filter does (date_from silently won before)."""
    answer = refund_answer(user=staff_user)
    client = api_for(reviewer_user)
    day = timezone.localdate(answer.created_at)

    def ids(query: str) -> list[int]:
        response = client.get(f"/api/v1/answers/?{query}")
        assert response.status_code == 200, response.content
        return [row["id"] for row in response.json()["results"]]

    earlier, later = day - dt.timedelta(days=3), day + dt.timedelta(days=3)
    assert ids(f"date={day}&date_from={earlier}") == [answer.pk]
    assert ids(f"date={earlier}&date_to={later}") == []  # date_to won over date: the answer was listed
    assert ids(f"date={later}&date_from={earlier}") == []


def test_a_rule_refuses_with_its_own_code_on_every_operation(admin_user_role, staff_user, levels):
    factories.make_document(PARKING, source_id="rules/parking")
    admin = api_for(admin_user_role)
    upload = admin.post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("parking.txt", PARKING.encode()), "url": "ftp://files.example.com/p"},
        format="multipart",
    )
    patch = admin.patch("/api/v1/documents/rules/parking", {"url": "ftp://files.example.com/p"}, format="json")
    assert (upload.status_code, patch.status_code) == (400, 400)
    assert upload.json()["code"] == patch.json()["code"] == "invalid_url"

    staff = api_for(staff_user)
    question = staff.post("/api/v1/ask", {"question": "x" * 2001}, format="json")
    assert question.json()["code"] == "question_too_long"
    answer = refund_answer(user=staff_user)
    comment = staff.post(
        f"/api/v1/answers/{answer.pk}/feedback", {"kind": "not_helpful", "comment": "x" * 2001}, format="json"
    )
    assert comment.status_code == 400
    assert comment.json()["code"] == "comment_too_long"


def test_a_refusal_of_drfs_own_or_of_several_fields_stays_invalid(admin_user_role, staff_user, levels):
    """Edge of the rule above: only one field refused by one of validation's rules carries the rule's code."""
    factories.make_document(PARKING, source_id="rules/parking")
    admin = api_for(admin_user_role)
    both = admin.patch(
        "/api/v1/documents/rules/parking", {"url": "ftp://x.example/p", "title": "\u200b"}, format="json"
    )
    assert both.status_code == 400
    assert (both.json()["code"], sorted(both.json()["fields"])) == ("invalid", ["title", "url"])
    drf = admin.patch("/api/v1/documents/rules/parking", {"level": "nope"}, format="json")
    assert (drf.status_code, drf.json()["code"]) == (400, "invalid")
    title = admin.patch("/api/v1/documents/rules/parking", {"title": "\u200b"}, format="json")
    assert (title.status_code, title.json()["code"]) == (400, "invalid_title")


def _flag(client: APIClient, answer_id: int, citation_id: int, comment: str = ""):
    return client.post(
        f"/api/v1/answers/{answer_id}/feedback",
        {"kind": "citation_wrong", "citation_id": citation_id, "comment": comment},
        format="json",
    )


def test_a_flag_sent_again_is_the_same_flag(staff_user, levels):
    answer = refund_answer(user=staff_user)
    client = api_for(staff_user)
    citation_id = client.get(f"/api/v1/answers/{answer.pk}").json()["sources"][0]["citation_id"]
    first, again = _flag(client, answer.pk, citation_id), _flag(client, answer.pk, citation_id)
    assert (first.status_code, again.status_code) == (201, 201)
    assert again.json()["id"] == first.json()["id"]
    assert client.get(f"/api/v1/answers/{answer.pk}").json()["feedback"]["flags"] == 1


def test_a_flag_with_another_comment_or_after_a_verdict_is_a_new_flag(staff_user, reviewer_user, levels):
    """Edge of the fix above: only an identical flag that no verdict has answered is the same flag."""
    answer = refund_answer(user=staff_user)
    client = api_for(staff_user)
    citation_id = client.get(f"/api/v1/answers/{answer.pk}").json()["sources"][0]["citation_id"]
    first = _flag(client, answer.pk, citation_id).json()["id"]
    commented = _flag(client, answer.pk, citation_id, "It says 45 days now.").json()["id"]
    assert commented != first
    verdict = api_for(reviewer_user).post(f"/api/v1/answers/{answer.pk}/review", {"verdict": "ok"}, format="json")
    assert verdict.status_code == 201
    after = _flag(client, answer.pk, citation_id).json()["id"]
    assert after not in (first, commented)
    assert client.get(f"/api/v1/answers/{answer.pk}").json()["feedback"]["flags"] == 3


def test_a_name_given_twice_in_a_json_body_is_refused(staff_user, admin_user_role, levels):
    """The JSON form of a parameter sent twice: `{"question": "a", "question": "b"}` asked the second question."""
    client = api_for(staff_user)
    body = '{"question": "When are parking permits renewed?", "question": "What is the refund deadline?"}'
    response = client.post("/api/v1/ask", body, content_type="application/json")
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["question"]
    nested = '{"question": "When are parking permits renewed?", "scope": {"levels": ["official"], "levels": []}}'
    response = client.post("/api/v1/ask", nested, content_type="application/json")
    assert response.status_code == 400, response.content
    assert list(response.json()["fields"]) == ["levels"]
    response = api_for(admin_user_role).patch(
        "/api/v1/levels/official", '{"weight": 1, "weight": 3}', content_type="application/json"
    )
    assert response.status_code == 400, response.content
    broken = client.post("/api/v1/ask", '{"question": ', content_type="application/json")
    assert (broken.status_code, broken.json()["code"]) == (400, "parse_error")


def test_a_verdict_sent_again_is_the_verdict_already_recorded(staff_user, reviewer_user, levels):
    """As a flag sent again: the same reviewer's same verdict and note, nothing said since, is one entry; the same
    verdict after a new flag is a new entry (it answers, and closes, that flag)."""
    answer = refund_answer(user=staff_user)
    reviewer = api_for(reviewer_user)
    url = f"/api/v1/answers/{answer.pk}/review"
    for _ in range(2):
        assert reviewer.post(url, {"verdict": "ok", "note": "Checked."}, format="json").status_code == 201
    assert len(reviewer.get(url).json()) == 1
    citation_id = api_for(staff_user).get(f"/api/v1/answers/{answer.pk}").json()["sources"][0]["citation_id"]
    assert _flag(api_for(staff_user), answer.pk, citation_id).status_code == 201
    assert reviewer.post(url, {"verdict": "ok", "note": "Checked."}, format="json").status_code == 201
    assert len(reviewer.get(url).json()) == 2
    assert not reviewer.get("/api/v1/answers/?status=flagged").json()["results"]
