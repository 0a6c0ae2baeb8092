"""Plain text: encoding detection, normalisation, one block for the whole text.

Decoding order: a byte-order mark; strict UTF-8; a declared charset (HTML meta); then candidates
from charset-normalizer plus GB18030 and Big5-HKSCS, each decoded strictly and scored for
plausibility. charset-normalizer alone often reads a short GB18030 or Big5 file as a Korean or
Japanese code page; the score (share of plausible characters, and how common the decoded Chinese
characters are in jieba's dictionary) picks the reading a person would recognise.
"""

from __future__ import annotations

import codecs
import functools
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from charset_normalizer import from_bytes
from django.utils.translation import gettext_noop

from rag_app.pipeline.chunking import LIST_ITEM_MARK, Block
from rag_app.pipeline.textproc import clean_wiki_variants, has_cjk, normalize, to_simplified

from .base import BinaryFile, EmptyDocument, ParsedDocument, UndecodableText

_BOMS = (
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF32_LE, "utf-32"),  # before UTF-16 LE: its BOM starts with the UTF-16 LE one
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_FALLBACKS = ("gb18030", "big5hkscs", "cp1252")
# A prior for ties: a short Western European text reads equally "plausibly" in several single-byte
# code pages (cp1257 turns "Café" into "Cafķ"); Windows-1252 is by far the most common of them.
_PRIOR = {"cp1252": 0.05}
# Legacy names the detector or a meta tag may give, mapped to their supersets.
_SUPERSETS = {"gb2312": "gb18030", "gbk": "gb18030", "cp936": "gb18030", "big5": "big5hkscs", "cp950": "big5hkscs"}
_MIN_SCORE = 1.5  # plausible share (0..1) + commonness (0..1)


# Past this share of control characters (other than tab, newlines and form feed) a "text" file is
# binary noise: a log with a few ANSI colour codes stays well below it.
_MAX_CONTROL_SHARE = 0.05


def decode(data: bytes, declared: str | None = None) -> tuple[str, str]:
    """Bytes -> (text, encoding), or UndecodableText / BinaryFile with a message for the user.

    Every parser of a text format (plain text, Markdown, HTML) decodes here, so every entry point
    (web, API, CLI) refuses the same files.
    """
    text, encoding = _decode(data, declared)
    sample = text[:20_000]
    controls = sum(1 for ch in sample if ch not in "\t\n\r\f\v" and unicodedata.category(ch) == "Cc")
    if sample and controls / len(sample) > _MAX_CONTROL_SHARE:
        raise BinaryFile(gettext_noop("the file looks binary (it is mostly control characters), not text"))
    return text, encoding


def _decode(data: bytes, declared: str | None) -> tuple[str, str]:
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(enc)
            except UnicodeDecodeError as exc:
                raise UndecodableText(
                    gettext_noop("file starts with a %(enc)s byte-order mark but is not valid %(enc)s"), enc=enc
                ) from exc
            if plausibility(text) < _MIN_SCORE:
                raise UndecodableText(
                    gettext_noop("file starts with a %(enc)s byte-order mark but does not read as text"), enc=enc
                )
            return text, enc
    if b"\x00" in data[:8192]:
        return _decode_utf16_without_bom(data)
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    candidates: list[str] = []
    if declared:
        candidates.append(declared)
    candidates += [m.encoding for m in list(from_bytes(data[:200_000]))[:5]]
    candidates += _FALLBACKS
    best: tuple[float, str, str] | None = None
    for name in dict.fromkeys(_SUPERSETS.get(c.lower().replace("-", ""), c) for c in candidates):
        try:
            text = data.decode(name)
        except (UnicodeDecodeError, LookupError):
            continue
        score = plausibility(text) + _PRIOR.get(name, 0.0)
        if best is None or score > best[0]:
            best = (score, name, text)
    if best is None or best[0] < _MIN_SCORE:
        raise UndecodableText(
            gettext_noop(
                "the text encoding could not be recognised (tried UTF-8, GB18030, Big5 and others);"
                " save the file as UTF-8"
            )
        )
    return best[2], best[1]


