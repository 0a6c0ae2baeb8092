"""Markdown: the version text is the normalised Markdown source; headings delimit blocks.

MediaWiki variant markup ("-{zh-hans:…;zh-hant:…}-") is resolved first, so it never reaches a snippet.

A block is the line range between two top-level headings (the heading line itself excluded; its
text is the block's section path, e.g. "Refunds > Deadlines"). markdown-it-py (CommonMark, with
GFM's pipe tables) finds the headings, so "#" lines inside code fences are not headings and setext
(underlined) headings are. Title = the first H1, if any. Two things are read as Markdown reads them
rather than kept as written: a paragraph's soft line breaks are spaces (one character for one, with
the ">" markers of a quote's continued lines), and a pipe table is its rows as records, "header:
value" lines as the Word, PowerPoint and spreadsheet parsers give them (office.table_text), so a
quote is one row's cell under its column's name, never a whole table run together on one line.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from markdown_it import MarkdownIt
from markdown_it.token import Token

from rag_app.pipeline.chunking import Block
from rag_app.pipeline.textproc import clean_wiki_variants, normalize

from .base import EmptyDocument, ParsedDocument
from .office import table_text
from .text import decode

_md = MarkdownIt("commonmark").enable("table")
# The ">" markers that open a line of a block quote ("> ", nested "> > ").
_QUOTE_MARKERS_RE = re.compile(r"(?:[ \t]{0,3}>[ \t]?)+")


def parse_markdown(data: bytes) -> ParsedDocument:
    raw, encoding = decode(data)
    source = normalize(clean_wiki_variants(raw))  # before anything is measured: offsets index the cleaned text
    if not source:
        raise EmptyDocument("the file has no text")
    line_starts = [0]
    for i, ch in enumerate(source):
        if ch == "\n":
            line_starts.append(i + 1)
    line_starts.append(len(source) + 1)

    def source_offset(line: int) -> int:
        return min(line_starts[line], len(source))

    tokens = _md.parse(source)
    text, moved = _render_tables(_join_soft_breaks(source, tokens, line_starts), tokens, source_offset)

    def offset(line: int) -> int:  # of a line outside every table, in the text with its tables rendered
        return moved(source_offset(line))

    headings: list[tuple[int, int, int, str]] = []  # (first line, end line, level, plain text)
    for i, tok in enumerate(tokens):
        if tok.type == "heading_open" and tok.level == 0 and tok.map:
            headings.append((tok.map[0], tok.map[1], int(tok.tag[1]), _plain(tokens[i + 1])))

    title: str | None = None
    stack: list[tuple[int, str]] = []
    blocks: list[Block] = []
    section: str | None = None
    body_start = 0
    for first, end, level, heading in headings:
        _add_block(blocks, text, offset(body_start), offset(first), section)
        if level == 1 and title is None and heading:
            title = heading
        while stack and stack[-1][0] >= level:
            stack.pop()
        if heading:
            stack.append((level, heading))
        section = " > ".join(h for _, h in stack) or None
        body_start = end
    _add_block(blocks, text, offset(body_start), len(text), section)
    if not blocks:  # headings only: index them as they are rather than drop the file
        blocks = [Block(0, len(text), section=None)]
    return ParsedDocument(text=text, blocks=blocks, title=title, mime="text/markdown", encoding=encoding)


def _join_soft_breaks(text: str, tokens: list[Token], line_starts: list[int]) -> str:
    """A paragraph's hard-wrapped lines read as one (a soft line break is a space in Markdown), so no
    sentence or quote is cut at a line break. Each such newline becomes a space, one character for
    one, so every offset stays valid; a hard break (two trailing spaces or a backslash) stays. In a
    block quote the ">" markers that continue the paragraph on the joined line become spaces too:
    "the next financial year > will be frozen" would put a marker inside the sentence."""
    chars = list(text)
    quoted = 0  # how many block quotes the current token is in
    for tok in tokens:
        if tok.type == "blockquote_open":
            quoted += 1
        elif tok.type == "blockquote_close":
            quoted -= 1
        if tok.type != "paragraph_open" or not tok.map:
            continue
        first, end = tok.map
        for line in range(first + 1, end):
            newline = line_starts[line] - 1
            if 0 < newline < len(chars) and chars[newline] == "\n":
                before = text[line_starts[line - 1] : newline]
                if not before.endswith(("  ", "\\")):
                    chars[newline] = " "
                    markers = _QUOTE_MARKERS_RE.match(text, line_starts[line]) if quoted else None
                    if markers is not None:  # a lazy continuation line has none
                        chars[markers.start() : markers.end()] = " " * (markers.end() - markers.start())
    return "".join(chars)


_BR_RE = re.compile(r"<br\s*/?>", re.IGNORECASE)


def _shown(inline: Token) -> str:
    """A table cell's text as Markdown shows it: emphasis, code spans and links as their text, entities decoded,
    an image as its alt text, a line break (<br>, as GFM tables write one) as a space; other inline HTML drops."""
    parts: list[str] = []
    for child in inline.children or []:
        if child.type in {"text", "code_inline", "image"}:
            parts.append(child.content)
        elif child.type in {"softbreak", "hardbreak"} or (child.type == "html_inline" and _BR_RE.match(child.content)):
            parts.append(" ")
    return " ".join("".join(parts).split())


def _render_tables(text: str, tokens: list[Token], offset: Callable[[int], int]) -> tuple[str, Callable[[int], int]]:
    """Each top-level pipe table as records (office.table_text: the header row names the columns, each
    further row is "header: value" lines, rows apart by a blank line), set apart from its neighbours by a
    blank line. Returns the text and where an offset outside every table moved to. A table inside a quote
    or a list keeps its lines as written (each row a line of its own, its markers around it)."""
    rendered: list[tuple[int, int, str]] = []  # (start, end, records) in the text as it is
    for i, tok in enumerate(tokens):
        if tok.type != "table_open" or tok.level != 0 or not tok.map:
            continue
        rows: list[list[str]] = []
        for inner in tokens[i + 1 :]:
            if inner.type == "table_close":
                break
            if inner.type == "tr_open":
                rows.append([])
            elif inner.type == "inline" and rows:
                rows[-1].append(_shown(inner))
        records = table_text(rows)
        if not records:
            continue
        start, end = offset(tok.map[0]), offset(tok.map[1])
        if end < len(text):  # the table's lines without the newline after them (the text ends without one)
            end -= 1
        if start > 0 and text[start - 2 : start] != "\n\n":
            records = "\n" + records
        if end < len(text) and text[end : end + 2] != "\n\n":
            records += "\n"
        rendered.append((start, end, records))
    if not rendered:
        return text, lambda pos: pos
    parts: list[str] = []
    done = 0
    for start, end, records in rendered:
        parts += [text[done:start], records]
        done = end
    parts.append(text[done:])

    def moved(pos: int) -> int:
        return pos + sum(len(records) - (end - start) for start, end, records in rendered if end <= pos)

    return "".join(parts), moved


def _add_block(blocks: list[Block], text: str, start: int, end: int, section: str | None) -> None:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    if end > start:
        blocks.append(Block(start, end, section=section))


def _plain(inline: Token) -> str:
    """Heading text without markup: text, code and image alt text of the inline children."""
    parts: list[str] = []
    for child in inline.children or []:
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return " ".join("".join(parts).split())
