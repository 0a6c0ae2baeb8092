"""HTML: visible text only, headings as section paths, <title> as the title.

The version text is built here from normalised pieces (one per block-level element, joined by
blank lines; <br> gives a line break), so offsets are exact by construction. Script, style,
template, noscript, svg, iframe, object and elements marked `hidden` contribute nothing.
Headings appear in the text (it should read like the page) but not in the chunked blocks:
their text is the section path of what follows, as in the Markdown parser. MediaWiki variant
markup ("-{zh-hans:…;zh-hant:…}-") is resolved in each piece before it is measured.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from rag_app.pipeline.chunking import Block
from rag_app.pipeline.textproc import clean_wiki_variants, normalize

from .base import EmptyDocument, ParsedDocument
from .html_tree import VOID, OpenElements
from .text import decode

_SKIP = {"script", "style", "template", "noscript", "svg", "iframe", "object", "math", "select"}
_BLOCK = {
    "address", "article", "aside", "blockquote", "body", "caption", "dd", "details", "dialog", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "header", "hr", "html", "li", "main", "nav", "ol", "p",
    "pre", "section", "summary", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_META_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_\-]+)""", re.IGNORECASE)


class _Extractor(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        # Each piece: (kind, text, separator before it) with kind "heading:<n>" or "text".
        self.pieces: list[tuple[str, str, str]] = []
        self.title_parts: list[str] = []
        self._buf: list[str] = []
        # The open elements, as the HTML standard's parser keeps them: an element that shows nothing (hidden, a
        # script, a template) ends where the standard ends it, also when its end tag is left out (<li hidden>…<li>).
        self._open = OpenElements()
        self._in_title = False
        self._pre = 0
        self._heading: int | None = None
        self._sep = "\n\n"

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, self_closing=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # "<div/>" opens a div, as in HTML (a slash closes only a void or a foreign element).
        self._start(tag, attrs, self_closing=True)
        if tag in VOID:
            self.handle_endtag(tag)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, self_closing: bool) -> None:
        hidden = tag in _SKIP or (any(name == "hidden" for name, _ in attrs) and tag not in VOID)
        names = frozenset(name for name, _ in attrs)
        if self._open.start(tag, flagged=hidden, self_closing=self_closing, attrs=names):
            return  # inside an element that shows nothing
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
        if tag == "pre":
            self._pre += 1

    def handle_endtag(self, tag: str) -> None:
        self._open.end(tag)
        if self._open.hiding:
            return  # (an end tag that closes a hidden element with its parent, "<p>a<i hidden>b</p>", goes on)
        if tag == "title":
            self._in_title = False
        elif tag in _HEADINGS:
            self._flush("\n\n")
            self._heading = None
        elif tag in _BLOCK:
            self._flush("\n\n")
        if tag == "pre" and self._pre:
            self._pre -= 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title_parts.append(data)
        elif not self._open.hiding:
            self._buf.append(data)

    def close(self) -> None:
        super().close()
        self._open.close()
        self._flush("\n\n")

    def _flush(self, next_sep: str) -> None:
        raw = clean_wiki_variants("".join(self._buf))  # a "-{" closed only in another block stays text
        self._buf = []
        text = normalize(raw) if self._pre else " ".join(raw.split())
        if text:
            kind = f"heading:{self._heading}" if self._heading else "text"
            self.pieces.append((kind, text, self._sep))
            self._sep = next_sep
        elif next_sep == "\n\n":
            self._sep = "\n\n"


def parse_html(data: bytes) -> ParsedDocument:
    match = _META_CHARSET_RE.search(data[:4096])
    raw, encoding = decode(data, declared=match.group(1).decode("ascii") if match else None)
    extractor = _Extractor()
    extractor.feed(raw)
    extractor.close()

    parts: list[str] = []
    length = 0
    blocks: list[Block] = []
    stack: list[tuple[int, str]] = []
    first_h1: str | None = None
    for kind, piece, sep in extractor.pieces:
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
        raise EmptyDocument("the HTML page has no visible text")
    if not blocks:
        blocks = [Block(0, len(text))]
    title = " ".join(clean_wiki_variants("".join(extractor.title_parts)).split()) or first_h1
    return ParsedDocument(text=text, blocks=blocks, title=title, mime="text/html", encoding=encoding)