def _decode_utf16_without_bom(data: bytes) -> tuple[str, str]:
    head = data[:8192]
    even, odd = head[0::2].count(0), head[1::2].count(0)
    order = ("utf-16-le", "utf-16-be") if odd >= even else ("utf-16-be", "utf-16-le")
    for enc in order:
        try:
            text = data.decode(enc)
        except UnicodeDecodeError:
            continue
        if plausibility(text) >= 1.8:
            return text, enc
    raise BinaryFile(gettext_noop("the file looks binary (it contains NUL bytes), not text"))


def plausibility(text: str) -> float:
    """Share of characters a text in Chinese or a Latin script would contain, plus a commonness
    score: for Chinese, the share of characters jieba's dictionary knows as frequent; otherwise
    the share of letters that are plain ASCII (mojibake is mostly accented letters)."""
    sample = text[:4000]
    if not sample:
        return 2.0
    plausible = sum(1 for ch in sample if _plausible(ch)) / len(sample)
    ideographs = [ch for ch in sample if "\u4e00" <= ch <= "\u9fff"]
    if ideographs:
        common = sum(1 for ch in ideographs if _common(ch)) / len(ideographs)
    else:
        letters = [ch for ch in sample if ch.isalpha()]
        common = sum(1 for ch in letters if ch.isascii()) / len(letters) if letters else 1.0
        common = min(1.0, common + 0.2)  # accented Latin text is normal; only a flood is suspect
    return plausible + common


def _plausible(ch: str) -> bool:
    o = ord(ch)
    if ch in "\n\r\t\f" or 0x20 <= o < 0x7F:
        return True
    if 0x4E00 <= o <= 0x9FFF or 0x3000 <= o <= 0x303F or 0xFF01 <= o <= 0xFF5E or 0x2000 <= o <= 0x206F:
        return True
    if 0xA0 <= o <= 0x24F:
        return unicodedata.category(ch)[0] in "LPSZN"
    return False


@functools.lru_cache(maxsize=1)
def _char_freq() -> dict[str, int]:
    import jieba

    jieba.dt.check_initialized()
    return jieba.dt.FREQ  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=20000)
def _common(ch: str) -> bool:
    return _char_freq().get(to_simplified(ch), 0) >= 100


def parse_text(data: bytes) -> ParsedDocument:
    raw, encoding = decode(data)
    # Wikipedia passages are often saved as .txt (the demo's 猴面包树.txt is one), markup and all.
    text = normalize(clean_wiki_variants(raw))
    if not text:
        raise EmptyDocument(gettext_noop("the file has no text"))
    text, blocks = structure(text)
    title = _opening_title(text, blocks)
    return ParsedDocument(text=text, blocks=blocks, title=title, mime="text/plain", encoding=encoding)


def _opening_title(text: str, blocks: list[Block]) -> str | None:
    """The heading a plain text opens with, as its title ("NEW EMPLOYEE ONBOARDING CHECKLIST"), as a Markdown file's
    first "# " heading is: the root of the first block's section path (a block is body text, so no text came before
    it), with the line under it when that line says which version or date the text is ("GNU GENERAL PUBLIC LICENSE,
    Version 3, 29 June 2007": the three GPLs open with the same heading). Not a numbered heading ("1. Scope", "第一章
    总则", "一、总则"): that opens the text's first part, it does not name the text."""
    if not blocks or not blocks[0].section:
        return None
    root = blocks[0].section.split(" > ")[0].strip()
    if not root or _HEADING_NUMBERED_RE.match(root) or _HEADING_CJK_RE.match(root):
        return None
    first = blocks[0]
    line = text[first.start : first.end].split("\n", 1)[0].strip()
    paragraph = text[first.start : first.end].split("\n\n", 1)[0].strip()
    if line == paragraph and len(line) <= 40 and any(ch.isdigit() for ch in line) and not line.endswith(_SENTENCE_END):
        return f"{root}, {line}"
    return root


