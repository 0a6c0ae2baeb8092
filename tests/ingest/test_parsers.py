"""rag_app/ingest/parsers: real files in, normalised text + exact blocks out, or a clear ParseError."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rag_app.ingest.parsers import (
    BinaryFile,
    EmptyDocument,
    EncryptedDocument,
    ParsedDocument,
    ParseError,
    UndecodableText,
    UnsupportedFileType,
    parse,
)
from rag_app.pipeline.textproc import normalize

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DEMO = Path(__file__).resolve().parents[2] / "demo"


def _parse(name: str) -> ParsedDocument:
    return parse((FIXTURES / name).read_bytes(), name)


def _assert_well_formed(doc: ParsedDocument) -> None:
    assert doc.text and normalize(doc.text) == doc.text
    for a, b in zip(doc.blocks, doc.blocks[1:], strict=False):
        assert a.end <= b.start
    for block in doc.blocks:
        chunk = doc.text[block.start : block.end]
        assert chunk and chunk == chunk.strip()


@pytest.mark.parametrize(
    ("name", "encoding", "needle"),
    [
        ("zh_utf8.txt", "utf-8", "猴面包树"),
        ("zh_gb18030.txt", "gb18030", "猴面包树"),
        ("zh_big5.txt", "big5hkscs", "西番蓮"),
        ("en_utf16_bom.txt", "utf-16", "Beautiful is better than ugly."),
        ("en_utf16le_nobom.txt", "utf-16-le", "Beautiful is better than ugly."),
    ],
)
def test_text_files_decode_in_their_encoding(name: str, encoding: str, needle: str) -> None:
    """UTF-8, GB18030, Big5 and UTF-16 (with and without BOM) files decode to the same real text."""
    doc = _parse(name)
    assert doc.encoding == encoding
    assert needle in doc.text
    _assert_well_formed(doc)


def test_gb18030_file_reads_exactly_as_the_utf8_original() -> None:
    """Detection picks GB18030, not a Korean or Japanese code page that also 'decodes' the bytes."""
    assert _parse("zh_gb18030.txt").text == _parse("zh_utf8.txt").text


def test_markdown_sections_from_headings_with_exact_offsets() -> None:
    """Blocks are the text under each heading; section paths nest ("A > B"); title = first H1."""
    doc = _parse("apache_excerpt.md")
    _assert_well_formed(doc)
    assert doc.title == "Apache License, Version 2.0"
    assert doc.mime == "text/markdown"
    sections = [b.section for b in doc.blocks]
    assert sections[:3] == [
        "Apache License, Version 2.0",
        "Apache License, Version 2.0 > 1. Definitions",
        "Apache License, Version 2.0 > 2. Grant of Copyright License",
    ]
    grant = doc.blocks[2]
    assert doc.text[grant.start : grant.end].startswith("Subject to the terms and conditions of")
    assert "## " not in "".join(doc.text[b.start : b.end] for b in doc.blocks)  # heading lines excluded


def test_markdown_code_fence_hash_is_not_a_heading() -> None:
    """'# comment' inside a fenced code block stays content of the current section."""
    data = b"# Setup\n\nRun this:\n\n```sh\n# install first\nmake run\n```\n\n## Next\n\nDone.\n"
    doc = parse(data, "setup.md")
    assert [b.section for b in doc.blocks] == ["Setup", "Setup > Next"]
    assert "# install first" in doc.text[doc.blocks[0].start : doc.blocks[0].end]


def test_html_visible_text_only_with_heading_sections() -> None:
    """Scripts, styles, templates, noscript and hidden elements are dropped; <title> is the title."""
    doc = _parse("page.html")
    _assert_well_formed(doc)
    assert doc.title == "MIT OpenCourseWare – 维基百科"
    for hidden in ("not text", "color: red", "template text", "enable JavaScript", "跳转到导航"):
        assert hidden not in doc.text
    assert [b.section for b in doc.blocks] == ["MIT OpenCourseWare", "MIT OpenCourseWare > 目标"]
    assert doc.text[doc.blocks[0].start : doc.blocks[0].end].startswith("MIT OpenCourseWare是由麻省理工学院")
    assert "CC BY-SA 4.0" in doc.text


def test_pdf_one_block_per_page_with_page_numbers() -> None:
    """Each page with text is one block numbered from 1; metadata title is kept."""
    doc = _parse("cc0_3pages.pdf")
    _assert_well_formed(doc)
    assert [b.page for b in doc.blocks] == [1, 2, 3]
    assert doc.title == "CC0 1.0 Universal"
    assert "Statement of Purpose" in doc.text


def test_cjk_pdf_text_is_unwrapped() -> None:
    """Line breaks a PDF inserts inside Chinese text (even inside 1952年) are removed."""
    doc = parse((DEMO / "zh" / "山东女子学院.pdf").read_bytes(), "山东女子学院.pdf")
    assert "创建于1952年的山东省妇女干部学校" in doc.text
    assert "\n" not in doc.text


@pytest.mark.parametrize(
    ("name", "data", "error"),
    [
        ("empty.txt", b"", EmptyDocument),
        ("blank.md", b" \n\n\t ", EmptyDocument),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", BinaryFile),
        ("noise.txt", bytes(range(128, 256)) * 40, UndecodableText),
        ("bad-bom.txt", b"\xef\xbb\xbf" + b"\xff\xfe\xfa" * 10, UndecodableText),
        ("slides.pptx", b"PK\x03\x04", UnsupportedFileType),
        ("README", b"text", UnsupportedFileType),
        ("fake.pdf", b"just text, not a pdf", ParseError),
        ("empty.html", b"<html><script>x()</script></html>", EmptyDocument),
    ],
)
def test_bad_inputs_raise_clear_parse_errors(name: str, data: bytes, error: type[ParseError]) -> None:
    """Empty, binary, undecodable, unsupported and fake files raise a specific ParseError with a message."""
    with pytest.raises(error) as info:
        parse(data, name)
    assert str(info.value)


def test_broken_pdf_is_a_parse_error() -> None:
    """A truncated PDF raises ParseError saying it is damaged, not a pypdf traceback."""
    with pytest.raises(ParseError, match="damaged or unreadable"):
        _parse("broken.pdf")


def test_password_protected_pdf_is_an_encrypted_error() -> None:
    """A PDF that needs a password raises EncryptedDocument."""
    with pytest.raises(EncryptedDocument, match="password"):
        _parse("encrypted.pdf")


def test_html_declared_legacy_charset_is_honoured() -> None:
    """<meta charset="gbk"> on a GBK page decodes it (via GB18030, its superset)."""
    page = '<html><head><meta charset="gbk"><title>猴面包树</title></head><body><p>猴面包树是一种树。</p></body></html>'
    doc = parse(page.encode("gbk"), "baobab.htm")
    assert (doc.encoding, doc.title, doc.text) == ("gb18030", "猴面包树", "猴面包树是一种树。")


_md_pieces = st.sampled_from(
    ["# ", "## ", "### ", "Refunds", "退款期限", "\n", "\n\n", "```", "    code", "- item", "> quote", "Title\n---",
     "**bold**", "[link](https://example.org)", "30 days.", "三十天。", " "]
)  # fmt: skip
_html_pieces = st.sampled_from(
    ["<h1>", "</h1>", "<h2>", "</h2>", "<p>", "</p>", "<br>", "<div hidden>", "</div>", "<script>", "</script>",
     "<style>", "</style>", "<pre>", "</pre>", "<title>", "</title>", "<li>", "&amp;", "&lt;", "Refunds",
     "退款期限", "30 days.", "三十天。", " ", "\n", "<b>", "</b>", "<!-- c -->", "<", ">"]
)  # fmt: skip


@given(st.lists(_md_pieces, max_size=80).map("".join))
@settings(max_examples=200, deadline=None)
def test_markdown_blocks_always_index_the_text(source: str) -> None:
    """For any Markdown, the text is normalised and every block is a trimmed, ordered slice of it."""
    try:
        doc = parse(source.encode(), "x.md")
    except EmptyDocument:
        assert not source.strip()
        return
    _assert_well_formed(doc)


@given(st.lists(_html_pieces, max_size=80).map("".join))
@settings(max_examples=200, deadline=None)
def test_html_blocks_always_index_the_text(source: str) -> None:
    """For any tag soup, the parser returns well-formed text and blocks or EmptyDocument, never a crash."""
    try:
        doc = parse(source.encode(), "x.html")
    except EmptyDocument:
        return
    _assert_well_formed(doc)
    assert "<script>" not in doc.text
