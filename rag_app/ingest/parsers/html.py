"""HTML: visible text only, headings as section paths, <title> as the title.

The version text is built here from normalised pieces (one per block-level element, joined by
blank lines; <br> gives a line break), so offsets are exact by construction. Script, style,
template, noscript, svg, iframe, object, nav and elements marked `hidden` contribute nothing, nor does the
site's frame around the page (its own footer, landmarks marked as banner, content-info or navigation, a
dialog that is not open, an element styled not to show: _Extractor._chrome; a page that is all frame is
read with it); a page with a <main> element is what it holds and its first-level heading (a cookie notice,
breadcrumb or "recently updated" list outside it is the site's, not the page's).
An ordered list's items keep their numbers as the page shows them ("3. Submit the form", "b. …"), so
"step 3" is written in the text.
Headings appear in the text (it should read like the page) but not in the chunked blocks:
their text is the section path of what follows, as in the Markdown parser. A table is its rows as
"header: value" records, as a Markdown, Word or PowerPoint table is (office.table_text), so a quote is
one row's cell under its column's name rather than a column of loose words. MediaWiki variant
markup ("-{zh-hans:…;zh-hant:…}-") is resolved in each piece before it is measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

from django.utils.translation import gettext_noop

from rag_app.pipeline.chunking import Block
from rag_app.pipeline.textproc import clean_wiki_variants, normalize

from .base import EmptyDocument, ParsedDocument
from .html_tree import VOID, OpenElements
from .numbering import FORMATS, HTML_TYPES
from .office import cell_text, one_line, table_text
from .text import decode

# What shows nothing of the document: code, embedded objects, a form's choices, and the site's navigation (a wiki's
# menu bar, "Home | Recent changes | Log in", would be a chunk of its own, quoted for questions about logging in).
_SKIP = {"script", "style", "template", "noscript", "svg", "iframe", "object", "math", "select", "nav"}
_BLOCK = {
    "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "html", "li", "main", "nav", "ol", "p",
    "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}  # fmt: skip
# The page's frame (html-aam: a footer scoped to the body is the content-info landmark), and the roles that mark one.
_SECTIONING = ("article", "aside", "main", "nav", "section")
_CHROME_ROLES = {"banner", "contentinfo", "navigation"}
_UNSHOWN_STYLE_RE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important\s*)?(?:;|$)", re.I
)
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_CELLS = {"td", "th"}
_META_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-]+)""", re.IGNORECASE)


@dataclass
class _Table:
    """A visible table being read: its rows of cells, and where the open elements stood when it opened (so a
    cell of a table nested in one of its cells is told from its own)."""

    tables: int  # open tables, this one included
    cells: int  # open cells outside it (it may sit in another table's cell)
    rows: list[list[str]] = field(default_factory=list)
    header_rows: set[int] = field(default_factory=set)  # rows of <thead>
    th_cells: list[list[bool]] = field(default_factory=list)
    cell: list[str] | None = None  # the open cell's text so far
    layout: bool = False  # a table that lays a page out (a heading in a cell): its cells read as blocks
    caption: list[str] = field(default_factory=list)  # the caption, and text fostered out of the table
    new_row: bool = True

    def end_cell(self) -> None:
        if self.cell is not None:
            self.rows[-1].append(cell_text("".join(self.cell)))
            self.cell = None

    def text(self) -> str:
        self.end_cell()
        rows = [(cells, ths) for cells, ths in zip(self.rows, self.th_cells, strict=True) if any(cells)]
        first_is_header = bool(rows) and (0 in self.header_rows or all(rows[0][1]))
        if rows and not first_is_header and all(len(c) >= 2 and ths[0] for c, ths in rows):
            # A table of labelled rows (an infobox: "<th>Owner</th><td>IT</td>"): each row is "label: value".
            body = "\n".join(f"{one_line(c[0])}: {'; '.join(one_line(v) for v in c[1:] if v)}" for c, _ in rows)
        else:
            body = table_text([cells for cells, _ in rows])
        caption = " ".join("".join(self.caption).split())
        return "\n\n".join(part for part in (caption, body) if part)


