"""Markdown: the version text is the normalised Markdown source; headings delimit blocks.

MediaWiki variant markup ("-{zh-hans:…;zh-hant:…}-") is resolved first, so it never reaches a snippet.

A block is the line range between two top-level headings (the heading line itself excluded; its
text is the block's section path, e.g. "Refunds > Deadlines"). markdown-it-py (CommonMark, with
GFM's pipe tables) finds the headings, so "#" lines inside code fences are not headings and setext
(underlined) headings are. Title = the first H1, if any. Three things are read as Markdown reads them
rather than kept as written: a paragraph's soft line breaks are spaces (one character for one, with
the ">" markers of a quote's continued lines); a paragraph's inline markup is its text (emphasis
markers, code-span backticks, a link's brackets and address, an image's address, backslash escapes and
inline HTML tags left out, entities decoded), so a quote reads "Note: see the form", never "**Note:**
see [the form](https://…)"; and a pipe table is its rows as records, "header: value" lines as the Word,
PowerPoint and spreadsheet parsers give them (office.table_text), so a quote is one row's cell under
its column's name, never a whole table run together on one line. A list item's marker ("1.", "-")
stays, so "step 3" is still written in the text.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections.abc import Callable

from django.utils.translation import gettext_noop
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
        raise EmptyDocument(gettext_noop("the file has no text"))
    line_starts = [0]
    for i, ch in enumerate(source):
        if ch == "\n":
            line_starts.append(i + 1)
    line_starts.append(len(source) + 1)

    def source_offset(line: int) -> int:
        return min(line_starts[line], len(source))

    tokens = _md.parse(source)
    joined, unmarked = _render_inline(_join_soft_breaks(source, tokens, line_starts), tokens, line_starts)
    if not joined:
        raise EmptyDocument(gettext_noop("the file has no text"))
    text, moved = _render_tables(joined, tokens, lambda line: unmarked(source_offset(line)))

    def offset(line: int) -> int:  # of a line outside every table, in the text with its markup and tables rendered
        return moved(unmarked(source_offset(line)))

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
# What may stand between two pieces of a paragraph's text in its source and is markup, not text: a link's
# closing bracket with its address (and title) or reference label, or one character of emphasis, code span,
# link or image brackets, autolink angle brackets, an escaping backslash, or white space around them.
_MARKUP_RE = re.compile(
    r"""\]\((?:[^()\n]|\([^()\n]*\))*\)"""  # ](address "title")
    r"|\][ \t]?\[[^\]\n]*\]"  # ][label]
    r"|[*_~`\\\[\]!<>]|[ \t]+"
)
_ENTITY_RE = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def _render_inline(text: str, tokens: list[Token], line_starts: list[int]) -> tuple[str, Callable[[int], int]]:
    """Each paragraph's inline markup read as the text it shows (see the module's docstring). Returns the text
    and where an offset that no markup holds moved to. A paragraph whose text cannot be found again, piece by
    piece, in its source lines keeps its lines as written. What the markup leaves (a space before a line break,
    a line of nothing but a tag) is tidied as normalize() tidies any text."""
    edits: list[tuple[int, int, str]] = []  # (start, end, replacement) in the text as it is
    for i, tok in enumerate(tokens[:-1]):
        inline = tokens[i + 1]
        if tok.type == "paragraph_open" and tok.map and inline.type == "inline":
            edits += _unmarked(inline, text, line_starts, tok.map)
    if not edits:
        return text, lambda pos: pos
    text, unmarked = _edited(text, edits)
    text, trimmed = _edited(text, [(m.start(), m.end(), "") for m in _TRAILING_SPACE_RE.finditer(text)])
    text, collapsed = _edited(text, [(m.start(), m.end(), "") for m in _THIRD_BLANK_RE.finditer(text)])
    return text, lambda pos: collapsed(trimmed(unmarked(pos)))


# What normalize() leaves out of any text: spaces before a line break or at either end; then a third blank line.
_TRAILING_SPACE_RE = re.compile(r"^\s+|[ \t\u00a0\u3000]+(?=\n)|\s+$")
_THIRD_BLANK_RE = re.compile(r"(?<=\n\n)\n+")


def _edited(text: str, edits: list[tuple[int, int, str]]) -> tuple[str, Callable[[int], int]]:
    """The text with each (start, end, replacement) made (in order, none overlapping), and where an offset
    outside every edit moved to."""
    parts: list[str] = []
    ends: list[int] = []
    shifts: list[int] = []  # how far an offset at or after ends[k] moved
    done = shift = 0
    for start, end, replacement in edits:
        parts += [text[done:start], replacement]
        done = end
        shift += len(replacement) - (end - start)
        ends.append(end)
        shifts.append(shift)
    parts.append(text[done:])

    def moved(pos: int) -> int:
        k = bisect_right(ends, pos)
        return pos + (shifts[k - 1] if k else 0)

    return "".join(parts), moved


def _unmarked(inline: Token, text: str, line_starts: list[int], lines: list[int]) -> list[tuple[int, int, str]]:
    """The edits that leave a paragraph's shown text: its inline content is aligned, piece by piece, with the
    source lines it came from, and whatever stands between the pieces (markup, _MARKUP_RE) is left out; a
    line joined to the one before it loses its indent."""
    first, end = lines
    content = inline.content
    content_lines = content.split("\n")
    if len(content_lines) != end - first:
        return []
    starts: list[int] = []  # where each content line starts in the text
    for k, content_line in enumerate(content_lines):
        line_start, line_end = line_starts[first + k], line_starts[first + k + 1] - 1
        source_line = text[line_start:line_end].rstrip()
        if not source_line.endswith(content_line.rstrip()):
            return []
        starts.append(line_start + len(source_line) - len(content_line.rstrip()))
    # A soft line break read as a space (_join_soft_breaks) takes the next line's indent and markers with it.
    joins = [
        (starts[k - 1] + len(content_lines[k - 1].rstrip()), starts[k], " ")
        for k in range(1, len(content_lines))
        if text[line_starts[first + k] - 1] == " "
    ]
    return sorted(joins + _markup_cut(inline, content, starts))


def _markup_cut(inline: Token, content: str, starts: list[int]) -> list[tuple[int, int, str]]:
    """The edits that leave out a paragraph's inline markup, in the text (starts: where each line of the
    inline content starts there); none if its text cannot be found again, piece by piece."""
    pieces: list[tuple[str, str | None]] = []  # (shown text, or an inline tag to leave out; its replacement)
    for child in inline.children or []:
        if child.type in {"text", "code_inline", "image"} and child.content:
            pieces.append((child.content, None))
        elif child.type in {"softbreak", "hardbreak"}:
            pieces.append(("\n", None))
        elif child.type == "html_inline":
            pieces.append((child.content, " " if _BR_RE.match(child.content) else ""))
    cut: list[tuple[int, int, str]] = []  # in content offsets
    pos = 0
    for shown, replacement in pieces:
        while True:
            if replacement is not None and content.startswith(shown, pos):
                cut.append((pos, pos + len(shown), replacement))
                pos += len(shown)
                break
            if replacement is None:
                matched = _match_shown(content, pos, shown)
                if matched is not None:
                    cut += matched[1]
                    pos = matched[0]
                    break
            gap = _MARKUP_RE.match(content, pos)
            if gap is None or gap.end() == pos:
                return []
            if not gap.group().isspace():
                cut.append((pos, gap.end(), ""))
            pos = gap.end()
    while pos < len(content):  # closing markers after the last piece
        gap = _MARKUP_RE.match(content, pos)
        if gap is None:
            return []
        if not gap.group().isspace():
            cut.append((pos, gap.end(), ""))
        pos = gap.end()

    line_offsets = [0] + [i + 1 for i, ch in enumerate(content) if ch == "\n"]  # where each content line starts

    def at(offset: int) -> tuple[int, int]:  # (content line, offset in the text)
        k = bisect_right(line_offsets, offset) - 1
        return k, starts[k] + offset - line_offsets[k]

    edits: list[tuple[int, int, str]] = []
    for start, stop, replacement in cut:
        (line, begin), (line_after, finish) = at(start), at(stop)
        if line != line_after:  # markup across a line break: leave the paragraph as written
            return []
        edits.append((begin, finish, replacement))
    return edits


def _match_shown(content: str, pos: int, shown: str) -> tuple[int, list[tuple[int, int, str]]] | None:
    """Where a piece of shown text ends if it is written at pos, and the escapes and entities it was written
    with (a backslash before a punctuation mark, "&amp;"), as edits that show them as they read; None if not."""
    cut: list[tuple[int, int, str]] = []
    for ch in shown:
        if (entity := _ENTITY_RE.match(content, pos)) and html.unescape(entity.group()) == ch:
            cut.append((pos, entity.end(), ch))
            pos = entity.end()
        elif content.startswith(ch, pos):
            pos += 1
        elif content.startswith("\\" + ch, pos) and not ch.isalnum():
            cut.append((pos, pos + 1, ""))
            pos += 2
        else:
            return None
    return pos, cut


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
    return _edited(text, rendered)


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
