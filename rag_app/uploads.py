"""Uploaded files keep the name they were sent with, so the product's own rule judges it.

Django's multipart parser drops every non-printable character from an upload's name ("notes\u200b.txt" arrives as
"notes.txt", which would silently become a new version of another document), and its UploadedFile cuts a name past
255 characters, keeping the extension (two long names that differ near their end arrive as one, and the second file
becomes a new version of the first). Here the parser keeps the base name as sent (path separators still cut, "", "."
and ".." still dropped, as Django does), whole, and validation.file_name_problem refuses a name with control or
invisible characters, or longer than a source_id may be (500), with a clear error on every entry point, as the CLI
does.
The web upload reads files through Django's request (KeepFileNamesMiddleware: before CSRF, which may parse the
body first); the API through its multipart parser (rag_app.api.parsers.MultiPartParser).
"""

from __future__ import annotations

import functools
import html
import os
from collections.abc import Callable
from typing import Any

from django.core.files.uploadedfile import UploadedFile
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParser
from django.utils.datastructures import ImmutableList, MultiValueDict
from django.utils.encoding import force_str


class NameKeepingMultiPartParser(MultiPartParser):
    # MultiPartParser's own attributes, read below.
    _files: MultiValueDict[str, UploadedFile]
    _encoding: str
    _whole_name: str | None = None  # the name of the file being read, as sent

    def sanitize_file_name(self, file_name: str) -> str | None:
        file_name = html.unescape(file_name)
        file_name = file_name.rsplit("/")[-1].rsplit("\\")[-1]
        # A NUL cannot reach the file system (a large upload's temporary file takes the name's extension): it
        # becomes U+FFFD, which validation.file_name_problem refuses like the NUL it stands for.
        file_name = file_name.replace("\x00", "\ufffd")
        self._whole_name = None if file_name in {"", ".", ".."} else file_name
        if self._whole_name is None:
            return None
        # The upload handlers see a name whose extension a temporary file can take (a large upload's temporary file
        # is named "<random>.upload<extension>": a 300-character "extension" was an OSError, a 500); the file gets
        # its whole name back when it is complete (handle_file_complete).
        stem, extension = os.path.splitext(file_name)
        return file_name if len(extension) <= 32 else stem or "upload"

    IE_sanitize = sanitize_file_name

    def handle_file_complete(self, old_field_name: str, counters: list[int]) -> None:
        field_name = force_str(old_field_name, self._encoding, errors="replace")
        before = len(self._files.getlist(field_name))
        super().handle_file_complete(old_field_name, counters)
        files = self._files.getlist(field_name)
        # UploadedFile's name setter cut a name past 255 characters (keeping its extension), with no way around it
        # but its attribute: the file gets its name back whole.
        if len(files) > before and self._whole_name and files[-1].name != self._whole_name:
            files[-1]._name = self._whole_name  # type: ignore[attr-defined]


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
