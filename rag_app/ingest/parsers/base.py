"""Parser contract: bytes in, ParsedDocument (normalised text + blocks) out, or a clear ParseError."""

from __future__ import annotations

from dataclasses import dataclass, field

from rag_app.pipeline.chunking import Block


class ParseError(Exception):
    """The file cannot be read as the type it claims; the message is shown to the user.

    `message` is an English sentence marked for translation (gettext_noop: makemessages finds it, nothing translates
    it here) and `params` its values: str(exc) is the English (the CLI's line, the log's, the API's stored `message`),
    and a page renders `message` and `params` in its reader's language (presentation.job_failure), from a stored job
    too. With params, a literal % in the sentence is written %%."""

    code = "parse_error"

    def __init__(self, message: str, **params: str | int) -> None:
        super().__init__(message % params if params else message)
        self.message = message
        self.params = params


class UnsupportedFileType(ParseError):
    code = "unsupported_type"


class LegacyFormat(UnsupportedFileType):
    """An old binary Office file (.doc, .xls, .ppt), by its name or inside a file named as its successor: never read
    here, and the message says what to save it as (office.legacy_format writes it)."""

    code = "legacy_format"


class UndecodableText(ParseError):
    code = "undecodable"


class BinaryFile(UndecodableText):
    code = "binary"


class EncryptedDocument(ParseError):
    code = "encrypted"


class EmptyDocument(ParseError):
    code = "empty"


class NoTextLayer(EmptyDocument):
    """A PDF whose pages hold no text, only images (a scan): it needs OCR before it can be ingested."""

    code = "no_text_layer"


class FileTooLarge(ParseError):
    code = "too_large"


@dataclass(frozen=True)
class ParsedDocument:
    """Normalised text plus the blocks that give each span its section path and page."""

    text: str
    blocks: list[Block] = field(default_factory=list)
    title: str | None = None
    mime: str = "text/plain"
    encoding: str | None = None