# --- structure of plain text: reflowed paragraphs and headings -----------------------------------
# Licence texts, RFCs, README/NEWS files and PDF pages are hard-wrapped: a sentence runs over several
# lines, so anything that reads line by line (a quotation, a sentence split) would cut it ("grants to You
# a perpetual,"). Each paragraph (blank-line separated) is first cut at the headings it holds (a PDF
# page has no blank lines, a regulation may be typed without them), then cut into segments at list
# items; a segment's lines are joined unless a line ends a sentence, as a line of verse or a list
# without bullets does ("Beautiful is better than ugly." / "Explicit is better than implicit."). Whether
# a segment is wrapped at all is judged on the whole document, else on the segment itself, else line by
# line (a run of full lines in a block of short "Key: value" lines). Widths are display columns: a
# Chinese character takes two.
_HEADING_NUMBERED_RE = re.compile(
    r"^(?:(?:section|article|part|chapter|clause)\s+\d+(?:\.\d+)*[.:]?"
    r"|\d{1,3}(?:\.\d{1,3})*\.?"
    r"|[A-Z]\.)\s+\S",
    re.IGNORECASE,
)
_HEADING_CJK_RE = re.compile(
    r"^(?:第[一二三四五六七八九十百零〇两\d]+[章节条款部分篇编]"
    r"|[一二三四五六七八九十]+、"
    r"|[（(][一二三四五六七八九十]+[)）])"
)
# A list item: the chunker's list marks (chunking.LIST_ITEM_MARK), a regulation's 第三条 / 第二章, and a policy's
# sub-clause numbered without a closing dot before a sentence ("4.1 Passwords must be…"; not "3.5 percent of…").
_ITEM_START_RE = re.compile(
    rf"^(?:{LIST_ITEM_MARK}|第[一二三四五六七八九十百\d]+[条章]|\d{{1,3}}(?:\.\d{{1,3}})+\s+(?=[A-Z\u4e00-\u9fff\"“]))"
)
# The leading number or letter of a line ("2.", "1.7.", "0 if OK,", "H."), to tell a run of labelled lines
# (a list) from a numbered title.
_NUMBER_RE = re.compile(r"^(?:(\d{1,3}(?:\.\d{1,3})*)(?:[.)]\s|\s)|([A-Za-z])[.)]\s)")
_UNDERLINE_RE = re.compile(r"^(=|-|~)\1{2,}$")  # setext: "Title" / "=====", "-----", "~~~~~"
_RULE_RE = re.compile(r"^([-=~_*#+.•·])(?:\s*\1){2,}$")  # "-----", "* * *": a divider, no text
_OUTLINE_RE = re.compile(r"^(\*{1,4}) +(\S.*)$")  # Emacs outline headings of GNU NEWS files: "* ", "** "
_OUTLINE_DOC_RE = re.compile(r"-\*-\s*outline\s*-\*-|(?:\A|\n[ \t]*\n)\*\* \S[^\n]*\n[ \t]*\n")
_CODE_RE = re.compile(r"[_=$|<>{}\[\]]")  # a capitals line holding these is code ("PNG_COLOR_TYPE_GRAY"), no title
_SENTENCE_END = tuple(".!?;:。！？；：")
_MAX_HEADING_CHARS = 80
_MAX_HEADING_WORDS = 10
_UNDERLINE_LEVELS = {"=": 1, "-": 2, "~": 3}


@dataclass(slots=True)
class _Piece:
    """One output paragraph: body text, a heading (its level and its name in the section path) or a
    divider line (neither: it belongs to no block and changes no section)."""

    text: str
    page: int | None
    level: int | None = None
    title: str = ""
    divider: bool = False


def structure(text: str) -> tuple[str, list[Block]]:
    """Plain text -> (reflowed text, blocks with a section path from the headings found)."""
    return _assemble(_pieces([(text, None)]))


