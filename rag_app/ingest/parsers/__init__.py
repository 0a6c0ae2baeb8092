"""Dispatch by file extension (and sniffed content) to one parser per type."""

from __future__ import annotations

from pathlib import PurePath

from .base import (
    EmptyDocument,
    FileTooLarge,
    ParsedDocument,
    ParseError,
    UndecodableText,
    UnsupportedFileType,
)
from .text import parse_text

__all__ = [
    "SUPPORTED_EXTENSIONS",
    "EmptyDocument",
    "FileTooLarge",
    "ParseError",
    "ParsedDocument",
    "UndecodableText",
    "UnsupportedFileType",
    "parse",
]

SUPPORTED_EXTENSIONS = {".txt": "text/plain", ".text": "text/plain"}


def parse(data: bytes, file_name: str) -> ParsedDocument:
    ext = PurePath(file_name).suffix.lower()
    if ext not in SUPPORTED_EXTENSIONS:
        raise UnsupportedFileType(
            f"unsupported file type {ext or '(no extension)'!r}; supported: {', '.join(sorted(SUPPORTED_EXTENSIONS))}"
        )
    return parse_text(data)
