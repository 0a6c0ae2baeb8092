"""What the Office parsers (Word, PowerPoint, Excel) share: the package checks and the text builder.

An Office Open XML file (.docx, .pptx, .xlsx) is a zip package. Before a library opens it, the
package is checked here, so that a bad file gets a clear ParseError rather than a library's
traceback, and a small file cannot unpack into gigabytes:
- An OLE compound file (magic D0 CF 11 E0 A1 B1 1A E1) is what Office writes for a
  password-protected document (an "EncryptedPackage" stream inside), and also the old binary
  formats (.doc, .xls, .ppt) saved under a new name: EncryptedDocument or a ParseError saying which.
- Not a zip, a truncated zip, a zip without the part the format needs: ParseError naming the format.
- The declared uncompressed size of all parts is capped (MAX_UNPACKED_BYTES, or ten times
  RAG_MAX_UPLOAD_BYTES if that is less), and so is the number of parts. zipfile never inflates a
  member past its declared size (it stops, and the CRC check fails), so the cap holds.
The XML itself is read by lxml (python-docx, python-pptx) or expat (openpyxl), neither of which
expands external entities; expat also refuses exponential entity expansion ("billion laughs").
"""

from __future__ import annotations

import io
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import cast
from xml.etree.ElementTree import ParseError as XmlParseError
from xml.parsers.expat import ExpatError

from django.conf import settings
from django.utils.translation import gettext_noop

from rag_app.pipeline.chunking import Block
from rag_app.pipeline.textproc import normalize

from .base import EncryptedDocument, FileTooLarge, LegacyFormat, ParseError

OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
ZIP_MAGIC = b"PK\x03\x04"
MAX_UNPACKED_BYTES = 512 * 1024 * 1024
MAX_PARTS = 10_000

# The old binary formats (by extension): the application, the OOXML extension that replaced it, and the OLE stream
# that marks such a file.
LEGACY = {
    ".doc": ("Word", ".docx", "WordDocument"),
    ".ppt": ("PowerPoint", ".pptx", "PowerPoint Document"),
    ".xls": ("Excel", ".xlsx", "Workbook"),
}


def legacy_format(old: str) -> LegacyFormat:
    """The refusal of an old binary Office file (`old`: its format's extension, ".doc"), named so or renamed: what
    it is, that it is not supported, and what to save it as, on every path (parse, the upload's check, the CLI)."""
    kind, new, _ = LEGACY[old]
    message = gettext_noop(
        "this is an old binary %(kind)s file (%(old)s), which is not supported; open it in %(kind)s, save it as"
        " %(new)s (or as PDF) and ingest that"
    )
    return LegacyFormat(message, kind=kind, old=old, new=new)


def unpacked_limit() -> int:
    return min(MAX_UNPACKED_BYTES, 10 * cast(int, settings.RAG["MAX_UPLOAD_BYTES"]))


def check_package(data: bytes, *, kind: str, ext: str, required: str) -> None:
    """Raise a ParseError subclass unless `data` is a sound zip package holding the part `required`.

    `kind` is the format's name for messages ("Word"), `ext` its extension (".docx").
    """
    if data.startswith(OLE_MAGIC):
        _refuse_ole(data, kind=kind, ext=ext)
    if not data.startswith(ZIP_MAGIC):
        raise ParseError(
            gettext_noop("not a valid %(kind)s file: a %(ext)s file is a zip package, and this one is not"),
            kind=kind,
            ext=ext,
        )
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            infos = package.infolist()
    except (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, ValueError) as exc:
        raise ParseError(
            gettext_noop("the %(kind)s file is damaged or truncated (not a readable zip package: %(error)s)"),
            kind=kind,
            error=str(exc),
        ) from exc
    if len(infos) > MAX_PARTS:
        raise FileTooLarge(
            gettext_noop("the %(kind)s file has %(parts)s parts; the limit is %(limit)s"),
            kind=kind,
            parts=f"{len(infos):,}",
            limit=f"{MAX_PARTS:,}",
        )
    unpacked = sum(info.file_size for info in infos)
    limit = unpacked_limit()
    if unpacked > limit:
        raise FileTooLarge(
            gettext_noop(
                "the %(kind)s file unpacks to %(size)s bytes; the limit is %(limit)s bytes"
                " (ten times RAG_MAX_UPLOAD_BYTES, at most 512 MiB)"
            ),
            kind=kind,
            size=f"{unpacked:,}",
            limit=f"{limit:,}",
        )
    names = {info.filename for info in infos}
    if required not in names:
        raise ParseError(
            gettext_noop(
                "not a valid %(kind)s file: the package has no %(part)s (it may be damaged, or another kind of file"
                " renamed %(ext)s)"
            ),
            kind=kind,
            part=required,
            ext=ext,
        )