def structure_pages(pages: Sequence[str]) -> tuple[str, list[Block]]:
    """The pages of one document (a PDF's) -> (text, blocks): reflowed and cut at headings as plain text
    is; a block never spans two pages, and a section runs on over a page break."""
    return _assemble(_pieces([(page, number) for number, page in enumerate(pages, start=1)]))


def _pieces(pages: list[tuple[str, int | None]]) -> list[_Piece]:
    pages = [(_unframe(text), page) for text, page in pages]
    whole = "\n\n".join(text for text, _ in pages)
    width = _wrap_width([ln.rstrip() for ln in whole.split("\n") if ln.strip()])
    outline = bool(_OUTLINE_DOC_RE.search(whole))
    paragraphs: list[tuple[list[str], int | None]] = []
    for text, page in pages:
        for para in re.split(r"\n[ \t]*\n", text):
            lines = [ln for ln in para.split("\n") if ln.strip()]
            if lines:
                paragraphs.append((lines, page))
    pieces: list[_Piece] = []
    for k, (lines, page) in enumerate(paragraphs):
        neighbours = [paragraphs[j][0] for j in (k - 1, k + 1) if 0 <= j < len(paragraphs)]
        # A one-line numbered paragraph between others of its kind is a list item ("1. Open the settings
        # page" / "2. Click ..."; "0 if OK," / "1 if minor problems,"), not a run of empty sections.
        listed = len(lines) == 1 and any(len(n) == 1 and _same_number_depth(lines[0], n[0]) for n in neighbours)
        pieces += _split(lines, page, width, outline=outline, listed=listed)
    return pieces


# A framed block (the MPL 2.0's boxed "6. Disclaimer of Warranty"): a border of one repeated character (or
# "+----+") and a run of lines that open with *, | or # and close with the same character at the same column.
# Its inner text is read like any other; with its frame it would be quoted frame and all, line by line.
_BORDER_RE = re.compile(r"^([ \t]*)(?:([-*#=+|])\2{2,}|\+[-=]{2,}\+)[ \t]*$")
_FRAMED_RE = re.compile(r"^([ \t]*)([*|#])(?:([ \t].*[ \t])|[ \t]*)\2[ \t]*$")


def _unframe(text: str) -> str:
    """The text with each framed block's frame taken off: its borders become blank lines, and each framed
    line keeps what lies between its frame characters, less the padding all of them share (an indented
    line keeps its indentation within the box). A run of lines counts as framed only with a border as wide
    as itself just above or below it, every line padded inside its frame, the closing characters at the
    same column (give or take one); a '|' run holds no other '|' (a table's columns)."""
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        first = _FRAMED_RE.match(lines[i])
        if not first:
            i += 1
            continue
        indent, char, close = first.group(1), first.group(2), columns(lines[i].rstrip())
        run = [first]
        while i + len(run) < len(lines):
            m = _FRAMED_RE.match(lines[i + len(run)])
            if not m or m.group(1, 2) != (indent, char) or abs(columns(m.group().rstrip()) - close) > 1:
                break
            run.append(m)
        j = i + len(run)
        borders = [k for k in (i - 1, j) if 0 <= k < len(lines) and _is_border(lines[k], indent, close)]
        if borders and not (char == "|" and any(m.group().count("|") > 2 for m in run)):
            inner = [(m.group(3) or "").rstrip() for m in run]
            pad = min((len(ln) - len(ln.lstrip()) for ln in inner if ln), default=0)
            lines[i:j] = [ln[pad:] for ln in inner]
            for k in borders:
                lines[k] = ""
        i = j
    return "\n".join(lines)


def _is_border(line: str, indent: str, close: int) -> bool:
    """A border of a framed run whose lines start after `indent` and end at column `close`."""
    m = _BORDER_RE.match(line)
    return m is not None and m.group(1) == indent and abs(columns(line.rstrip()) - close) <= 2


