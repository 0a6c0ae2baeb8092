"""PowerPoint (.pptx), read with python-pptx: one block per slide, its number as the page and its
title as the section.

A slide's title is a heading line in the text; the rest of the slide follows it in reading order
(shapes sorted top to bottom, then left to right; groups opened; a table row by row as
"header: value" lines), then the speaker notes after "Notes:". Pictures and charts carry no text
here. The title is the presentation's Title property, else the first slide's title. The package is
checked first (office.check_package): a password-protected or damaged file is a clear ParseError.
"""

from __future__ import annotations

import io
from typing import Any

from django.utils.translation import gettext_noop

from rag_app.pipeline.chunking import Block

from .base import EmptyDocument, ParsedDocument
from .office import TextBuilder, cell_text, check_package, library_errors, one_line, table_text

MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
_MAX_GROUP_DEPTH = 20


def parse_pptx(data: bytes) -> ParsedDocument:
    check_package(data, kind="PowerPoint", ext=".pptx", required="[Content_Types].xml")
    with library_errors("PowerPoint"):
        import pptx

        presentation = pptx.Presentation(io.BytesIO(data))
        return _read(presentation)


def _read(presentation: Any) -> ParsedDocument:
    out = TextBuilder()
    first_title: str | None = None
    for number, slide in enumerate(presentation.slides, start=1):
        title_shape = slide.shapes.title
        title = out.heading(_text(title_shape.text_frame.text)) if title_shape is not None else None
        first_title = first_title or title
        title_id = title_shape.shape_id if title_shape is not None else None
        pieces = [_shape_text(s, 0) for s in _in_reading_order(slide.shapes) if s.shape_id != title_id]
        if slide.has_notes_slide:
            frame = slide.notes_slide.notes_text_frame
            notes = _text(frame.text).strip() if frame is not None else ""
            if notes:
                pieces.append(f"Notes: {notes}")
        for piece in pieces:
            out.add(piece, section=title, page=number)
    text = out.text
    if not text:
        raise EmptyDocument(gettext_noop("the presentation has no text"))
    blocks = out.blocks or [Block(0, len(text))]  # titles only: index them rather than drop the file
    prop_title = one_line(presentation.core_properties.title or "")
    return ParsedDocument(text=text, blocks=blocks, title=prop_title or first_title, mime=MIME)


def _text(text: str) -> str:
    return text.replace("\v", "\n")  # python-pptx writes a line break inside a paragraph as a vertical tab


def _in_reading_order(shapes: Any) -> list[Any]:
    return sorted(shapes, key=lambda s: (s.top if s.top is not None else 0, s.left if s.left is not None else 0))


def _shape_text(shape: Any, depth: int) -> str:
    if depth < _MAX_GROUP_DEPTH and hasattr(shape, "shapes"):  # a group: its members, in reading order
        return "\n\n".join(_shape_text(member, depth + 1) for member in _in_reading_order(shape.shapes))
    if getattr(shape, "has_table", False):
        return _table_text(shape.table)
    if getattr(shape, "has_text_frame", False):
        return _text(shape.text_frame.text)
    return ""


def _table_text(table: Any) -> str:
    rows: list[list[str]] = []
    for row in table.rows:
        rows.append([cell_text(_text(cell.text)) if not cell.is_spanned else "" for cell in row.cells])
    return table_text(rows)