@dataclass
class _List:
    """A visible list being read: how deep it is among the open lists, and the next item's number in an <ol>
    (its `start`, `reversed` and `type` read as a browser reads them; an item's `value` sets its number)."""

    depth: int
    ordered: bool
    next: int = 1
    step: int = 1
    style: str = "decimal"  # numbering.FORMATS

    @classmethod
    def of(cls, tag: str, attrs: dict[str, str | None], depth: int) -> _List:
        start = _integer(attrs.get("start"))
        step = -1 if "reversed" in attrs else 1
        style = attrs.get("type") or "1"
        # A reversed list without a start counts down from its number of items, which is not known until it ends: its
        # items are left unnumbered rather than numbered wrong.
        ordered = tag == "ol" and not (step < 0 and start is None)
        return cls(depth, ordered, 1 if start is None else start, step, HTML_TYPES.get(style, "decimal"))

    def number(self, value: str | None) -> str:
        if not self.ordered:
            return ""
        given = _integer(value)
        number = self.next if given is None else given
        self.next = number + self.step
        return f"{FORMATS[self.style](number)}. "


def _integer(value: str | None) -> int | None:
    match = re.match(r"\s*([+-]?\d{1,9})", value or "")
    return int(match.group(1)) if match else None


class _Extractor(HTMLParser):
    def __init__(self, *, frame: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.frame = frame  # read the site's frame around the page too (_chrome)
        # Each piece: (kind, text, separator before it) with kind "heading:<n>" or "text".
        self.pieces: list[tuple[str, str, str]] = []
        self.in_main: list[bool] = []  # for each piece: inside the page's <main>
        self.title_parts: list[str] = []
        self._buf: list[str] = []
        # The open elements, as the HTML standard's parser keeps them: an element that shows nothing (hidden, a
        # script, a template) ends where the standard ends it, also when its end tag is left out (<li hidden>…<li>).
        self._open = OpenElements()
        self._in_title = False
        self._pre = 0
        self._heading: int | None = None
        self._sep = "\n\n"
        self._tables: list[_Table] = []  # the visible tables open, innermost last
        self._lists: list[_List] = []  # the visible lists open, innermost last (some may have closed since)
        self._item_prefix = ""  # the open list item's number, written before the first text it shows ("3. ")

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, self_closing=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # "<div/>" opens a div, as in HTML (a slash closes only a void or a foreign element).
        self._start(tag, attrs, self_closing=True)
        if tag in VOID:
            self.handle_endtag(tag)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, self_closing: bool) -> None:
        hidden = tag in _SKIP or (
            tag not in VOID
            and (any(name == "hidden" for name, _ in attrs) or (not self.frame and self._chrome(tag, attrs)))
        )
        names = frozenset(name for name, _ in attrs)
        inside_hidden = self._open.start(tag, flagged=hidden, self_closing=self_closing, attrs=names)
        self._end_closed_tables()
        if inside_hidden:
            return  # inside an element that shows nothing
        if self._tables and not hidden and self._table_start(tag):
            return
        if tag == "title":
            self._in_title = True
            return
        if hidden:
            if tag in _BLOCK or tag in _HEADINGS:
                self._flush("\n\n")  # what comes after a hidden block is not run into what came before it
            return
        if tag == "br":
            self._flush("\n")
        elif tag in _HEADINGS:
            self._flush("\n\n")
            self._heading = _HEADINGS[tag]
        elif tag in _BLOCK:
            self._flush("\n\n")
        if tag in {"ol", "ul"}:
            depth = self._list_depth()
            while self._lists and self._lists[-1].depth >= depth:  # deepest last: lists closed since go first
                self._lists.pop()
            self._lists.append(_List.of(tag, dict(attrs), depth))
        elif tag == "li":
            self._item_prefix = self._item_number(dict(attrs))
        if tag == "table":
            cells = self._open.count("td") + self._open.count("th")
            self._tables.append(_Table(tables=self._open.count("table"), cells=cells))
        if tag == "pre":
            self._pre += 1

    def handle_endtag(self, tag: str) -> None:
        self._open.end(tag)
        self._end_closed_tables()
        if self._open.hiding:
            return  # (an end tag that closes a hidden element with its parent, "<p>a<i hidden>b</p>", goes on)
        if self._tables and not self._tables[-1].layout:
            table = self._tables[-1]
            if tag in _CELLS or tag == "tr":
                table.end_cell()
            elif (tag in _BLOCK or tag in _HEADINGS) and table.cell is not None:
                table.cell.append("\n")
            return
        if tag == "title":
            self._in_title = False
        elif tag in _HEADINGS:
            self._flush("\n\n")
            self._heading = None
        elif tag in _BLOCK:
            self._flush("\n\n")
        if tag == "pre" and self._pre:
            self._pre -= 1
        if tag in {"ol", "ul"}:
            self._item_prefix = ""  # an item that showed nothing

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
        elif self._open.hiding:
            return
        elif self._tables and not self._tables[-1].layout:
            table = self._tables[-1]
            in_cell = self._open.count("td") + self._open.count("th") > table.cells
            (table.cell if in_cell and table.cell is not None else table.caption).append(data)
        else:
            self._buf.append(data)

    def _chrome(self, tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        """What a browser shows nothing of, or what is the site's frame around the page rather than the page: the
        page's own footer (a <footer> outside any article, aside, main, nav or section: the content-info landmark,
        "© 2026 Acme · Privacy · Terms"), an element marked as a banner, content-info or navigation landmark
        (role="banner"), a <dialog> that is not open (a cookie notice waiting for script), and an element styled not to
        show (display: none, visibility: hidden). A page-level <header> or <aside> stays: Pandoc's title block is one,
        and so is a callout set beside the text."""
        values = {name: (value or "") for name, value in attrs}
        roles = values.get("role", "").lower().split()
        if roles and roles[0] in _CHROME_ROLES:
            return True
        if tag == "dialog" and "open" not in values:
            return True
        if _UNSHOWN_STYLE_RE.search(values.get("style", "")):
            return True
        return tag == "footer" and not any(self._open.count(t) for t in _SECTIONING)

    def _list_depth(self) -> int:
        return self._open.count("ol") + self._open.count("ul")

    def _item_number(self, attrs: dict[str, str | None]) -> str:
        """A list item's number as the page shows it ("3. ", "b. "), or "" in a list without numbers."""
        depth = self._list_depth()
        while self._lists and self._lists[-1].depth > depth:
            self._lists.pop()  # a list closed by what its end tag left implied
        if not self._lists or self._lists[-1].depth != depth:
            return ""
        return self._lists[-1].number(attrs.get("value"))

    def _table_start(self, tag: str) -> bool:
        """A start tag inside a visible table's own structure: rows and cells are collected, and what breaks a
        line in a cell is a line break of the cell. True: handled here."""
        table = self._tables[-1]
        if table.layout or tag == "table":
            return False  # a layout table's cells are blocks; a table nested in a cell is one of its own (_start)
        if tag in _HEADINGS and table.cell is not None:
            self._lay_out(table)  # a heading in a cell: the table lays the page out, it holds no records
            return False
        if tag in {"tbody", "thead", "tfoot"}:
            table.end_cell()
            table.new_row = True
        elif tag == "tr" or (tag in _CELLS and table.new_row):
            table.end_cell()
            if self._open.count("thead"):
                table.header_rows.add(len(table.rows))
            table.rows.append([])
            table.th_cells.append([])
            table.new_row = False
        if tag in _CELLS:
            table.end_cell()
            table.cell = []
            table.th_cells[-1].append(tag == "th")
        elif (tag in {"br", "hr"} or tag in _BLOCK or tag in _HEADINGS) and table.cell is not None:
            table.cell.append("\n")
        return tag != "table"

    def _lay_out(self, table: _Table) -> None:
        """The table read so far as a page's blocks (each cell a paragraph), and the rest of it too."""
        open_cell = "".join(table.cell or [])
        table.cell = None
        for text in [" ".join("".join(table.caption).split()), *(cell for row in table.rows for cell in row)]:
            if text:
                self._buf.append(text)
                self._flush("\n\n")
        table.layout = True
        self._buf.append(open_cell)

    def _end_closed_tables(self) -> None:
        """Each visible table the open elements no longer hold ends: its records are a piece of the page, or a
        cell's text of the table it sits in."""
        while self._tables and self._tables[-1].tables > self._open.count("table"):
            if self._tables[-1].layout:
                self._tables.pop()
                continue
            records = self._tables.pop().text()
            if self._tables:
                outer = self._tables[-1]
                if outer.cell is not None:
                    outer.cell.append("\n" + records + "\n")
            elif records:
                self._flush("\n\n")
                self._piece("text", records)
                self._sep = "\n\n"

    def close(self) -> None:
        super().close()
        self._open.close()
        self._end_closed_tables()
        self._flush("\n\n")

    def _piece(self, kind: str, text: str) -> None:
        self.pieces.append((kind, text, self._sep))
        self.in_main.append(bool(self._open.count("main")))

    def _flush(self, next_sep: str) -> None:
        raw = clean_wiki_variants("".join(self._buf))  # a "-{" closed only in another block stays text
        self._buf = []
        text = normalize(raw) if self._pre else " ".join(raw.split())
        if text and self._item_prefix:
            text, self._item_prefix = self._item_prefix + text, ""
        if text:
            kind = f"heading:{self._heading}" if self._heading else "text"
            self._piece(kind, text)
            self._sep = next_sep
        elif next_sep == "\n\n":
            self._sep = "\n\n"


def _read(raw: str, *, frame: bool) -> _Extractor:
    extractor = _Extractor(frame=frame)
    extractor.feed(raw)
    extractor.close()
    return extractor


def parse_html(data: bytes) -> ParsedDocument:
    match = _META_CHARSET_RE.search(data[:4096])
    raw, encoding = decode(data, declared=match.group(1).decode("ascii") if match else None)
    extractor = _read(raw, frame=False)
    if not extractor.pieces:  # a page that is all frame (a notice in a footer) is read with it rather than refused
        extractor = _read(raw, frame=True)

    parts: list[str] = []
    length = 0
    blocks: list[Block] = []
    stack: list[tuple[int, str]] = []
    first_h1: str | None = None
    pieces = extractor.pieces
    if any(extractor.in_main):  # the page says which part is its own: a sidebar, banner or notice outside it is not,
        # but for the page's heading set over it ("<h1>Expenses</h1><main>…")
        pieces = [
            piece
            for piece, in_main in zip(pieces, extractor.in_main, strict=True)
            if in_main or piece[0] == "heading:1"
        ]
    for kind, piece, sep in pieces:
        piece = normalize(piece)
        if not piece:
            continue
        if parts:
            parts.append(sep)
            length += len(sep)
        start = length
        parts.append(piece)
        length += len(piece)
        if kind.startswith("heading:"):
            level = int(kind.split(":")[1])
            if level == 1 and first_h1 is None:
                first_h1 = piece
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, " ".join(piece.split())))
            continue
        section = " > ".join(h for _, h in stack) or None
        last = blocks[-1] if blocks else None
        if last is not None and last.section == section and last.end == start - len(sep):
            blocks[-1] = Block(last.start, length, section=section)  # same section, adjacent: one block
        else:
            blocks.append(Block(start, length, section=section))
    text = "".join(parts)
    if not text:
        raise EmptyDocument(
            gettext_noop("the HTML page shows no text of its own (only its site's header, navigation or footer)")
        )
    if not blocks:
        blocks = [Block(0, len(text))]
    title = _without_site_name(" ".join(clean_wiki_variants("".join(extractor.title_parts)).split()), first_h1)
    return ParsedDocument(text=text, blocks=blocks, title=title, mime="text/html", encoding=encoding)


_TITLE_SEPARATORS = (" - ", " – ", " — ", " | ", " · ", " :: ", " » ")


def _without_site_name(title: str, first_h1: str | None) -> str | None:
    """The page's title without its site's name: "IT Handbook - Acme Wiki" whose first heading is "IT Handbook" is
    "IT Handbook" (the site's name, before or after the page's own, is the same on every page of a wiki). A title
    that is not the heading and a separator is kept as written; no title, the first heading."""
    if not title or not first_h1:
        return title or first_h1
    heading = " ".join(first_h1.split())
    for sep in _TITLE_SEPARATORS:
        if title.startswith(heading + sep) or title.endswith(sep + heading):
            return heading
    return title