def _split(lines: list[str], page: int | None, width: int, *, outline: bool, listed: bool) -> list[_Piece]:
    """One paragraph's lines -> its headings, dividers and body text (reflowed), in order."""
    out: list[_Piece] = []
    body: list[str] = []

    def flush() -> None:
        if body:
            out.append(_Piece(_reflow(body, width), page))
            body.clear()

    alone = len(lines) == 1
    i = 0
    while i < len(lines):
        line, stripped = lines[i], lines[i].strip()
        nxt = lines[i + 1].strip() if i + 1 < len(lines) else None
        prev = body[-1].strip() if body else None
        after_shouted = i > 0 and _shouted(lines[i - 1])
        opens = prev is None or prev.endswith(_SENTENCE_END)  # a heading never continues a sentence
        # ...nor a title line over it, the first of its paragraph ("Security Handbook" / "1. Passwords" at the top
        # of a PDF page): then both are headings, the title over the other.
        under_title = not opens and i == 1 and len(body) == 1 and _title_line(prev or "")
        opens = opens or under_title
        if prev is None and nxt and _UNDERLINE_RE.match(nxt) and _underlined(stripped, nxt):
            flush()
            out.append(_Piece(f"{stripped}\n{nxt}", page, _UNDERLINE_LEVELS[nxt[0]], stripped))
            i += 2
            continue
        if _RULE_RE.match(stripped):
            flush()
            out.append(_Piece(stripped, page, divider=True))
            i += 1
            continue
        level: int | None = None
        title = stripped.rstrip(".")
        outlined = _OUTLINE_RE.match(line) if outline and alone else None
        if outlined:
            level, title = len(outlined.group(1)), outlined.group(2).strip()
        elif opens and not (listed and _NUMBER_RE.match(stripped)):
            level = _heading_level(line, alone=alone)
            if level is None and not alone:
                level = _run_in_numbered_title(stripped, prev, nxt)
            if level is not None and _shouted(stripped) and (after_shouted or _runs_on(stripped, nxt)):
                level = None
            if level is not None and prev is not None and stripped.endswith(_SENTENCE_END):
                level = None  # inside a paragraph, a line that ends a sentence is one ("GCRY_PK_ECDH  NEW.")
            if level is not None and not alone and _cjk_item(stripped, lines[i - 1] if i else None, nxt):
                level = None
        if level is None:
            body.append(line)
        else:
            if under_title:
                # Over the heading under it, whatever that heading's level: a title over a level-1 heading
                # ("alpha" / "WARRANTY") had been replaced by it in the section path, and its words lost.
                name = body.pop().strip()
                out.append(_Piece(name, page, min(1, level - 1), name))
            flush()
            out.append(_Piece(stripped, page, level, title))
        i += 1
    flush()
    return out


def _title_line(line: str) -> bool:
    """A short line that names what follows (a document's or a page's title): a few words, no sentence and no
    clause in it, neither numbered nor a list item."""
    body = line.strip()
    return (
        any(ch.isalpha() for ch in body)
        and columns(body) < MIN_WRAP
        and len(body.split()) <= _MAX_HEADING_WORDS
        and not body.endswith((*_SENTENCE_END, ",", "，", "、"))
        and not _NUMBER_RE.match(body)
        and not _ITEM_START_RE.match(body)
        and not _HEADING_CJK_RE.match(body)
    )


def _cjk_ordinal_kind(line: str | None) -> str | None:
    """The kind of Chinese ordinal a line opens with: "、" (一、), "（" (（一）), or the 第…X word (条, 章, 节...)."""
    found = _HEADING_CJK_RE.match(line.strip()) if line else None
    if found is None:
        return None
    mark = found.group(0)
    return "、" if mark.endswith("、") else "（" if mark[0] in "（(" else mark[-1]


def _cjk_item(line: str, prev: str | None, nxt: str | None) -> bool:
    """Inside a paragraph, a line opening with a Chinese ordinal next to a line opening with one of its kind is an
    item of a list ("一、用户应当遵守本协议" / "二、用户不得复制软件"), not a heading each: two headings in a row would
    leave the first with no body, its words in no chunk."""
    kind = _cjk_ordinal_kind(line)
    return kind is not None and kind in {_cjk_ordinal_kind(prev), _cjk_ordinal_kind(nxt)}


