"""Word (.docx), read with python-docx: paragraphs and tables in document order, headings as sections.

A paragraph in a "Heading 1".."Heading 9" style (or a style based on one, or with an outline
level) is a heading: it appears in the text, and its text is the section path of what follows
("Refunds > Deadlines"), as in the Markdown parser. The "Title" style gives the title (else the
document's Title property, else the first Heading 1). A table is rendered row by row, each row as
"header: value" lines under the first row's headers. A numbered paragraph (a list's step, a policy's
clause "4.2", a heading "第三条") starts with its number as Word shows it (_Numbering). Headers,
footers, comments and tracked deletions are not part of the text. The package is checked first (office.check_package): a
password-protected or damaged file is a clear ParseError.
"""

from __future__ import annotations

import functools
import io
import re
from typing import Any

from django.utils.translation import gettext_noop

from rag_app.pipeline.chunking import Block

from .base import EmptyDocument, ParsedDocument
from .numbering import FORMATS
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
    numbering = _Numbering(document)
    for item in document.iter_inner_content():
        if isinstance(item, Table):
            out.add(_table_text(item), section=section_path(stack))
            continue
        text = item.text
        label = numbering.label(item)
        if label and text.strip():
            text = f"{label} {text.lstrip()}"
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
        raise EmptyDocument(gettext_noop("the Word document has no text"))
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


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


_NS = {"w": _W[1:-1]}


@functools.lru_cache(maxsize=64)
def _compiled(path: str) -> Any:
    from lxml import etree

    return etree.XPath(path, namespaces=_NS)


def _xpath(element: Any, path: str) -> list[Any]:
    """An XPath over WordprocessingML (python-docx's own elements and plain lxml ones alike)."""
    return list(_compiled(path)(element)) if element is not None else []


def _val(element: Any, path: str) -> str | None:
    found = _xpath(element, f"{path}/@w:val")
    return str(found[0]) if found else None


def _number(value: str | None, default: int) -> int:
    """A count or level as Word writes it ("3"); the default for one missing or not a number."""
    return int(value) if value is not None and value.isascii() and value.isdigit() and len(value) < 7 else default


_LEVEL_TEXT_RE = re.compile(r"%([1-9])")


class _Numbering:
    """Word's automatic numbering, as it shows it: a paragraph's list (w:numPr, its own or its style's) and level,
    counted in document order per abstract list (a deeper level restarts when a shallower one counts on; a list
    instance that overrides its start restarts the count), written by the level's text ("%1.%2.", "第%1条") in each
    level's format. A document without a numbering part, or a paragraph without a list, has no number."""

    def __init__(self, document: Any) -> None:
        try:
            root = document.part.numbering_part.element
        except (KeyError, NotImplementedError, AttributeError):
            root = None
        self._nums = {num.get(f"{_W}numId"): num for num in _xpath(root, "./w:num")}
        self._abstracts: dict[str | None, dict[int, Any]] = {  # abstract list -> its levels
            abstract.get(f"{_W}abstractNumId"): {
                _number(lvl.get(f"{_W}ilvl"), 0): lvl for lvl in _xpath(abstract, "./w:lvl")
            }
            for abstract in _xpath(root, "./w:abstractNum")
        }
        self._counts: dict[str, dict[int, int]] = {}  # abstract list -> level -> last number given
        self._started: set[str] = set()  # list instances whose start override has been applied

    def label(self, paragraph: Any) -> str:
        num_id, level = self._list_of(paragraph)
        num = self._nums.get(num_id) if num_id not in (None, "0") else None
        abstract_id = _val(num, "./w:abstractNumId")
        levels = self._abstracts.get(abstract_id) if abstract_id is not None else None
        if num_id is None or num is None or abstract_id is None or not levels or level not in levels:
            return ""
        counts = self._counts.setdefault(abstract_id, {})
        for override in _xpath(num, "./w:lvlOverride"):
            start = _val(override, "./w:startOverride")
            if _number(override.get(f"{_W}ilvl"), 0) == level and start is not None and num_id not in self._started:
                self._started.add(num_id)
                counts[level] = _number(start, 1) - 1
        counts[level] = counts.get(level, _number(_val(levels[level], "./w:start"), 1) - 1) + 1
        for deeper in [k for k in counts if k > level]:
            del counts[deeper]
        return self._written(levels, counts, level)

    def _list_of(self, paragraph: Any) -> tuple[str | None, int]:
        own = paragraph._p.pPr
        num_id, level = _val(own, "./w:numPr/w:numId"), _val(own, "./w:numPr/w:ilvl")
        style = paragraph.style
        for _ in range(4):  # the style's list, then what it is based on
            if num_id is not None or style is None:
                break
            pr = style.element.pPr
            num_id = _val(pr, "./w:numPr/w:numId")
            level = level or _val(pr, "./w:numPr/w:ilvl")
            style = style.base_style
        return num_id, _number(level, 0)

    def _written(self, levels: dict[int, Any], counts: dict[int, int], level: int) -> str:
        lvl = levels[level]
        if _val(lvl, "./w:numFmt") not in FORMATS:
            return ""
        legal = bool(_xpath(lvl, "./w:isLgl"))

        def number(match: re.Match[str]) -> str:
            k = int(match.group(1)) - 1
            if k not in levels:
                return ""
            shown = counts.get(k, _number(_val(levels[k], "./w:start"), 1))
            fmt = "decimal" if legal else (_val(levels[k], "./w:numFmt") or "decimal")
            return FORMATS.get(fmt, str)(shown)

        return " ".join(_LEVEL_TEXT_RE.sub(number, _val(lvl, "./w:lvlText") or "").split())
