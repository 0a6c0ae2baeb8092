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

from charset_normalizer import from_bytes

from rag_app.pipeline.chunking import Block
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
        raise BinaryFile("the file looks binary (it is mostly control characters), not text")
    return text, encoding


def _decode(data: bytes, declared: str | None) -> tuple[str, str]:
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                text = data.decode(enc)
            except UnicodeDecodeError as exc:
                raise UndecodableText(f"file starts with a {enc} byte-order mark but is not valid {enc}") from exc
            if plausibility(text) < _MIN_SCORE:
                raise UndecodableText(f"file starts with a {enc} byte-order mark but does not read as text")
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
            "the text encoding could not be recognised (tried UTF-8, GB18030, Big5 and others); save the file as UTF-8"
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
    raise BinaryFile("the file looks binary (it contains NUL bytes), not text")


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
        raise EmptyDocument("the file has no text")
    text, blocks = structure(text)
    return ParsedDocument(text=text, blocks=blocks, mime="text/plain", encoding=encoding)


# --- structure of plain text: reflowed paragraphs and headings -----------------------------------
# Licence texts, RFCs and exported notes are hard-wrapped at about 70 columns: a sentence runs over
# several lines, so anything that reads line by line (a quotation, a sentence split) would cut it
# ("grants to You a perpetual,"). Lines are joined into their paragraph unless the next line starts
# a list item or heading or the line ends a sentence and is short, as a line of verse or a list
# without bullets is ("Beautiful is better than ugly." / "Explicit is better than implicit.").
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
_ITEM_START_RE = re.compile(
    r"^(?:[-*+•·>|]|\d{1,3}[.)、]|[（(]?[一二三四五六七八九十]+[、）)]|第[一二三四五六七八九十百\d]+[条章])"
)
_SENTENCE_END = tuple(".!?;:。！？；：")
_MAX_HEADING_CHARS = 80
_MAX_HEADING_WORDS = 10


def structure(text: str) -> tuple[str, list[Block]]:
    """Plain text -> (reflowed text, blocks with a section path from the headings found)."""
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", text) if p.strip()]
    width = _wrap_width(text)
    out: list[str] = []
    kinds: list[int | None] = []  # heading level of each output paragraph, None for body text
    for para in paragraphs:
        lines = [ln for ln in para.split("\n") if ln.strip()]
        level = _heading_level(lines[0]) if len(lines) == 1 else None
        if level is None and len(lines) > 1 and _heading_level(lines[0], alone=False) is not None:
            # "SECTION 3 / body text" with no blank line between: the heading is its own paragraph.
            out.append(lines[0].strip())
            kinds.append(_heading_level(lines[0], alone=False))
            lines = lines[1:]
        out.append(lines[0].strip() if level is not None else _reflow(lines, width))
        kinds.append(level)
    reflowed = "\n\n".join(out)
    return reflowed, _blocks(out, kinds)


_MAX_WRAP_WIDTH = 120  # a text whose lines run longer has one line per paragraph: nothing to reflow


def _wrap_width(text: str) -> int:
    """The width the text was hard-wrapped at (the 90th percentile of its line lengths), 0 when it
    is not wrapped: lines longer than any wrap, or most lines far shorter than it. Fewer than five
    lines are read by _short_wrap_width."""
    lines = [ln.rstrip() for ln in text.split("\n") if ln.strip()]
    in_order = [len(ln) for ln in lines]
    if len(in_order) < 5:
        return _short_wrap_width(lines)
    lengths = sorted(in_order)
    width = lengths[int(len(lengths) * 0.9) - 1]
    if width > _MAX_WRAP_WIDTH or sum(n >= width * 0.6 for n in lengths) < len(lengths) / 2:
        return 0
    return width


_MIN_SHORT_WRAP = 40