def _underlined(title: str, underline: str) -> bool:
    """A setext heading: a short line of text, first in its paragraph, over a line of =, - or ~ at least half
    as wide."""
    return (
        any(ch.isalnum() for ch in title)
        and len(title) <= _MAX_HEADING_CHARS
        and not title.endswith(",")
        and not title.startswith(("- ", "* ", "+ ", "•", "·", ">", "|"))
        and len(underline) * 2 >= columns(title)
    )


def _runs_on(line: str, nxt: str | None) -> bool:
    """A capitals line as long as a wrapped line, followed by more capitals, is the first line of a shouted
    sentence ("STICHTING MATHEMATISCH CENTRUM DISCLAIMS ALL WARRANTIES WITH REGARD TO" / "THIS SOFTWARE, ..."),
    not a title over it."""
    return nxt is not None and _shouted(nxt) and columns(line) >= MIN_WRAP and not line.endswith(_SENTENCE_END)


def _run_in_numbered_title(line: str, prev: str | None, nxt: str | None) -> int | None:
    """A numbered title on a line of its own inside a paragraph, its body on the next line with no blank line
    between (a PDF page: "1. Leave Policy" / "Employees accrue ..."), not an item of a numbered list, the
    first line of a clause that runs on in lower case ('1.7. "Larger Work"' / "means a work ...") or a
    sentence ("3.4. Intellectual Property Matters (a) Third Party Claims." / "If Contributor ...")."""
    numbered = _HEADING_NUMBERED_RE.match(line)
    if not numbered or not nxt or len(line.split()) > _MAX_HEADING_WORDS:
        return None
    words = line[numbered.end() - 1 :].split()
    if len(words) > 7 or line.endswith((*_SENTENCE_END, ",")):
        return None
    if _opens_its_clauses(line, nxt):
        own = _NUMBER_RE.match(line)
        return 2 if own is None or "." not in (own.group(1) or "") else 3
    if _ITEM_START_RE.match(nxt) or _same_number_depth(line, nxt) or (prev and _same_number_depth(line, prev)):
        return None
    if not (nxt[0].isupper() or _cjk_like(nxt[0]) or nxt[0] in "\"'“‘"):
        return None
    number = line.split()[1] if line.lower().startswith(_WORD_NUMBERED) else line.split()[0]
    return 3 if "." in number.rstrip(".:") else 2


def _opens_its_clauses(line: str, nxt: str) -> bool:
    """A numbered title over its own first sub-clause ("4. Passwords" / "4.1 Passwords must be…"): the next line's
    number is this one's with one more part."""
    own, sub = _NUMBER_RE.match(line.strip()), _NUMBER_RE.match(nxt.strip())
    if not own or not sub or own.group(1) is None or sub.group(1) is None:
        return False
    return sub.group(1).startswith(own.group(1) + ".") and sub.group(1).count(".") == own.group(1).count(".") + 1


def _same_number_depth(a: str, b: str) -> bool:
    """Both lines start with a number of the same depth ("2." and "3."; "1.7." and "1.8.") or both with a
    letter ("H." and "I.")."""
    ma, mb = _NUMBER_RE.match(a.strip()), _NUMBER_RE.match(b.strip())
    if not ma or not mb:
        return False
    if ma.group(1) is None or mb.group(1) is None:
        return ma.group(1) is None and mb.group(1) is None
    return ma.group(1).count(".") == mb.group(1).count(".")


_MAX_WRAP_WIDTH = 120  # a text whose lines run longer (in characters) has one line per paragraph
MIN_WRAP = 40  # columns: a text of shorter lines (an address, a list of names) is not told from a wrap


