"""PDF: text as pypdf extracts it, reflowed and cut at headings as plain text is; blocks per section and
page (pages numbered 1..n), so a block never spans two pages.

Encrypted files open only when the empty user password works (permission-only encryption);
otherwise, and for anything pypdf cannot read, the user gets a ParseError that says why.
A PDF with no extractable text (a scan) is NoTextLayer (an EmptyDocument, code `no_text_layer`): there is no OCR here.
"""

from __future__ import annotations

import io
import logging
import math
import re
import unicodedata
from collections import Counter

from django.utils.translation import gettext_noop
from pypdf import PageObject, PdfReader
from pypdf.errors import DependencyError, FileNotDecryptedError, PdfReadError, PyPdfError

from rag_app.pipeline.textproc import normalize

from .base import EncryptedDocument, NoTextLayer, ParsedDocument, ParseError
from .text import MIN_WRAP, columns, structure_pages

logging.getLogger("pypdf").setLevel(logging.ERROR)

# A line at least this share of the page's widest line runs to the margin (widths in display columns, a Chinese
# character two; Latin letters and digits in a proportional font take less than the one column counted here).
_FULL_LINE = 0.85
_PROTECTED = gettext_noop("the PDF is password-protected; save an unprotected copy and ingest that")
_CJK_RE = re.compile("[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def parse_pdf(data: bytes) -> ParsedDocument:
    if b"%PDF-" not in data[:1024]:
        raise ParseError(gettext_noop("not a PDF file (no %PDF- header)"))
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            try:
                decrypted = reader.decrypt("")
            except (DependencyError, NotImplementedError) as exc:
                msg = gettext_noop("the PDF is encrypted with a method that cannot be opened here (%(error)s)")
                raise EncryptedDocument(msg, error=str(exc)) from exc
            if not decrypted:
                raise EncryptedDocument(_PROTECTED)
        pages = [_unwrap_cjk(_plain_forms(normalize(page.extract_text() or ""))) for page in reader.pages]
        title = _title(reader)
    except ParseError:
        raise
    except FileNotDecryptedError as exc:
        raise EncryptedDocument(_PROTECTED) from exc
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError) as exc:
        raise ParseError(
            gettext_noop("the PDF is damaged or unreadable (%(error)s)"), error=f"{type(exc).__name__}: {exc}"
        ) from exc
    except RecursionError as exc:
        raise ParseError(gettext_noop("the PDF is damaged or unreadable (structure nested too deeply)")) from exc

    # The pages' hard-wrapped lines reflowed into paragraphs and their headings found, as plain text's are
    # (text.structure): a block per section per page, so a chunk has its page and its section path.
    text, blocks = structure_pages(pages)
    if not text:
        raise NoTextLayer(gettext_noop("the PDF has no extractable text (a scanned PDF needs OCR first)"))
    return ParsedDocument(text=text, blocks=blocks, title=title, mime="application/pdf")


# The presentation forms a PDF's fonts map their glyphs to: Latin ligatures ("ﬁ" U+FB01 for "fi") and Kangxi and
# CJK radicals ("⼯" U+2F2F for 工). They look like the letters, but a reader's search, a copy, and the index see
# other characters; NFKC gives the letters (only these: NFKC would also turn Chinese full-width punctuation ASCII).
_PRESENTATION_FORMS_RE = re.compile("[\ufb00-\ufb06\u2e80-\u2ef3\u2f00-\u2fd5]")


def _plain_forms(text: str) -> str:
    return _PRESENTATION_FORMS_RE.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text)


def _unwrap_cjk(text: str) -> str:
    """Join hard-wrapped lines of CJK text. A PDF wraps Chinese at any character (even inside
    "1952年"), and such a break is layout, not content; it would split words for search. A break
    is joined when the ~10 characters on both sides contain CJK and neither side is whitespace, and
    the line before it is full (the page's text runs to its margin there: a title, a heading or a
    paragraph's last line stops short, and what follows it is not its continuation); Latin text wraps
    at spaces, so its line breaks are kept."""
    lines = text.split("\n")
    widths = [columns(line.rstrip()) for line in lines]
    full = max(MIN_WRAP, int(max(widths) * _FULL_LINE))
    out = [lines[0]]
    for k, line in enumerate(lines[1:], start=1):
        prev = out[-1]
        wrapped = widths[k - 1] >= full
        if wrapped and prev and line and _CJK_RE.search(prev[-10:]) and _CJK_RE.search(line[:10]):
            out[-1] = prev + line
        else:
            out.append(line)
    return "\n".join(out)


