"""Dispatch by file extension to one parser per type; every failure is a ParseError subclass."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath

from .base import (
    BinaryFile,
    EmptyDocument,
    EncryptedDocument,
    FileTooLarge,
    ParsedDocument,
    ParseError,
    UndecodableText,
    UnsupportedFileType,
)
from .html import parse_html
from .markdown import parse_markdown
from .pdf import parse_pdf
from .text import parse_text

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "BinaryFile",
    "EmptyDocument",
    "EncryptedDocument",
    "FileTooLarge",
    "ParseError",
    "ParsedDocument",
    "UndecodableText",
    "UnsupportedFileType",
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
}
_PARSERS: dict[str, Callable[[bytes], ParsedDocument]] = {
    "text/plain": parse_text,
    "text/markdown": parse_markdown,
    "text/html": parse_html,
    "application/pdf": parse_pdf,
}


def is_supported(file_name: str) -> bool:
    return PurePath(file_name).suffix.lower() in SUPPORTED_EXTENSIONS


def parse(data: bytes, file_name: str) -> ParsedDocument:
    """Parse one file's bytes by its extension. Raises a ParseError subclass with a user-facing message."""
    ext = PurePath(file_name).suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise UnsupportedFileType(
            f"unsupported file type {ext or '(no extension)'!r}; supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))}"
        )
    if not data.strip():
        raise EmptyDocument("the file is empty")
    parsed = _PARSERS[SUPPORTED_EXTENSIONS[ext]](data)
    if not parsed.text.strip():
        raise EmptyDocument("the file has no text")
    return parsed
