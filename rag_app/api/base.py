"""What every API view shares: authentication order, roles, the error handler, parsing, paging."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db.models import QuerySet
from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.authentication import SessionAuthentication
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.permissions import BasePermission
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from rag_app.access import is_admin, is_reviewer, is_staff_member

from .authentication import KeyTokenAuthentication
from .errors import api_exception_handler
from .negotiation import JsonOnly
from .serializers import ErrorOutput, StrictInput


def _role(check: Callable[[Any], bool], name: str) -> type[BasePermission]:
    class HasRole(BasePermission):
        @property
        def message(self) -> str:  # in the caller's language, so read per request
            return gettext("This needs the %(role)s role.") % {"role": name}

        def has_permission(self, request: Request, view: APIView) -> bool:
            return check(request.user)

    HasRole.__name__ = f"Is{name.title()}"
    return HasRole


IsStaffMember = _role(is_staff_member, "staff")
IsReviewer = _role(is_reviewer, "reviewer")
IsAdmin = _role(is_admin, "admin")


class Pagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 200


class PageInput(StrictInput):
    """The page parameters every list takes, as its filter's base (one description in the schema for all)."""

    limit = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text=f"Page size (default {Pagination.default_limit}; a larger one than {Pagination.max_limit} is read"
        f" as {Pagination.max_limit}).",
    )
    offset = serializers.IntegerField(required=False, min_value=0, help_text="Items to skip.")


class ApiView(APIView):
    """Token first, so a request without credentials gets 401 with WWW-Authenticate: Token."""

    authentication_classes = [KeyTokenAuthentication, SessionAuthentication]
    permission_classes = [IsStaffMember]
    # JSON only, as the schema documents (no Browsable API page, for Accept: text/html or ?format=api).
    renderer_classes = [JSONRenderer]
    content_negotiation_class = JsonOnly

    # The methods whose handler reads query parameters, each through its own StrictInput (which refuses any other
    # name); every other operation takes none, and any sent is refused before it runs (`POST ask?mode=llm` would
    # otherwise answer extractively). tests/test_trial31e.py sends an unknown one to every operation of the schema.
    takes_query: frozenset[str] = frozenset()
    # The methods that read no body (retire, restore, delete): one sent is refused as an unknown field is, not ignored
    # (`DELETE documents/x` with {"force": true} would otherwise be refused for the reason force answers).
    takes_no_body: frozenset[str] = frozenset()

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # authentication, permissions and throttles first: 401/403/429
        method = "GET" if request.method == "HEAD" else str(request.method)  # DRF answers HEAD with the GET handler
        operation = method != "OPTIONS" and hasattr(self, method.lower())  # else a 405 (or OPTIONS' metadata) follows
        if operation and method not in self.takes_query:
            StrictInput(data=self.query_params()).is_valid(raise_exception=True)
        if operation and method in self.takes_no_body:
            StrictInput(data=request.data).is_valid(raise_exception=True)

    def query_params(self) -> Any:
        """The query parameters a view's strict filter judges: all but `?format=`, which content negotiation has
        already decided (json, or a 406) on every operation alike, lists and details."""
        params = self.request.query_params.copy()
        params.pop(api_settings.URL_FORMAT_OVERRIDE or "format", None)
        return params

    def get_exception_handler(self) -> Callable[..., Response | None]:
        return api_exception_handler

    def finalize_response(self, request: Request, response: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().finalize_response(request, response, *args, **kwargs)
        # Answers, chunks and traces carry document text: no shared or browser cache may keep them.
        response["Cache-Control"] = "no-store"
        return response

    def paginate(
        self, queryset: QuerySet[Any], serializer: type[Serializer], prepare: Callable[[list[Any]], None] | None = None
    ) -> Response:
        """One page of `queryset`; `prepare` sees the page's rows before they are serialized."""
        paginator = Pagination()
        page = paginator.paginate_queryset(queryset, self.request, view=self)
        if prepare is not None and page is not None:
            prepare(page)
        return paginator.get_paginated_response(serializer(page, many=True).data)


def errors(*codes: int) -> dict[int, OpenApiResponse]:
    """Error responses for the schema; every one has the same body."""
    words = {
        400: "Invalid input: `fields` names what is wrong.",
        401: "No or bad credentials.",
        403: "Signed in, but the role does not allow this.",
        404: "No such object, or not visible to you.",
        405: "Method not allowed.",
        406: "Not acceptable.",
        413: "The file or body is over the size limit.",
        415: "Unsupported media type.",
        429: "Too many requests; see Retry-After.",
        503: "The ingest queue (broker) is unreachable: nothing was stored; try again later (Retry-After).",
    }
    return {code: OpenApiResponse(ErrorOutput, description=words[code]) for code in codes}


# What every operation may answer: no or bad credentials, a role that does not allow it, and 406 for a format it does
# not serve (`?format=api`, an Accept header without JSON: content negotiation, api/negotiation.py).
COMMON_ERRORS = (401, 403, 406)
