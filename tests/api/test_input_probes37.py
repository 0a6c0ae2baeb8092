"""An adversarial probe of session 37: three inputs the API read loosely, and the password reset nobody routed on
purpose. Each test failed on the code before it."""

from __future__ import annotations

import pytest
from django.test import Client

from tests import factories

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("query", ["/api/v1/answers/?user=%00", "/api/v1/documents/?q=%00"])
def test_a_nul_in_a_query_text_is_refused_once_in_the_readers_language(api_as, reviewer_user, query):
    response = api_as(reviewer_user).get(query)
    assert response.status_code == 400
    fields = response.json()["fields"]
    assert list(fields.values()) == [["Null characters are not allowed."]]
    chinese = api_as(reviewer_user).get(query, HTTP_ACCEPT_LANGUAGE="zh-hans").json()["fields"]
    ((message,),) = chinese.values()
    assert "Null" not in message and "不允许是用空字符串" not in message


@pytest.mark.parametrize("scope", [{"documents": [1.5]}, {"groups": [7]}, {"levels": [3]}, {"documents": [True]}])
def test_a_scope_lists_texts_as_json_strings(api_as, staff_user, scope):
    """docs/API.md: a text is a JSON string ("42" is, 42 is refused); a document whose source_id is "1" is not asked
    within by the number 1."""
    factories.make_document("Refunds are paid within 30 days.", source_id="1")
    response = api_as(staff_user).post("/api/v1/ask", {"question": "refund days", "scope": scope}, format="json")
    assert response.status_code == 400
    ((field, messages),) = response.json()["fields"].items()
    assert field.startswith("scope.") and messages == ["Must be a string."]
    ok = api_as(staff_user).post(
        "/api/v1/ask", {"question": "refund days", "scope": {"documents": ["1"]}}, format="json"
    )
    assert ok.status_code == 201


def test_a_documents_groups_are_named_by_json_strings(api_as, admin_user_role, levels):
    factories.make_document("Refunds are paid within 30 days.", source_id="refunds")
    response = api_as(admin_user_role).patch("/api/v1/documents/refunds", {"groups": [1]}, format="json")
    assert response.status_code == 400
    assert response.json()["fields"]["groups"] == ["Must be a string."]


def test_no_password_reset_is_routed_but_signing_in_out_and_changing_ones_password_are():
    anonymous = Client()
    for path in ("/accounts/password_reset/", "/accounts/password_reset/done/", "/accounts/reset/MQ/set-password/"):
        assert anonymous.get(path).status_code == 404, path
    assert anonymous.post("/accounts/password_reset/", {"email": "bob@example.com"}).status_code == 404
    assert anonymous.get("/accounts/login/").status_code == 200
    assert anonymous.get("/accounts/password_change/").status_code == 302  # to sign in first