def _short_wrap_width(lines: list[str]) -> int:
    """Two to four lines (a note, one clause of a licence), their lengths in order, are wrapped when every
    line but the last is at least 60% of the longest and that is at least _MIN_SHORT_WRAP characters:
    "…above, all" / "end user license agreements … which" / "have been validly granted …". Of three or
    four lines the first may be short when it reads as a heading ("11. Patents.", "Preamble") or a numbered
    term that a clause defines ('1.7. "Larger Work"' / "means a work that ..."). An address or a short list
    is not wrapped."""
    lengths = [len(ln) for ln in lines]
    if len(lengths) < 2:
        return 0
    width = max(lengths)
    led = len(lines) > 2 and (_heading_level(lines[0]) is not None or _HEADING_NUMBERED_RE.match(lines[0].strip()))
    inner = lengths[1:-1] if led else lengths[:-1]
    if width < _MIN_SHORT_WRAP or width > _MAX_WRAP_WIDTH or any(n < width * 0.6 for n in inner):
        return 0
    return width


def _reflow(lines: list[str], width: int) -> str:
    joined = lines[0].strip()
    for prev, line in itertools.pairwise(lines):
        body = line.strip()
        if _keeps_break(prev.rstrip(), body, width):
            joined += "\n" + line.rstrip()
            continue
        # CJK text wraps without spaces; Latin text wraps at one.
        sep = "" if _cjk_like(joined[-1:]) and _cjk_like(body[:1]) else " "
        joined += sep + body
    return joined


def _cjk_like(ch: str) -> bool:
    return has_cjk(ch) or "\u3000" <= ch <= "\u303f" or "\uff00" <= ch <= "\uffef"


def _keeps_break(prev: str, line: str, width: int) -> bool:
    """A break stays where the text is not wrapped, before a list item or heading, and after a line that
    ends a sentence (a quotation never needs to cross it; verse and bullet-less lists keep their lines).
    A capitals line after a capitals line that runs on is the same shouted sentence ("... PERMITTED BY" /
    "APPLICABLE LAW.  EXCEPT WHEN ..."), not a heading."""
    if width == 0 or _ITEM_START_RE.match(line):
        return True
    if prev.endswith(_SENTENCE_END):
        return True
    return _heading_level(line, alone=False) is not None and not _shouted(prev)


def _shouted(line: str) -> bool:
    letters = [ch for ch in line if ch.isalpha()]
    return len(letters) >= 4 and all(ch.isupper() for ch in letters)


def _heading_level(line: str, *, alone: bool = True) -> int | None:
    """The heading level of a line that reads as one, else None. Levels: 1 an ALL-CAPS or centred
    title, 第…章/编/部分; 2 a numbered clause ("11. Patents.", "Section 5. …"), 一、; 3 a sub-number
    ("4.2 Fees"), 第…条/节, （一）.

    `alone`: the line is a paragraph of its own, so a short centred title ("Preamble") counts too.
    """
    body = line.strip()
    if not body or len(body) > _MAX_HEADING_CHARS or len(body.split()) > _MAX_HEADING_WORDS:
        return None
    if _HEADING_CJK_RE.match(body):
        if len(body) > 30 or body.endswith(("。", "；", "，", "：")):
            return None
        if re.match(r"^第.+?[章编篇部]", body):
            return 1
        return 2 if re.match(r"^[一二三四五六七八九十]+、", body) else 3
    letters = [ch for ch in body if ch.isalpha()]
    if len(letters) >= 4 and body.isascii() and all(ch.isupper() for ch in letters):
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


def _blocks(paragraphs: list[str], kinds: list[int | None]) -> list[Block]:
    blocks: list[Block] = []
    stack: list[tuple[int, str]] = []
    pos = 0
    body_start: int | None = None
    section: str | None = None
    for para, level in zip(paragraphs, kinds, strict=True):
        if level is not None:
            if body_start is not None:
                blocks.append(Block(body_start, pos - 2, section=section))
                body_start = None
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, para.rstrip(".")))
            section = " > ".join(h for _, h in stack)
        elif body_start is None:
            body_start = pos
        pos += len(para) + 2
    if body_start is not None:
        blocks.append(Block(body_start, pos - 2, section=section))
    return blocks or [Block(0, max(pos - 2, 0))]