def columns(text: str) -> int:
    """Display width: a wide (CJK) character takes two columns, as in a terminal or a fixed-width font."""
    if text.isascii():
        return len(text)
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def _wrap_width(lines: list[str]) -> int:
    """The width the lines were hard-wrapped at (the 90th percentile of their widths), 0 when they are
    not wrapped: lines longer than any wrap, shorter than MIN_WRAP, or most lines far shorter than the
    width. Fewer than five lines are read by _short_wrap_width."""
    if len(lines) < 5:
        return _short_wrap_width(lines)
    at = int(len(lines) * 0.9) - 1
    if sorted(len(ln.rstrip()) for ln in lines)[at] > _MAX_WRAP_WIDTH:
        return 0
    lengths = sorted(columns(ln.rstrip()) for ln in lines)
    width = lengths[at]
    if width < MIN_WRAP or sum(n >= width * 0.6 for n in lengths) < len(lengths) / 2:
        return 0
    return width


def _short_wrap_width(lines: list[str]) -> int:
    """Two to four lines (a note, one clause of a licence), their widths in order, are wrapped when every
    line but the last is at least 60% of the longest and that is at least MIN_WRAP columns:
    "…above, all" / "end user license agreements … which" / "have been validly granted …". Of three or
    four lines the first may be short when it reads as a heading ("11. Patents.", "Preamble") or a numbered
    term that a clause defines ('1.7. "Larger Work"' / "means a work that ..."). An address or a short list
    is not wrapped."""
    if len(lines) < 2:
        return 0
    lengths = [columns(ln.rstrip()) for ln in lines]
    width = max(lengths)
    led = len(lines) > 2 and (_heading_level(lines[0]) is not None or _HEADING_NUMBERED_RE.match(lines[0].strip()))
    inner = lengths[1:-1] if led else lengths[:-1]
    too_long = max(len(ln.rstrip()) for ln in lines) > _MAX_WRAP_WIDTH
    if width < MIN_WRAP or too_long or any(n < width * 0.6 for n in inner):
        return 0
    return width


def _full_line_breaks(lines: list[str]) -> set[int]:
    """The breaks (after line i) of a run of two or more full lines, in a block whose width tells nothing
    (dpkg's "What: … / Status: deprecated / Why:" and then a wrapped explanation), and of a full line whose
    sentence runs on in lower case on the next: a line is full when it is at least MIN_WRAP columns wide and
    the next line's first word would not have fitted on it within the block's widest line, which is how a
    wrapping editor leaves a line."""
    widths = [columns(ln.rstrip()) for ln in lines]
    width = max(widths)
    if width < MIN_WRAP or max(len(ln.rstrip()) for ln in lines) > _MAX_WRAP_WIDTH:
        return set()

    def full(i: int) -> bool:
        if not 0 <= i < len(lines) - 1 or widths[i] < MIN_WRAP:
            return False
        head = lines[i + 1].split()[0]
        first = head[:1] if _cjk_like(head[:1]) else head  # Chinese wraps at any character, with no space
        return widths[i] + (0 if _cjk_like(first) else 1) + columns(first) > width

    def continues(i: int) -> bool:
        """A full line whose sentence goes on in lower case on the next ("… to the security desk within" / "one
        hour."): a wrap, also where it is the only one (a two-line paragraph over a table's short rows)."""
        return full(i) and lines[i + 1].lstrip()[:1].islower()

    return {i for i in range(len(lines) - 1) if full(i) and (full(i - 1) or full(i + 1) or continues(i))}


def _reflow(lines: list[str], width: int) -> str:
    """A paragraph's lines, each list item's lines joined (items keep their own line)."""
    segments: list[list[str]] = []
    for line in lines:
        if not segments or _ITEM_START_RE.match(line.strip()):
            segments.append([line])
        else:
            segments[-1].append(line)
    return "\n".join(_reflow_segment(seg, width) for seg in segments).lstrip()