def _refuse_ole(data: bytes, *, kind: str, ext: str) -> None:
    """An OLE compound file where an OOXML package was expected: say what it most likely is."""
    import olefile

    try:
        with olefile.OleFileIO(io.BytesIO(data)) as ole:
            encrypted = ole.exists("EncryptedPackage") or ole.exists("EncryptionInfo")
            old = next(old for old, (_, new, _) in LEGACY.items() if new == ext)
            legacy = ole.exists(LEGACY[old][2])
    except (OSError, ValueError, TypeError, IndexError, KeyError, EOFError) as exc:
        # Office writes password-protected documents as exactly this container; a damaged one
        # cannot be told apart, and either way the file cannot be read.
        raise EncryptedDocument(
            gettext_noop(
                "the %(kind)s file is password-protected or damaged (an encrypted Office container that cannot be"
                " read: %(error)s); save an unprotected %(ext)s copy and ingest that"
            ),
            kind=kind,
            error=str(exc),
            ext=ext,
        ) from exc
    if encrypted:
        raise EncryptedDocument(
            gettext_noop(
                "the %(kind)s file is password-protected; remove the password (save an unprotected copy) and ingest"
                " that"
            ),
            kind=kind,
        )
    if legacy:
        raise legacy_format(old)
    raise ParseError(
        gettext_noop("not a valid %(kind)s file: an OLE compound file with no %(kind)s document in it"), kind=kind
    )


@contextmanager
def library_errors(kind: str) -> Iterator[None]:
    """Turn what a reading library raises on a malformed package into a ParseError that says so."""
    from lxml.etree import LxmlError

    try:
        yield
    except ParseError:
        raise
    except (
        LxmlError,
        XmlParseError,
        ExpatError,
        zipfile.BadZipFile,
        zlib.error,
        KeyError,
        ValueError,
        TypeError,
        AttributeError,
        IndexError,
        LookupError,
        NotImplementedError,
        OSError,
        EOFError,
    ) as exc:
        detail = str(exc)
        detail = detail if len(detail) <= 200 else detail[:199] + "…"
        raise ParseError(
            gettext_noop("the %(kind)s file is damaged or unreadable (%(error)s)"),
            kind=kind,
            error=f"{type(exc).__name__}: {detail}",
        ) from exc
    except RecursionError as exc:
        raise ParseError(
            gettext_noop("the %(kind)s file is damaged or unreadable (structure nested too deeply)"), kind=kind
        ) from exc


@dataclass
class TextBuilder:
    """Builds a version text from pieces, one block per run of body text with one locator.

    Pieces are normalised and joined by blank lines, so offsets are exact by construction.
    Headings (`heading`) appear in the text but not in any block: their text is the section of
    what follows, as in the Markdown and HTML parsers. Body pieces (`add`) with the same section
    and page as the block before them extend it.
    """

    parts: list[str] = field(default_factory=list)
    blocks: list[Block] = field(default_factory=list)
    length: int = 0

    def _append(self, piece: str) -> int:
        if self.parts:
            self.parts.append("\n\n")
            self.length += 2
        start = self.length
        self.parts.append(piece)
        self.length += len(piece)
        return start

    def heading(self, text: str) -> str | None:
        """Put a heading line in the text; returns it normalised to one line (None when blank)."""
        line = " ".join(normalize(text).split())
        if not line:
            return None
        self._append(line)
        return line

    def add(self, text: str, *, section: str | None = None, page: int | None = None, merge: bool = True) -> None:
        """Body text with its locator; `merge=False` starts a new block even when the locator repeats."""
        piece = normalize(text)
        if not piece:
            return
        start = self._append(piece)
        last = self.blocks[-1] if self.blocks else None
        # A heading in between leaves a gap, so it always starts a new block.
        if merge and last is not None and last.end == start - 2 and (last.section, last.page) == (section, page):
            self.blocks[-1] = Block(last.start, self.length, section=section, page=page)
        else:
            self.blocks.append(Block(start, self.length, section=section, page=page))

    @property
    def text(self) -> str:
        return "".join(self.parts)


def section_path(stack: list[tuple[int, str]]) -> str | None:
    return " > ".join(h for _, h in stack) or None


def push_heading(stack: list[tuple[int, str]], level: int, heading: str) -> None:
    while stack and stack[-1][0] >= level:
        stack.pop()
    stack.append((level, heading))


def one_line(text: str) -> str:
    return " ".join(text.split())


def column_letter(index: int) -> str:
    """0 -> "A", 25 -> "Z", 26 -> "AA": the column names a spreadsheet shows."""
    name = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        name = chr(ord("A") + rest) + name
    return name


def render_record(header: list[str], values: list[str]) -> str:
    """One table row as "header: value" lines (empty cells left out), so a chunk of rows reads on its own.

    A column without a header is named by its letter ("C: 42").
    """
    lines = []
    for i, value in enumerate(values):
        if not value:
            continue
        name = header[i] if i < len(header) and header[i] else column_letter(i)
        lines.append(f"{name}: {value}")
    return "\n".join(lines)


def cell_text(text: str) -> str:
    """A cell's text on as few lines as it had, without blank lines (they would split the record)."""
    return "\n".join(line.strip() for line in normalize(text).split("\n") if line.strip())


def table_text(rows: list[list[str]]) -> str:
    """A Word, PowerPoint or Markdown table: the first row names the columns, each further row is a record."""
    rows = [cells for cells in rows if any(cells)]
    if not rows:
        return ""
    if len(rows) == 1:
        return " | ".join(c for c in rows[0] if c)
    header = [one_line(c) for c in rows[0]]
    return "\n\n".join(render_record(header, cells) for cells in rows[1:])
