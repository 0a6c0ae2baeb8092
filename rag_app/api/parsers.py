"""The API's JSON and multipart parsers (their own module: DRF imports them from settings while loading its views)."""

from __future__ import annotations

import codecs
from typing import Any

from django.http.multipartparser import MultiPartParserError
from django.utils.translation import gettext
from rest_framework import parsers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.parsers import JSONParser, get_encoding  # type: ignore[attr-defined]  # not in the stubs
from rest_framework.utils import json

from rag_app.uploads import NameKeepingMultiPartParser


class _DuplicateName(ValueError):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self.name = name


def _one_value_per_name(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) < len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise _DuplicateName(name)
            seen.add(name)
    return obj


class JsonParser(JSONParser):
    """DRF's JSON parser, but a body nested past Python's recursion limit is a 400, not a 500, and a name given
    twice in one object (`{"question": "a", "question": "b"}`) is a 400 naming it, as a query parameter or form
    field sent twice is (StrictInput), instead of the last value winning silently."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            decoded = codecs.getreader(get_encoding(parser_context or {}))(stream)
            parse_constant = json.strict_constant if self.strict else None
            return json.loads(decoded.read(), parse_constant=parse_constant, object_pairs_hook=_one_value_per_name)
        except _DuplicateName as exc:
            raise ValidationError({exc.name: [gettext("Sent more than once: give one value.")]}) from None
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None


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
