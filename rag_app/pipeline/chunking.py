"""Text -> chunks with character offsets, section path and page. Pure and deterministic.

Chunks never cross a block boundary (a block is a run of text with one section path and one
page, as the parser reported it), so every chunk has one honest locator. Inside a block,
paragraphs (blank-line separated; a single newline is a soft wrap) and sentences (Chinese
。！？； included) are packed greedily up to the target size; a sentence longer than the hard
limit is cut at a clause mark, and only as a last resort at a position outside any word run or
combining sequence. Invariant: text[c.start:c.end] == c.text.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .textproc import clause_cut_points, safe_cut, sentence_spans

_PARAGRAPH_BREAK_RE = re.compile(r"\n[ \t]*\n\s*")
# A line that starts a list item, heading, quote or table row: a bullet and a space ("- Linux", not the
# "--color=never." of a wrapped sentence), a number closed by "." or ")" and a space ("2. ", not "3.11.2").
# A list item's mark at the start of a line: a bullet followed by a space ("- Linux", not "--color=never."), a number
# closed by "." or ")" and a space ("2. Click", "1.7. ", not the "3.11.2" of a wrapped version number), 1、, 一、,
# （一）. The plain-text reader starts its list segments with the same marks (ingest/parsers/text.py).
LIST_ITEM_MARK = r"[-*+](?=\s)|[•·>|]|\d{1,3}(?:\.\d{1,3})*[.)](?=\s|$)|\d{1,3}、|[（(]?[一二三四五六七八九十]+[、）)]"
_LINE_ITEM_RE = re.compile(rf"\n(?=[ \t]*(?:{LIST_ITEM_MARK}|#))")

DEFAULT_TARGET = 350
DEFAULT_MAX = 600


@dataclass(frozen=True, slots=True)
class Block:
    """A span of the normalised text that shares one section path and page."""

    start: int
    end: int
    section: str | None = None
    page: int | None = None


@dataclass(frozen=True, slots=True)
class ChunkSpan:
    index: int
    start: int
    end: int
    text: str
    section: str | None = None
    page: int | None = None


def chunk_text(
    text: str,
    blocks: Sequence[Block] | None = None,
    *,
    target: int = DEFAULT_TARGET,
    max_chars: int = DEFAULT_MAX,
) -> list[ChunkSpan]:
    if target <= 0 or max_chars < target:
        raise ValueError("need 0 < target <= max_chars")
    if blocks is None:
        blocks = [Block(0, len(text))]
    chunks: list[ChunkSpan] = []
    for block in blocks:
        for s, e in _pack(text, _units(text, block.start, block.end, max_chars), target, max_chars):
            chunks.append(ChunkSpan(len(chunks), s, e, text[s:e], block.section, block.page))
    return chunks


def _units(text: str, start: int, end: int, max_chars: int) -> list[tuple[int, int, bool]]:
    """Sentences as (start, end, starts_paragraph), long ones cut down to max_chars.

    Paragraphs are separated by blank lines; a single newline is a soft wrap (hard-wrapped
    plain text) unless the next line starts a list item, heading, quote or table row.
    """
    units: list[tuple[int, int, bool]] = []
    for para_start, para_end in _spans_between(text, start, end, _PARAGRAPH_BREAK_RE):
        first = True
        for line_start, line_end in _spans_between(text, para_start, para_end, _LINE_ITEM_RE):
            for s, e in sentence_spans(text, line_start, line_end):
                for ps, pe in _cut_long(text, s, e, max_chars):
                    units.append((ps, pe, first))
                    first = False
    return units


def _spans_between(text: str, start: int, end: int, separator: re.Pattern[str]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    pos = start
    for m in separator.finditer(text, start, end):
        spans.append((pos, m.start()))
        pos = m.end()
    spans.append((pos, end))
    return [(s, e) for s, e in spans if e > s]


def _cut_long(text: str, s: int, e: int, max_chars: int) -> list[tuple[int, int]]:
    pieces: list[tuple[int, int]] = []
    while e - s > max_chars:
        limit = s + max_chars
        cuts = [c for c in clause_cut_points(text, s, limit) if c - s >= max_chars // 3]
        cut = cuts[-1] if cuts else safe_cut(text, limit, s)
        if cut <= s:  # one unbroken word run longer than max_chars: cut it anyway
            cut = limit
        piece_end = cut
        while piece_end > s and text[piece_end - 1].isspace():
            piece_end -= 1
        pieces.append((s, piece_end))
        s = cut
        while s < e and text[s].isspace():
            s += 1
    if e > s:
        pieces.append((s, e))
    return pieces


def _pack(text: str, units: list[tuple[int, int, bool]], target: int, max_chars: int) -> list[tuple[int, int]]:
    """Sentences packed greedily into chunks of about `target` characters, preferring to break at a paragraph.
    A sentence that introduces what follows ("…provided that you meet the following conditions:", "如下：") never
    ends a chunk while what it introduces follows in the block: it opens the next chunk instead, so that the
    conditions are found, read and quoted with the words that say what they are (within `max_chars`)."""
    out: list[tuple[int, int]] = []
    chunk: list[tuple[int, int]] = []  # the sentences of the chunk being packed
    for s, e, new_para in units:
        if not chunk:
            chunk = [(s, e)]
            continue
        cur_s, cur_e = chunk[0][0], chunk[-1][1]
        # Prefer to break at a paragraph once the chunk is reasonably full.
        if e - cur_s > target or (new_para and cur_e - cur_s >= target * 2 // 3):
            # The sentences at the chunk's end that introduce what follows ("The following rules apply:", then "Travel
            # is booked as follows:") go with it, all of them, so none is left as a chunk of its own.
            k = len(chunk)
            while k > 0 and introduces(text[chunk[k - 1][0] : chunk[k - 1][1]]):
                k -= 1
            if k < len(chunk) and e - chunk[k][0] <= max_chars:
                if k > 0:
                    out.append((cur_s, chunk[k - 1][1]))
                chunk = [*chunk[k:], (s, e)]
                continue
            out.append((cur_s, cur_e))
            chunk = [(s, e)]
        else:
            chunk.append((s, e))
    if chunk:
        out.append((chunk[0][0], chunk[-1][1]))
    return out


_INTRODUCES_RE = re.compile(r"[:：][\s\"'”’]*$")  # not ":)", a smile


def introduces(sentence: str) -> bool:
    """Whether a sentence introduces what follows it: it ends with a colon ("…one of the following:", "方法如下：")."""
    return _INTRODUCES_RE.search(sentence) is not None


# A colon and a list's first item after it, in one sentence: a list whose lines a paragraph ran together ("…划分如下：
# （一）单笔金额5000元（含）以下的，由部门经理审批；", a Markdown paragraph's soft line breaks read as spaces).
_OPENS_LIST_RE = re.compile(r"[:：]\s*(?:[（(](?:一|1|a|i)[）)]|(?:一|1)[、.)](?!\d)|①)")


def opens_list(sentence: str) -> bool:
    """Whether a sentence introduces a list and holds its first item (`_OPENS_LIST_RE`): the items after it go on
    with it, as they do after a sentence that `introduces` them."""
    return _OPENS_LIST_RE.search(sentence) is not None


# A sentence that is a list item: the marks above, or a letter or short numeral closed by "." or ")" ("(a) You must…",
# "a) Accompany…", "iv. …"). Quoting runs through such items (generation/extractive.py), and a list still going at a
# chunk's end brings the chunks that go on with it (`list_runs_on`, search/hybrid.py).
_ITEM_RE = re.compile(rf"\s*(?:{LIST_ITEM_MARK}|\(?[A-Za-z]{{1,4}}[.)](?=\s))")


def paragraph_break(text: str, start: int, end: int) -> bool:
    """Whether a paragraph ends between `start` and `end` of `text` (a blank line: how the chunker reads paragraphs)."""
    return _PARAGRAPH_BREAK_RE.search(text, start, end) is not None


def is_list_item(text: str) -> bool:
    """Whether `text` (a sentence, a chunk) opens with a list item's mark."""
    return _ITEM_RE.match(text) is not None


# The marks a sentence goes on after (textproc.clause_cut_points cuts an over-long sentence at them): a chunk, or a
# quote (generation/extractive.py), that ends at one ends inside its sentence.
CLAUSE_MARKS = ",，;；、:："
_CUT_CLAUSE_RE = re.compile(rf"[{CLAUSE_MARKS}]\s*$")


def sentence_runs_on(text: str) -> bool:
    """Whether a chunk ends inside a sentence, at the clause mark the chunker cut it at ("… commercial damages or
    losses)," and the next chunk's "even if such Contributor has been advised …")."""
    return _CUT_CLAUSE_RE.search(text) is not None


def list_runs_on(text: str) -> bool:
    """Whether a chunk ends inside a list it introduces: a sentence of it introduces what follows (`introduces`) and its
    last line is a list item. The Apache License's "…provided that You meet the following conditions:" and its (a) fill
    one chunk; (b), (c) and (d) are the next three, each opening with its mark."""
    lines = [line for line in text.rstrip().split("\n") if line.strip()]
    if len(lines) < 2 or not is_list_item(lines[-1]):
        return False
    head = text[: text.rstrip().rfind(lines[-1])]
    return any(introduces(head[s:e]) for s, e in sentence_spans(head))