def _reflow_segment(lines: list[str], width: int) -> str:
    soft = set(range(len(lines) - 1)) if width or _wrap_width(lines) else _full_line_breaks(lines)
    joined = lines[0].rstrip()
    for i, (prev, line) in enumerate(itertools.pairwise(lines)):
        body = line.strip()
        # A break stays after a line that ends a sentence: a quotation never needs to cross it, and verse
        # and bullet-less lists keep their lines.
        if i not in soft or prev.rstrip().endswith(_SENTENCE_END):
            joined += "\n" + line.rstrip()
            continue
        # CJK text wraps without spaces; Latin text wraps at one.
        sep = "" if _cjk_like(joined[-1:]) and _cjk_like(body[:1]) else " "
        joined += sep + body
    return joined


def _cjk_like(ch: str) -> bool:
    return has_cjk(ch) or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"


def _shouted(line: str) -> bool:
    letters = [ch for ch in line if ch.isalpha()]
    return len(letters) >= 4 and all(ch.isupper() for ch in letters)


def _heading_level(line: str, *, alone: bool = True) -> int | None:
    """The heading level of a line that reads as one, else None. Levels: 1 an ALL-CAPS or centred
    title, 第…章/编/部分; 2 a numbered clause ("11. Patents.", "Section 5. …"), 一、; 3 a sub-number
    ("4.2 Fees"), 第…条/节, （一）. A line that ends in a comma continues ("0 if OK,").

    `alone`: the line is a paragraph of its own, so a short centred title ("Preamble") and a numbered
    title count too.
    """
    body = line.strip()
    if not body or len(body) > _MAX_HEADING_CHARS or len(body.split()) > _MAX_HEADING_WORDS:
        return None
    if body.endswith((",", "，")) or not any(ch.isalnum() for ch in body):
        return None
    if _HEADING_CJK_RE.match(body):
        if len(body) > 30 or body.endswith(("。", "；", "，", "：")):
            return None
        if re.match(r"^第.+?[章编篇部]", body):
            return 1
        return 2 if re.match(r"^[一二三四五六七八九十]+、", body) else 3
    letters = [ch for ch in body if ch.isalpha()]
    if len(letters) >= 4 and body.isascii() and all(ch.isupper() for ch in letters) and not _CODE_RE.search(body):
        return 1
    numbered = _HEADING_NUMBERED_RE.match(body)
    if numbered:
        # "11. Patents." and "Section 5. Submission of Contributions" are titles; "0. This License
        # applies to any program..." is the first line of a clause.
        words = body[numbered.end() - 1 :].split()
        if len(words) <= 7 and not body.rstrip(".").endswith(_SENTENCE_END) and alone:
            number = body.split()[1] if body.lower().startswith(_WORD_NUMBERED) else body.split()[0]
            return 3 if "." in number.rstrip(".:") else 2
        return None
    if alone and len(line) - len(line.lstrip()) >= 8 and not body.endswith(_SENTENCE_END) and not has_cjk(body):
        return 1  # a centred title
    return None


_WORD_NUMBERED = ("section", "article", "part", "chapter", "clause")


def _assemble(pieces: list[_Piece]) -> tuple[str, list[Block]]:
    """Pieces -> (text, blocks): a block is a run of body pieces under one section on one page."""
    blocks: list[Block] = []
    stack: list[tuple[int, str]] = []
    section: str | None = None
    pos = 0
    start: int | None = None  # of the open block
    end = 0
    page: int | None = None
    for piece in pieces:
        breaks = piece.level is not None or piece.divider or piece.page != page
        if start is not None and breaks:
            blocks.append(Block(start, end, section=section, page=page))
            start = None
        if piece.level is not None:
            while stack and stack[-1][0] >= piece.level:
                stack.pop()
            stack.append((piece.level, piece.title))
            section = " > ".join(h for _, h in stack)
        elif not piece.divider:
            if start is None:
                start, page = pos, piece.page
            end = pos + len(piece.text)
        pos += len(piece.text) + 2
    if start is not None:
        blocks.append(Block(start, end, section=section, page=page))
    text = "\n\n".join(piece.text for piece in pieces)
    if not blocks and text:
        blocks.append(Block(0, len(text), page=pieces[0].page))
    return text, blocks
