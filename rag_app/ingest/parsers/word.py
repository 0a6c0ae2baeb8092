"""Word (.docx), read with python-docx: paragraphs and tables in document order, headings as sections.

A paragraph in a "Heading 1".."Heading 9" style (or a style based on one, or with an outline
level) is a heading: it appears in the text, and its text is the section path of what follows
("Refunds > Deadlines"), as in the Markdown parser. The "Title" style gives the title (else the
document's Title property, else the first Heading 1). A table is rendered row by row, each row as
"header: value" lines under the first row's headers. Headers, footers, comments and tracked
deletions are not part of the text. The package is checked first (office.check_package): a
password-protected or damaged file is a clear ParseError.
"""

from __future__ import annotations

import io
import re
from typing import Any

from rag_app.pipeline.chunking import Block

from .base import EmptyDocument, ParsedDocument
from .office import (
    TextBuilder,
    cell_text,
    check_package,
    library_errors,
    one_line,
    push_heading,
    section_path,
    table_text,
)

MIME = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
_HEADING_RE = re.compile(r"^heading\s*([1-9])$", re.IGNORECASE)


def parse_docx(data: bytes) -> ParsedDocument:
    check_package(data, kind="Word", ext=".docx", required="[Content_Types].xml")
    with library_errors("Word"):
        import docx

        document = docx.Document(io.BytesIO(data))
        return _read(document)


def _read(document: Any) -> ParsedDocument:
    from docx.table import Table

    out = TextBuilder()
    stack: list[tuple[int, str]] = []
    title: str | None = None
    first_h1: str | None = None
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            out.add(_table_text(item), section=section_path(stack))
            continue
        text = item.text
        kind = _heading_kind(item)
        if kind is None:
            out.add(text, section=section_path(stack))
        elif kind == 0:  # the Title style: the document's title, not a section
            line = out.heading(text)
            title = title or line
        else:
            line = out.heading(text)
            if line:
                push_heading(stack, kind, line)
                if kind == 1 and first_h1 is None:
                    first_h1 = line
    text = out.text
    if not text:
        raise EmptyDocument("the Word document has no text")
    blocks = out.blocks or [Block(0, len(text))]  # headings only: index them rather than drop the file
    prop_title = one_line(document.core_properties.title or "")
    return ParsedDocument(text=text, blocks=blocks, title=prop_title or title or first_h1 or None, mime=MIME)


def _heading_kind(paragraph: Any) -> int | None:
    """0 for the Title style, 1..9 for a heading level, None for body text."""
    style = paragraph.style
    for _ in range(4):  # the style, then what it is based on (a custom heading style)
        if style is None:
            break
        name = style.name or ""
        if name.lower() == "title":
            return 0
        match = _HEADING_RE.match(name)
        if match:
            return int(match.group(1))
        style = style.base_style
    for element in (paragraph._p, getattr(paragraph.style, "element", None)):
        if element is None:
            continue
        levels = element.xpath("./w:pPr/w:outlineLvl/@w:val")
        if levels and str(levels[0]).isdigit() and int(levels[0]) < 9:  # 9 means body text
            return int(levels[0]) + 1
    return None


def _table_text(table: Any) -> str:
    rows: list[list[str]] = []
    for row in table.rows:
        cells: list[str] = []
        seen: list[Any] = []  # kept alive, so lxml hands out the same proxy for the same element
        for cell in row.cells:  # a merged cell repeats across the columns it spans
            if any(cell._tc is tc for tc in seen):
                continue
            seen.append(cell._tc)
            cells.append(cell_text(cell.text))
        rows.append(cells)
    return table_text(rows)
