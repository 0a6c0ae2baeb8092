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
import unicodedata

from charset_normalizer import from_bytes

from rag_app.pipeline.chunking import Block
from rag_app.pipeline.textproc import clean_wiki_variants, normalize

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
    import zhconv

    return _char_freq().get(zhconv.convert(ch, "zh-hans"), 0) >= 100


def parse_text(data: bytes) -> ParsedDocument:
    raw, encoding = decode(data)
    # Wikipedia passages are often saved as .txt (the demo's 猴面包树.txt is one), markup and all.
    text = normalize(clean_wiki_variants(raw))
    if not text:
        raise EmptyDocument("the file has no text")
    return ParsedDocument(text=text, blocks=[Block(0, len(text))], mime="text/plain", encoding=encoding)
