"""The API's JSON and multipart parsers (their own module: DRF imports them from settings while loading its views)."""

from __future__ import annotations

from typing import Any

from django.http.multipartparser import MultiPartParserError
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding  # type: ignore[attr-defined]  # not in the stubs

from rag_app.uploads import NameKeepingMultiPartParser


class JsonParser(JSONParser):
    """DRF's JSON parser, but a body nested past Python's recursion limit is a 400, not a 500."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None


class MultiPartParser(parsers.MultiPartParser):
    """DRF's multipart parser, but an upload keeps the name it was sent with (rag_app.uploads): the name's rule
    (validation.file_name_problem) refuses invisible characters instead of Django dropping them silently."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        parser_context = parser_context or {}
        request = parser_context["request"]
        meta = request.META.copy()
        meta["CONTENT_TYPE"] = media_type
        try:
            parser = NameKeepingMultiPartParser(meta, stream, request.upload_handlers, get_encoding(parser_context))
            data, files = parser.parse()
        except MultiPartParserError as exc:
            raise ParseError(f"Multipart form parse error - {exc}") from None
        return parsers.DataAndFiles(data, files)
