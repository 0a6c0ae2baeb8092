"""Dispatch by file extension to one parser per type; every failure is a ParseError subclass.

Each parser also checks that the content is what the extension claims (a PDF header, a zip
package for the Office formats, decodable text), so a renamed file gets a clear error.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import PurePath

from django.utils.translation import gettext_noop

from rag_app.validation import is_blank, shown_name

from .base import (
    BinaryFile,
    EmptyDocument,
    EncryptedDocument,
    FileTooLarge,
    LegacyFormat,
    NoTextLayer,
    ParsedDocument,
    ParseError,
    UndecodableText,
    UnsupportedFileType,
)
from .html import parse_html
from .markdown import parse_markdown
from .office import LEGACY, legacy_format
from .pdf import parse_pdf
from .sheets import CSV_MIME, XLSX_MIME, parse_csv, parse_xlsx
from .slides import MIME as PPTX_MIME
from .slides import parse_pptx
from .text import parse_text
from .word import MIME as DOCX_MIME
from .word import parse_docx

__all__ = [
    "ACCEPT",
    "SUPPORTED_EXTENSIONS",
    "BinaryFile",
    "EmptyDocument",
    "EncryptedDocument",
    "FileTooLarge",
    "LegacyFormat",
    "NoTextLayer",
    "ParseError",
    "ParsedDocument",
    "UndecodableText",
    "UnsupportedFileType",
    "extensions_label",
    "file_type_problem",
    "is_supported",
    "parse",
]

SUPPORTED_EXTENSIONS: dict[str, str] = {
    ".txt": "text/plain",
    ".text": "text/plain",
    ".md": "text/markdown",
    ".markdown": "text/markdown",
    ".html": "text/html",
    ".htm": "text/html",
    ".pdf": "application/pdf",
    ".docx": DOCX_MIME,
    ".pptx": PPTX_MIME,
    ".xlsx": XLSX_MIME,
    ".csv": CSV_MIME,
}
_PARSERS: dict[str, Callable[[bytes], ParsedDocument]] = {
    "text/plain": parse_text,
    "text/markdown": parse_markdown,
    "text/html": parse_html,
    "application/pdf": parse_pdf,
    DOCX_MIME: parse_docx,
    PPTX_MIME: parse_pptx,
    XLSX_MIME: parse_xlsx,
    CSV_MIME: parse_csv,
}
# What an upload field offers (the browser's file picker filters by these).
ACCEPT = ",".join([*SUPPORTED_EXTENSIONS, *dict.fromkeys(SUPPORTED_EXTENSIONS.values())])


def is_supported(file_name: str) -> bool:
    name = PurePath(file_name).name
    # "~$report.docx" is the lock file Office keeps beside an open document, never a document.
    return file_type_problem(name) is None and not name.startswith("~$")


def file_type_problem(file_name: str) -> UnsupportedFileType | None:
    """Why a file of this name cannot be read (None: its type can be): the one rule of parse, the upload page, the
    API and the CLI. An old binary Office file (.doc, .xls, .ppt) is told what to save it as (LegacyFormat)."""
    ext = PurePath(file_name).suffix.lower()
    if ext in SUPPORTED_EXTENSIONS:
        return None
    if ext in LEGACY:
        return legacy_format(ext)
    supported = ", ".join(sorted(SUPPORTED_EXTENSIONS))
    if not ext:
        return UnsupportedFileType(
            gettext_noop("the file name has no extension; supported: %(supported)s"), supported=supported
        )
    return UnsupportedFileType(
        gettext_noop("unsupported file type %(ext)s; supported: %(supported)s"), ext=repr(ext), supported=supported
    )


def extensions_label() -> str:
    """The supported extensions, for messages and help texts (".txt, .md, ...")."""
    return ", ".join(SUPPORTED_EXTENSIONS)


def parse(data: bytes, file_name: str) -> ParsedDocument:
    """Parse one file's bytes by its extension. Raises a ParseError subclass with a user-facing message."""
    if (problem := file_type_problem(file_name)) is not None:
        raise problem
    if not data.strip():
        raise EmptyDocument(gettext_noop("the file is empty"))
    parsed = _PARSERS[SUPPORTED_EXTENSIONS[PurePath(file_name).suffix.lower()]](data)
    if is_blank(parsed.text):  # zero-width characters alone are no text either: the rule of an empty question
        raise EmptyDocument(gettext_noop("the file has no text"))
    # The names the file gives itself are shown as titles and locators: the title rule's characters go.
    return dataclasses.replace(
        parsed,
        title=shown_name(parsed.title),
        blocks=[dataclasses.replace(b, section=shown_name(b.section)) for b in parsed.blocks],
    )
