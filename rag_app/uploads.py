"""Uploaded files keep the name they were sent with, so the product's own rule judges it.

Django's multipart parser drops every non-printable character from an upload's name ("notes\u200b.txt" arrives as
"notes.txt", which would silently become a new version of another document). Here the parser keeps the base name
as sent (path separators still cut, "", "." and ".." still dropped, as Django does), and validation.file_name_problem
refuses a name with control or invisible characters with a clear error on every entry point, as the CLI does.
The web upload reads files through Django's request (KeepFileNamesMiddleware: before CSRF, which may parse the
body first); the API through its multipart parser (rag_app.api.parsers.MultiPartParser).
"""

from __future__ import annotations

import functools
import html
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParser
from django.utils.datastructures import ImmutableList


class NameKeepingMultiPartParser(MultiPartParser):
    def sanitize_file_name(self, file_name: str) -> str | None:
        file_name = html.unescape(file_name)
        file_name = file_name.rsplit("/")[-1].rsplit("\\")[-1]
        # A NUL cannot reach the file system (a large upload's temporary file takes the name's extension): it
        # becomes U+FFFD, which validation.file_name_problem refuses like the NUL it stands for.
        file_name = file_name.replace("\x00", "\ufffd")
        return None if file_name in {"", ".", ".."} else file_name

    IE_sanitize = sanitize_file_name


def _parse_file_upload(request: HttpRequest, META: Any, post_data: Any) -> Any:
    """HttpRequest.parse_file_upload, with the name-keeping parser."""
    request.upload_handlers = ImmutableList(  # type: ignore[assignment]
        request.upload_handlers, warning="You cannot alter upload handlers after the upload has been processed."
    )
    return NameKeepingMultiPartParser(META, post_data, request.upload_handlers, request.encoding).parse()


class KeepFileNamesMiddleware:
    """A multipart request's files keep their names as sent (see the module's docstring)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.content_type == "multipart/form-data":
            request.parse_file_upload = functools.partial(_parse_file_upload, request)  # type: ignore[method-assign]
        return self.get_response(request)
