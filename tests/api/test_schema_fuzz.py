"""Schemathesis against the served OpenAPI schema, in-process through the WSGI app.

Every operation gets a bounded number of generated requests (valid and invalid) as an admin,
the role that may call everything. The run fails on any 5xx, any response whose status, content
type or body is not in the schema, and on invalid input that is accepted. Bounded so the whole
run stays well under a couple of minutes on two cores.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from schemathesis.specs.openapi.checks import positive_data_acceptance

from config.wsgi import application
from tests import factories

MAX_EXAMPLES = 12


# Loaded at collection from the served endpoint (schema generation touches no database).
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/", application)


@pytest.fixture(autouse=True)
def _keep_the_test_connection() -> Iterator[None]:
    """Like Django's test client: the raw WSGI handler would close the DB connection after each
    request, which on PostgreSQL drops the test transaction (SQLite's in-memory DB ignores it)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def admin_token(db: None) -> str:
    """An admin with a token, and a small corpus so reads find real rows as well as 404s."""
    factories.make_levels()
    factories.make_document(
        "The refund deadline is 30 days after purchase. Returns need a receipt.", source_id="policy/refund.txt"
    )
    admin = factories.make_admin("fuzz-admin")
    return Token.objects.create(user=admin).key


# Where a schema-valid body can still be refused with 400 for reasons JSON Schema cannot state:
# the question's characters (no control, private-use or unassigned code points), references to
# levels / groups that must exist, a slug that must be unique, a file that must parse, the answers filter's
# date_to before its date_from.
# Every other check (no 5xx, documented status, content type and body, invalid input refused)
# still runs on these operations.
SEMANTIC_400 = {("POST", "/api/v1/ask"), ("POST", "/api/v1/documents/"), ("POST", "/api/v1/levels/")}
SEMANTIC_400 |= {("PATCH", "/api/v1/documents/{source_id}"), ("GET", "/api/v1/answers/")}


@schema.parametrize()
@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_api_conforms_to_its_schema(case: schemathesis.Case, admin_token: str) -> None:
    """No 5xx, and every response (success or error) is one the schema declares."""
    excluded = [positive_data_acceptance] if (case.method.upper(), case.path) in SEMANTIC_400 else []
    case.call_and_validate(headers={"Authorization": f"Token {admin_token}"}, excluded_checks=excluded)


def test_real_answers_and_traces_conform_to_the_schema(admin_token: str) -> None:
    """An answered question, its stored answer, its trace and a cited chunk: each response matches the schema.

    Random questions rarely find evidence, so the answered shape is checked here on purpose.
    """
    headers = {"Authorization": f"Token {admin_token}"}
    asked = schema["/api/v1/ask"]["POST"].Case(body={"question": "What is the refund deadline?"})
    answer = asked.call_and_validate(headers=headers).json()
    assert answer["state"] == "answered"
    assert answer["sources"]

    for path, params in (
        ("/api/v1/answers/{answer_id}", {"answer_id": answer["id"]}),
        ("/api/v1/answers/{answer_id}/trace", {"answer_id": answer["id"]}),
        ("/api/v1/chunks/{chunk_id}", {"chunk_id": answer["sources"][0]["chunk_id"]}),
        ("/api/v1/documents/{source_id}", {"source_id": "policy/refund.txt"}),
        ("/api/v1/documents/{source_id}/versions/", {"source_id": "policy/refund.txt"}),
    ):
        response = schema[path]["GET"].Case(path_parameters=params).call_and_validate(headers=headers)
        assert response.status_code == 200, path