def _title(reader: PdfReader) -> str | None:
    """The document's title: its metadata title where that names the document, else the first page's largest text
    where it stands out as a title; else none (the document is shown by its source_id: a title is never invented)."""
    try:
        meta = reader.metadata
        title = meta.title if meta is not None else None
    except Exception:  # metadata is optional; a broken info dict must not fail the whole file
        title = None
    title = " ".join(str(title).split()) if title else ""
    if _names_something(title):
        return title
    try:
        return _largest_text(reader.pages[0]) if len(reader.pages) else None
    except Exception:  # the title is optional; a page pypdf cannot walk for it must not fail the whole file
        return None


# What a producer writes as the title when the author set none: a template's word, the application's name before the
# file's, a file name or a path.
_PLACEHOLDER_TITLE_RE = re.compile(
    r"^(?:untitled(?:[\s_-]*\d+)?|(?:document|presentation|slide|book|sheet)\s*\d*|title|powerpoint presentation"
    r"|无标题\d*|microsoft (?:word|powerpoint|excel) - .*"
    # Chinese Office's: 文档1, 演示文稿1, 工作簿1, "PowerPoint 演示文稿", 新建文档, 新建 Microsoft Word 文档, ...
    r"|(?:文档|演示文稿|工作簿|工作表)\s*\d*|powerpoint\s*演示文稿"
    r"|新建\s*(?:microsoft\s*(?:office\s*)?(?:word|powerpoint|excel)\s*)?(?:文本文档|文档|演示文稿|工作表|工作簿)?"
    r"\s*(?:\(\d+\)|（\d+）|\d*))$",
    re.IGNORECASE,
)
_FILE_NAME_RE = re.compile(
    r"(?:\.(?:docx?|pptx?|xlsx?|pdf|txt|rtf|odt|md|html?|tex|indd|pages|key)$|^(?:[a-z]:)?[\\/]|\\)", re.IGNORECASE
)


def _names_something(title: str) -> bool:
    return (
        any(ch.isalpha() for ch in title) and not _PLACEHOLDER_TITLE_RE.match(title) and not _FILE_NAME_RE.search(title)
    )


# The first page's title is its largest text when that is set at least this many times the size most of the page's
# characters are in, and is a line or a few, not a paragraph.
_TITLE_SIZE_RATIO = 1.25
_MAX_TITLE_CHARS = 200


# A stamp set large across a page ("DRAFT", "CONFIDENTIAL"), never a title when it stands alone.
_STAMPS = frozenset(
    {"draft", "confidential", "internal", "sample", "copy", "草稿", "机密", "内部", "样本", "副本", "绝密"}
)


def _is_stamp(text: str) -> bool:
    return " ".join(_plain_forms(normalize(text)).split()).casefold() in _STAMPS


def _largest_text(page: PageObject) -> str | None:
    """The first run of the page's largest text and the runs right after it at that size (a title wrapped over
    lines), when it stands out from the body; sizes as set on the page (font size by the text and page matrices)."""
    runs: list[tuple[float, str]] = []

    def visit(text: str, cm: list[float], tm: list[float], font: object, size: float) -> None:
        text = text.replace("\x00", "")
        if text.strip() and size:
            c, d = tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3]
            runs.append((round(float(size) * math.hypot(c, d), 1), text))

    page.extract_text(visitor_text=visit)
    runs = [(size, text) for size, text in runs if not _is_stamp(text)]
    chars: Counter[float] = Counter()
    for size, text in runs:
        chars[size] += len(text.strip())
    if not chars:
        return None
    body = chars.most_common(1)[0][0]
    # The title comes before the body: the largest text above the first body text, where one stands out; else the
    # page's largest (a title set after a cover's body-sized lines).
    first_body = next(i for i, (size, _) in enumerate(runs) if size == body)
    before = [size for size, _ in runs[:first_body] if size >= body * _TITLE_SIZE_RATIO]
    top = max(before) if before else max(chars)
    if top < body * _TITLE_SIZE_RATIO:
        return None
    start = next(i for i, (size, _) in enumerate(runs) if size == top)
    title = ""
    for size, text in runs[start:]:
        if size != top:
            break
        text = " ".join(_plain_forms(normalize(text)).split())
        joined = title and text and _CJK_RE.match(title[-1]) and _CJK_RE.match(text[0])
        title = f"{title}{text}" if joined or not title else f"{title} {text}"
    if len(title) > _MAX_TITLE_CHARS or not any(ch.isalpha() for ch in title):
        return None
    return title or None
