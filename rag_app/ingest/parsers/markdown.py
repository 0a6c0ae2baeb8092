"""Markdown: the version text is the normalised Markdown source; headings delimit blocks.

MediaWiki variant markup ("-{zh-hans:…;zh-hant:…}-") is resolved first, so it never reaches a snippet.

Offsets stay exact because nothing is rendered: a block is the line range between two
top-level headings (the heading line itself excluded; its text is the block's section path,
e.g. "Refunds > Deadlines"). markdown-it-py finds the headings, so "#" lines inside code
fences are not headings and setext (underlined) headings are. Title = the first H1, if any.
"""

from __future__ import annotations

from markdown_it import MarkdownIt
from markdown_it.token import Token

from rag_app.pipeline.chunking import Block
from rag_app.pipeline.textproc import clean_wiki_variants, normalize

from .base import EmptyDocument, ParsedDocument
from .text import decode

_md = MarkdownIt("commonmark")


def parse_markdown(data: bytes) -> ParsedDocument:
    raw, encoding = decode(data)
    text = normalize(clean_wiki_variants(raw))  # before anything is measured: offsets index the cleaned text
    if not text:
        raise EmptyDocument("the file has no text")
    line_starts = [0]
    for i, ch in enumerate(text):
        if ch == "\n":
            line_starts.append(i + 1)
    line_starts.append(len(text) + 1)

    def offset(line: int) -> int:
        return min(line_starts[line], len(text))

    tokens = _md.parse(text)
    text = _join_soft_breaks(text, tokens, line_starts)
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
    one, so every offset stays valid; a hard break (two trailing spaces or a backslash) stays."""
    chars = list(text)
    for tok in tokens:
        if tok.type != "paragraph_open" or not tok.map:
            continue
        first, end = tok.map
        for line in range(first + 1, end):
            newline = line_starts[line] - 1
            if 0 < newline < len(chars) and chars[newline] == "\n":
                before = text[line_starts[line - 1] : newline]
                if not before.endswith(("  ", "\\")):
                    chars[newline] = " "
    return "".join(chars)


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
