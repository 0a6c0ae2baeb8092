from __future__ import annotations

import pytest
from django.test import override_settings
from rest_framework.exceptions import ValidationError

from rag_app.api.errors import api_exception_handler


@pytest.mark.urls("tests.api.failing_urls")
@pytest.mark.parametrize("debug", [False, True])
def test_an_unexpected_error_is_a_plain_500(api_as, debug):
    """No stack trace and no exception text ever reach the client, DEBUG on or off."""
    with override_settings(DEBUG=debug):
        response = api_as(None).get("/api/v1/failing")
    assert response.status_code == 500
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "server_error", "detail": "Internal server error; it has been logged."}
    assert b"secret" not in response.content
    assert b"Traceback" not in response.content


def test_unknown_api_paths_answer_json(api_as, db):
    """A path under /api/v1/ that does not exist is a JSON 404, not the HTML page."""
    response = api_as(None).get("/api/v1/nothing/here")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"
    assert "Did you mean" not in response.json()["detail"]


def test_a_missing_trailing_slash_is_pointed_out(api_as, db):
    """GET documents (no slash) is a JSON 404 that names the right path."""
    response = api_as(None).get("/api/v1/documents")
    assert response.status_code == 404
    assert response.json()["detail"].endswith("Did you mean /api/v1/documents/ ?")


def test_malformed_json_is_a_400(api_as, admin_user_role):
    """A body that is not JSON, or not UTF-8: 400 parse_error saying so."""
    client = api_as(admin_user_role)
    broken = client.generic("POST", "/api/v1/levels/", b'{"slug": ', content_type="application/json")
    binary = client.generic("POST", "/api/v1/levels/", b"\xff\xfe\x00\x81", content_type="application/json")
    for response in (broken, binary):
        assert response.status_code == 400
        assert response.json()["code"] == "parse_error"
        assert "JSON parse error" in response.json()["detail"]


def test_a_wrong_method_is_a_405(api_as, admin_user_role):
    """PUT on a document is not an operation (PATCH is): 405 with the JSON body."""
    response = api_as(admin_user_role).put("/api/v1/documents/x.txt", {}, format="json")
    assert response.status_code == 405
    assert response.json()["code"] == "method_not_allowed"


def test_nested_validation_errors_are_flattened():
    """Nested field errors become dotted names, each with its messages, and a one-line summary."""
    response = api_exception_handler(
        ValidationError({"paragraphs": [{"text": ["Required."]}], "non_field_errors": ["Bad pair."]}), {}
    )
    assert response.status_code == 400
    assert response.data["fields"] == {"paragraphs.0.text": ["Required."], "non_field_errors": ["Bad pair."]}
    assert response.data["detail"] == "paragraphs.0.text: Required.; Bad pair."


def test_odd_unknown_paths_answer_json_for_every_method(api_as, admin_user_role):
    """Encoded newlines or spaces in a path, with any method: still the JSON 404 (no HTML page)."""
    client = api_as(admin_user_role)
    for response in (client.patch("/api/v1/levels/a%0Ab", {}, format="json"), client.get("/api/v1/levels/%2C%20")):
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"


def test_a_blank_filter_value_is_refused(api_as, staff_user):
    """?level= is a client bug, not "any level": 400 naming it."""
    response = api_as(staff_user).get("/api/v1/documents/?level=")
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["level"]


def test_a_nul_byte_in_an_id_is_a_clean_404(api_as, admin_user_role):
    """PostgreSQL cannot store NUL in text; an id containing one is simply not found, never a 500."""
    client = api_as(admin_user_role)
    for url in ("/api/v1/documents/a%00b", "/api/v1/documents/a%00b/versions/", "/api/v1/chunks/a%00b:v1:0"):
        response = client.get(url)
        assert response.status_code == 404, url
        assert response.json()["code"] == "not_found"
    patch = client.patch("/api/v1/documents/a%00b", {"title": "x"}, format="json")
    assert patch.status_code == 404


def test_an_id_beyond_the_integer_range_is_a_404(api_as, reviewer_user):
    """An answer id too big for the database's integer is not found, not a 500."""
    huge = 2**70
    assert api_as(reviewer_user).get(f"/api/v1/answers/{huge}").status_code == 404
    assert api_as(reviewer_user).get(f"/api/v1/answers/{huge}/trace").status_code == 404
