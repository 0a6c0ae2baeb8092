"""One JSON error shape for every API failure, and no stack trace ever sent to a client.

Body: {"code": "<machine code>", "detail": "<what is wrong, for a person>", "fields": {name: [messages]}}
("fields" only for validation errors). Unexpected exceptions are logged with their traceback and
answered with a plain 500 body, whatever DEBUG says.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, HttpRequest, JsonResponse
from django.urls import Resolver404, resolve
from django.utils.translation import gettext
from django.views.decorators.csrf import csrf_exempt
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from rag_app import database
from rag_app.ingest.parsers import ParseError as DocumentParseError
from rag_app.ingest.service import IngestError
from rag_app.presentation import job_failure
from rag_app.services import InvalidQuestion
from rag_app.services.ingest_jobs import BrokerUnavailable
from rag_app.validation import RULE_CODES

log = logging.getLogger(__name__)

# Errors the ingest service raises, by code: all are the client's file or metadata.
_INGEST_STATUS = {"too_large": status.HTTP_413_REQUEST_ENTITY_TOO_LARGE}


def error_body(code: str, detail: str, fields: Mapping[str, list[str]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "detail": detail}
    if fields:
        body["fields"] = dict(fields)
    return body


def _flatten(errors: Any, prefix: str = "") -> dict[str, list[str]]:
    """DRF's nested error structure -> {"field" or "field.0.sub": [messages]}."""
    if isinstance(errors, Mapping):
        out: dict[str, list[str]] = {}
        for key, value in errors.items():
            name = str(key) if key != "non_field_errors" or prefix else "non_field_errors"
            out.update(_flatten(value, f"{prefix}.{name}" if prefix else name))
        return out
    if isinstance(errors, list) and errors and all(not isinstance(e, (Mapping, list)) for e in errors):
        return {prefix or "non_field_errors": [str(e) for e in errors]}
    if isinstance(errors, list):
        out = {}
        for index, value in enumerate(errors):
            out.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
        return out
    return {prefix or "non_field_errors": [str(errors)]}


def _validation_response(exc: exceptions.ValidationError) -> Response:
    fields = _flatten(exc.detail)
    # One field refused by one of validation's rules: the rule's code, as where the rule refuses past DRF's fields
    # (an upload's check, a question); anything else, DRF's own checks included, is `invalid`.
    codes = [str(code) for field_codes in _flatten(exc.get_codes()).values() for code in field_codes]
    code = codes[0] if len(codes) == 1 and codes[0] in RULE_CODES else "invalid"
    summary = "; ".join(
        f"{name}: {' '.join(messages)}" if name != "non_field_errors" else " ".join(messages)
        for name, messages in fields.items()
    )
    return Response(error_body(code, summary or "Invalid input.", fields), status=status.HTTP_400_BAD_REQUEST)


def api_exception_handler(exc: Exception, context: Mapping[str, Any]) -> Response:
    """DRF exception handler: map every exception to the one error shape."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, PermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        set_rollback()
        return Response(
            error_body("too_large", gettext("The request body is larger than the server accepts.")),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    elif isinstance(exc, SuspiciousOperation):
        set_rollback()
        return Response(
            error_body("bad_request", gettext("The request was malformed.")), status=status.HTTP_400_BAD_REQUEST
        )

    if isinstance(exc, DocumentParseError | IngestError):
        set_rollback()
        code = getattr(exc, "code", "invalid")
        # A parser says why in English (its words are the log's and the CLI's); the reader is told in their language,
        # as the upload page tells them, with those words where they say more than the code.
        detail = (
            job_failure(code, str(exc), template=exc.message, params=exc.params).sentence()
            if isinstance(exc, DocumentParseError)
            else str(exc)
        )
        # The field at fault, as for every invalid field: the file itself for a file that cannot be read.
        field = "file" if isinstance(exc, DocumentParseError) else exc.field
        status_code = _INGEST_STATUS.get(code, status.HTTP_400_BAD_REQUEST)
        fields = {field: [detail]} if field and status_code == status.HTTP_400_BAD_REQUEST else None
        return Response(error_body(code, detail, fields), status=status_code)

    if isinstance(exc, BrokerUnavailable):
        set_rollback()
        return Response(
            error_body(exc.code, str(exc)), status=status.HTTP_503_SERVICE_UNAVAILABLE, headers={"Retry-After": "30"}
        )

    if isinstance(exc, InvalidQuestion):
        field = "mode" if exc.code == "invalid_mode" else "question"
        return Response(error_body(exc.code, str(exc), {field: [str(exc)]}), status=status.HTTP_400_BAD_REQUEST)

    if isinstance(exc, exceptions.ValidationError):
        set_rollback()
        return _validation_response(exc)

    if isinstance(exc, exceptions.APIException):
        set_rollback()
        headers: dict[str, str] = {}
        if getattr(exc, "auth_header", None):
            headers["WWW-Authenticate"] = exc.auth_header  # type: ignore[attr-defined]
        if getattr(exc, "wait", None) is not None:
            headers["Retry-After"] = str(int(exc.wait))  # type: ignore[attr-defined]
        codes = exc.get_codes()
        code = codes if isinstance(codes, str) else exc.default_code
        return Response(error_body(str(code), str(exc.detail)), status=exc.status_code, headers=headers)

    view = context.get("view")
    if database.unavailable(exc):  # an outage, not a bug: 503 and one log line (rag_app/database.py)
        database.log_outage(exc, type(view).__name__ if view else "API")
        set_rollback()
        return Response(
            error_body(database.DatabaseUnavailable.code, database.message()),
            status=status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Retry-After": str(database.RETRY_AFTER_SECONDS)},
        )
    log.exception("unhandled API error in %s", type(view).__name__ if view else "?")
    set_rollback()
    return Response(
        error_body("server_error", gettext("Internal server error; it has been logged.")),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )


@csrf_exempt  # a JSON 404 for any method; nothing is changed, so there is nothing to forge
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Unknown paths under the API answer in JSON too, not with the HTML 404 page."""
    detail = gettext("No API endpoint at %(path)s.") % {"path": request.path}
    try:
        match = resolve(request.path + "/")
    except Resolver404:
        match = None
    if match is not None and match.func is not not_found:
        detail += " " + gettext("Did you mean %(path)s/ ?") % {"path": request.path}
    return JsonResponse(error_body("not_found", detail), status=404)
