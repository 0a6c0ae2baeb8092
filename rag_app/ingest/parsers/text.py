"""Plain text: encoding detection, normalisation, one block for the whole text."""

from __future__ import annotations

import codecs

from charset_normalizer import from_bytes

from rag_app.pipeline.chunking import Block
from rag_app.pipeline.textproc import normalize

from .base import EmptyDocument, ParsedDocument, UndecodableText

_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def looks_binary(data: bytes) -> bool:
    head = data[:8192]
    if any(head.startswith(bom) for bom, _ in _BOMS):
        return False
    return b"\x00" in head


def decode(data: bytes) -> tuple[str, str]:
    """Bytes -> (text, encoding). UTF-8 (with or without BOM) first, then a detected encoding."""
    for bom, enc in _BOMS:
        if data.startswith(bom):
            try:
                return data.decode(enc), enc
            except UnicodeDecodeError as exc:
                raise UndecodableText(f"file starts with a {enc} byte-order mark but is not valid {enc}") from exc
    if looks_binary(data):
        raise UndecodableText("file looks binary (NUL bytes), not text")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    best = from_bytes(data[:1_000_000]).best()
    if best is None or best.encoding is None:
        raise UndecodableText("could not detect the text encoding; save the file as UTF-8")
    try:
        text = data.decode(best.encoding)
    except (UnicodeDecodeError, LookupError) as exc:
        raise UndecodableText(f"file is not valid {best.encoding}; save it as UTF-8") from exc
    # A detector that picks a legacy code page for noise produces mostly control/replacement chars.
    bad = sum(1 for ch in text[:5000] if ch == "\ufffd" or (ord(ch) < 32 and ch not in "\n\r\t\f"))
    if bad > max(5, len(text[:5000]) // 50):
        raise UndecodableText("text does not decode cleanly in any known encoding; save it as UTF-8")
    return text, best.encoding


def parse_text(data: bytes) -> ParsedDocument:
    raw, encoding = decode(data)
    text = normalize(raw)
    if not text:
        raise EmptyDocument("the file has no text")
    return ParsedDocument(text=text, blocks=[Block(0, len(text))], mime="text/plain", encoding=encoding)
