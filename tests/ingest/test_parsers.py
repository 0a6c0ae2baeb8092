"""rag_app/ingest/parsers: real files in, normalised text + exact blocks out, or a clear ParseError."""

from __future__ import annotations

import io
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
from rag_app.pipeline.textproc import clean_wiki_variants, normalize

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
    """Scripts, styles, templates, noscript and hidden elements are dropped; <title> is the title, without the
    site's name when it is the page's first heading and the site's ("MIT OpenCourseWare – 维基百科")."""
    doc = _parse("page.html")
    _assert_well_formed(doc)
    assert doc.title == "MIT OpenCourseWare"
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


def test_hard_wrapped_pdf_lines_are_reflowed_into_sentences() -> None:
    """An English PDF's layout line breaks are not content: a sentence reads as one, so a quote is
    never cut at a line break (the demo CC0 PDF wraps at about 90 characters)."""
    doc = parse((DEMO / "licenses" / "cc0-1.0.pdf").read_bytes(), "cc0-1.0.pdf")
    assert "The laws of most jurisdictions throughout the world automatically confer exclusive Copyright" in doc.text


def test_markdown_soft_line_breaks_read_as_spaces_offsets_unchanged() -> None:
    """A Markdown paragraph's hard-wrapped lines are one paragraph (a soft break is a space), one
    character for one, so blocks still index the text; code blocks keep their lines."""
    data = b"# T\n\nEach Contributor hereby grants to You a\nperpetual license.\n\n```\ncode\nblock\n```\n"
    doc = parse(data, "a.md")
    _assert_well_formed(doc)
    assert "grants to You a perpetual license." in doc.text
    assert "code\nblock" in doc.text
    assert len(doc.text) == len(data.decode().strip())


def test_markdown_pipe_table_is_read_as_records_like_other_tables() -> None:
    """A GFM pipe table is its rows as "header: value" records (office.table_text, as a Word table reads), each row
    apart from the next; the headings around it still give the blocks and their sections."""
    data = (
        b"# Plans\n\nWhat each plan costs:\n| Plan | Price | Seats |\n|------|------:|-------|\n| Basic | 10 | 1 |\n"
        b"| Team | 50 | |\n## Notes\n\nPrices are monthly.\n"
    )
    doc = parse(data, "plans.md")
    _assert_well_formed(doc)
    assert doc.text == (
        "# Plans\n\nWhat each plan costs:\n\nPlan: Basic\nPrice: 10\nSeats: 1\n\nPlan: Team\nPrice: 50\n\n"
        "## Notes\n\nPrices are monthly."
    )
    assert [(b.section, doc.text[b.start : b.end]) for b in doc.blocks] == [
        ("Plans", "What each plan costs:\n\nPlan: Basic\nPrice: 10\nSeats: 1\n\nPlan: Team\nPrice: 50"),
        ("Plans > Notes", "Prices are monthly."),
    ]


def test_markdown_table_of_a_header_row_or_inside_a_quote_keeps_its_lines() -> None:
    """A table of its header row alone is that row; a table inside a quote keeps its lines as written, each row a
    line of its own (never joined into one)."""
    assert parse(b"| Plan | Price |\n|---|---|\n", "t.md").text == "Plan | Price"
    quoted = "> | Plan | Price |\n> |---|---|\n> | Basic | 10 |"
    assert parse(quoted.encode(), "q.md").text == quoted


def test_markdown_quote_markers_of_joined_lines_become_spaces() -> None:
    """A quoted paragraph's continued lines are joined as any paragraph's are, each joint one space, their ">"
    markers left out (nested quotes too; a lazy line has none), so no marker sits inside a sentence."""
    data = "# M\n\n> The budget for the next year\n> will be frozen until\nthe audit.\n>\n> > One\n> > two.\n"
    doc = parse(data.encode(), "m.md")
    _assert_well_formed(doc)
    assert "> The budget for the next year will be frozen until the audit." in doc.text
    assert "> > One two." in doc.text


def test_markdown_inline_markup_reads_as_its_text() -> None:
    """Emphasis, code spans, links (their address and title), autolinks, images (their alt text), inline HTML tags,
    backslash escapes and entities read as Markdown shows them, in lists and quotes too; a list item's number stays
    (staff ask for "step 2"); a continued list line joins with one space, not its indent."""
    data = (
        "# Leave\n\n"
        '**Note:** file the [leave form](https://intranet/forms/leave "Form") in `HR-Portal` _first_.\n\n'
        "1. Ask your manager <b>by email</b>\n"
        "   at least **5 working days** ahead.\n"
        "2. Costs \\*exclude\\* travel &amp; meals; see <https://intranet/x> ![chart](c.png).\n\n"
        "> Approved leave is **final**.\n"
    )
    doc = parse(data.encode(), "leave.md")
    _assert_well_formed(doc)
    assert "Note: file the leave form in HR-Portal first." in doc.text
    assert "1. Ask your manager by email at least 5 working days ahead." in doc.text
    assert "2. Costs *exclude* travel & meals; see https://intranet/x chart." in doc.text
    assert "> Approved leave is final." in doc.text
    for markup in ("**", "](", "`", "<b>", "&amp;", "\\*", "intranet/forms"):
        assert markup not in doc.text
    assert [b.section for b in doc.blocks] == ["Leave"]


def test_markdown_markup_that_is_text_stays() -> None:
    """What only looks like markup is text Markdown shows as written: a lone asterisk, snake_case, a bracket that
    opens no link, an arithmetic star; a code block keeps its characters (it is no paragraph)."""
    data = "Rate 5 * 3 for max_days [draft] and a_b_c.\n\n```\nx = **kwargs\n```\n"
    doc = parse(data.encode(), "t.md")
    assert "Rate 5 * 3 for max_days [draft] and a_b_c." in doc.text
    assert "x = **kwargs" in doc.text


def test_markdown_blocks_keep_their_sections_after_the_markup_goes() -> None:
    """Offsets after the markup that was left out still find each section's text (headings after edited
    paragraphs and after a table)."""
    data = (
        "# Policy\n\n**Bold** intro with [a link](https://x.example/very/long/address).\n\n"
        "## Rates\n\n| Item | Cap |\n|---|---|\n| **Hotel** | 150 |\n\n"
        "## Claims\n\nFile *within* 30 days.\n"
    )
    doc = parse(data.encode(), "p.md")
    _assert_well_formed(doc)
    chunks = [(b.section, doc.text[b.start : b.end]) for b in doc.blocks]
    assert chunks == [
        ("Policy", "Bold intro with a link."),
        ("Policy > Rates", "Item: Hotel\nCap: 150"),
        ("Policy > Claims", "File within 30 days."),
    ]


@pytest.mark.parametrize(
    ("name", "data", "error"),
    [
        ("empty.txt", b"", EmptyDocument),
        ("blank.md", b" \n\n\t ", EmptyDocument),
        ("image.txt", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", BinaryFile),
        ("noise.txt", bytes(range(128, 256)) * 40, UndecodableText),
        ("bad-bom.txt", b"\xef\xbb\xbf" + b"\xff\xfe\xfa" * 10, UndecodableText),
        ("slides.odp", b"PK\x03\x04", UnsupportedFileType),
        ("slides.pptx", b"PK\x03\x04", ParseError),  # a zip header and nothing after it
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
     "**bold**", "[link](https://example.org)", "30 days.", "三十天。", " ", "-{zh-hans:", ";zh-hant:", "}-", "-{H|",
     "| a | b |\n|---|---|\n", "| 1 | 2 |", "|", "> ", "6. "]
)  # fmt: skip
_html_pieces = st.sampled_from(
    ["<h1>", "</h1>", "<h2>", "</h2>", "<p>", "</p>", "<br>", "<div hidden>", "</div>", "<script>", "</script>",
     "<style>", "</style>", "<pre>", "</pre>", "<title>", "</title>", "<li>", "&amp;", "&lt;", "Refunds",
     "退款期限", "30 days.", "三十天。", " ", "\n", "<b>", "</b>", "<!-- c -->", "<", ">", "-{zh-hans:", "}-", "-{"]
)  # fmt: skip


@given(st.lists(_md_pieces, max_size=80).map("".join))
@settings(max_examples=200, deadline=None)
def test_markdown_blocks_always_index_the_text(source: str) -> None:
    """For any Markdown, the text is normalised and every block is a trimmed, ordered slice of it; a file is refused as
    empty only when Markdown shows nothing of it ("-{H|…}-" alone, an empty code span "``` ```")."""
    try:
        doc = parse(source.encode(), "x.md")
    except EmptyDocument:
        import re

        from markdown_it import MarkdownIt

        shown = re.sub(r"<[^>]*>", "", MarkdownIt("commonmark").enable("table").render(clean_wiki_variants(source)))
        assert not shown.strip(), shown
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


# MediaWiki LanguageConverter markup ("-{…}-") in Wikipedia-derived text is resolved at ingest.


@pytest.mark.parametrize(
    ("source", "cleaned"),
    [
        ("又名-{zh-hant:猴面包树;zh-hans:猢狲树;zh-tw:猴面包树}-、非洲", "又名猢狲树、非洲"),
        ("-{zh-hans:计算机; zh-hant:電腦;}-", "计算机"),
        ("英國-{zh:利兹;zh-hans:利兹;zh-hk:列斯;zh-tw:里茲}-大学", "英國利兹大学"),  # the rest is never converted
        ("-{zh:電腦;zh-tw:電腦}-", "電腦"),  # no simplified wording: zh
        ("-{zh-cn:计算机;zh-tw:電腦}-", "计算机"),
        ("-{zh-hk:罗伯列斯;zh-tw:罗伯斯;}-在预赛", "罗伯列斯在预赛"),  # none preferred: the first
        ("-{A|zh-cn:博客; zh-hk:網誌; zh-tw:部落格;}-", "博客"),
        ("-{H|zh-cn:博客; zh-hk:網誌; zh-tw:部落格;}-下文", "下文"),  # a rule only: no output
        ("-{H|巨集=>zh-cn:宏;}-下文", "下文"),
        ("-{-|zh-cn:博客}-下文", "下文"),
        ("-{T|zh-cn:标题;zh-tw:標題}-下文", "下文"),
        ("-{巨集=>zh-cn:宏; 巨集=>zh-tw:巨集;}-", "宏"),
        ("-{巨集=>zh-tw:巨集;}-", "巨集"),  # one-way, not for zh-hans: the source wording
        ("-{R|原文}-", "原文"),
        ("测试：-{zh;zh-hans;zh-hant|博客、網誌、部落格}-", "测试：博客、網誌、部落格"),
        ("-{干诺道西、干诺道中}-、民吉街", "干诺道西、干诺道中、民吉街"),
        ("北-{}-韓", "北韓"),
        ("会议-{10:30}-开始", "会议10:30开始"),  # a colon is not a variant
        ("-{a|b}-", "a|b"),  # flags are upper case
        ("-{zh-hant:;\nzh-cn:}-下文", "下文"),
        # nested blocks: separators inside the inner block do not split the outer one
        (
            "毫米，-{zh-hans:台湾作-{公釐}-或-{公厘}-;zh-hant:港澳稱為-{毫米}-（台灣亦有使用）;zh-mo:台灣作-{公釐}-;}-。",
            "毫米，台湾作公釐或公厘。",
        ),
        (
            "鲁迅笔迹-{zh-hans:，“-{參}-”是“-{参}-”的繁体字；;zh-hant:，;}-“-{攷}-”",
            "鲁迅笔迹，“參”是“参”的繁体字；“攷”",
        ),
        ("-{zh-hans:外-{zh-hans:内;zh-hant:內}-层;zh-hant:外層}-", "外内层"),
        # malformed markup never swallows the text after it
        ("前文 -{ 未闭合; 后文: 很多内容 | 还有", "前文 -{ 未闭合; 后文: 很多内容 | 还有"),
        ("前 -{ 未闭合 -{zh-hans:内;zh-hant:內}- 后", "前 -{ 未闭合 内 后"),
        ("前 }- 中 -{x}- 后 }-", "前 }- 中 x 后 }-"),
        ("a-{zh-hans:b", "a-{zh-hans:b"),
        ("No markup at all: a-{b or c}d.", "No markup at all: a-{b or c}d."),
    ],
)
def test_wiki_variant_markup_resolves_to_the_simplified_wording(source: str, cleaned: str) -> None:
    """zh-hans (else zh-cn, zh) wording, rule-only forms dropped, raw text kept, malformed markup left."""
    assert clean_wiki_variants(source) == cleaned


def test_deeply_nested_wiki_markup_does_not_recurse_without_bound() -> None:
    """A thousand nested blocks: no RecursionError, and the text inside survives."""
    cleaned = clean_wiki_variants("-{" * 1000 + "核心" + "}-" * 1000)
    assert "核心" in cleaned and len(cleaned) < 2 * 1000 * 4


_wiki_pieces = st.sampled_from(
    ["-{", "}-", "|", ";", ":", "=>", "zh-hans:", "zh-hant:", "zh:", "H|", "A|", "R|", "计算机", "電腦", "text",
     " ", "\n", "\n\n", "-", "{", "}"]
)  # fmt: skip


@given(st.lists(_wiki_pieces, max_size=60).map("".join))
@settings(max_examples=300, deadline=None)
def test_wiki_cleaning_only_removes_text(source: str) -> None:
    """For any mix of markup pieces: no crash, never longer, unchanged when there is no "-{"; an
    unclosed "-{" at the end leaves what follows it as it was."""
    cleaned = clean_wiki_variants(source)
    assert len(cleaned) <= len(source)
    if "-{" not in source:
        assert cleaned == source
    tail = "-{ zh-hans:尾巴;|后文"
    if "}-" not in source + "-":  # nothing before the tail can close it
        assert clean_wiki_variants(source + tail).endswith(tail)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        (
            "wiki.txt",
            "又名-{zh-hant:電腦;zh-hans:计算机;}-。\n\n-{H|巨集=>zh-cn:宏;}-第二段-{zh-hans:简;zh-hant:繁}-。",
        ),
        (
            "wiki.md",
            "# 标题-{zh-hans:计算机;zh-hant:電腦}-\n\n又名-{zh-hant:電腦;zh-hans:计算机;}-。\n\n"
            "## 第二节\n\n-{R|原文}-。",
        ),
        (
            "wiki.html",
            "<title>页面-{zh-hans:计算机;zh-hant:電腦}-</title><h1>标题</h1>"
            "<p>又名-{zh-hant:<b>電腦</b>;zh-hans:<i>计算机</i>;}-。</p><p>-{前</p><p>后}-</p>",
        ),
    ],
)
def test_parsers_clean_wiki_markup_before_measuring(name: str, data: str) -> None:
    """Plain text, Markdown and HTML: no "-{zh-…}-" left in the text, blocks, title or sections."""
    doc = parse(data.encode(), name)
    _assert_well_formed(doc)
    assert "zh-hans" not in doc.text and "zh-hant" not in doc.text and "電腦" not in doc.text
    assert "又名计算机。" in doc.text
    if name.endswith(".md"):
        assert doc.title == "标题计算机" and [b.section for b in doc.blocks] == ["标题计算机", "标题计算机 > 第二节"]
        assert "原文。" in doc.text
    if name.endswith(".html"):
        assert doc.title == "页面计算机"
        assert "-{前" in doc.text and "后}-" in doc.text  # split by </p><p>: left as text


def test_wikipedia_fixture_text_has_no_variant_markup() -> None:
    """The baobab passage (Chinese Wikipedia, saved as .txt) reads as a zh-hans reader sees it."""
    for name in ("zh_utf8.txt", "zh_gb18030.txt"):
        doc = _parse(name)
        assert "又名猢狲树、非洲猴面包树" in doc.text and "-{" not in doc.text


@pytest.mark.django_db
@pytest.mark.parametrize("file_name", ["wiki.txt", "wiki.md", "wiki.html"])
def test_chunk_offsets_index_the_cleaned_version_text(levels: object, file_name: str) -> None:
    """Through the real ingest service: every chunk is exactly version.text[start:end], and no markup is stored."""
    from tests import factories

    sentence = (
        "猴面包树又名-{zh-hant:猴麵包樹;zh-hans:猢狲树;zh-tw:猴麵包樹}-，是-{H|巨集=>zh-cn:宏;}-一种大型落叶乔木。"
    )
    paragraphs = [sentence * 6 + f"第{i}段。" for i in range(12)]
    if file_name.endswith(".html"):
        source = "<h1>猴面包树</h1>" + "".join(f"<p>{p}</p>" for p in paragraphs)
    elif file_name.endswith(".md"):
        source = "# 猴面包树\n\n" + "\n\n".join(paragraphs)
    else:
        source = "\n\n".join(paragraphs)
    result = factories.ingest_text(source, source_id=f"wiki/{file_name}", file_name=file_name)
    version = factories.current_version(f"wiki/{file_name}")
    chunks = factories.chunks_of(f"wiki/{file_name}")
    assert result.version == 1 and len(chunks) > 1
    assert "-{" not in version.text and "}-" not in version.text and "猴麵包樹" not in version.text
    assert version.text.count("又名猢狲树，是一种大型落叶乔木。") == 72
    for chunk in chunks:
        assert version.text[chunk.start : chunk.end] == chunk.text
        assert "-{" not in chunk.text


def test_pdf_headings_give_sections_that_run_on_over_a_page_break() -> None:
    """A PDF heading names its section (pypdf gives no blank line after it), and the section goes on over a
    page break while each block keeps its own page."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.cell(0, 10, "LEAVE POLICY", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(0, 6, "Employees accrue twenty days of paid annual leave per calendar year.")
    pdf.add_page()
    pdf.multi_cell(0, 6, "Unused leave of up to five days may be carried over into the next year.")
    out = io.BytesIO()
    pdf.output(out)
    doc = parse(out.getvalue(), "handbook.pdf")
    _assert_well_formed(doc)
    assert [(b.section, b.page) for b in doc.blocks] == [("LEAVE POLICY", 1), ("LEAVE POLICY", 2)]
    assert doc.text[doc.blocks[1].start : doc.blocks[1].end].startswith("Unused leave of up to five days")


# HTML's implied end tags (rag_app/ingest/parsers/html_tree.py): a hidden element whose end tag the page leaves out
# ends where the HTML standard ends it, and hides nothing after that.


def _html_text(body: str) -> str:
    return parse(f"<!DOCTYPE html><html><body>{body}</body></html>".encode(), "page.html").text


@pytest.mark.parametrize(
    ("body", "shown", "hidden"),
    [
        ("<p hidden>Draft<section>Policy</section>Tail", ["Policy", "Tail"], ["Draft"]),  # a block closes <p>
        ("<p hidden>Draft<table><tr><td>Cell</table>Tail", ["Cell", "Tail"], ["Draft"]),  # so does <table>
        ("Head<p hidden>Draft<span>Inline</span>Still", ["Head"], ["Draft", "Inline", "Still"]),  # an inline: not
        ("<p hidden>Draft<img src=x>Still</p>Tail", ["Tail"], ["Draft", "Still"]),
        ("<ul><li hidden>Draft</ul>Tail", ["Tail"], ["Draft"]),  # the list's end tag closes its item
        ("<ul><li hidden>Draft<ul><li>Nested</ul>Still<li>Next</ul>", ["Next"], ["Draft", "Nested", "Still"]),
        ("<ul><li hidden>Draft<div><li>Item</div></ul>", ["Item"], ["Draft"]),  # a div does not stop the search
        ("<dl><dt hidden>Draft<dd>Meaning<dt>Term</dl>", ["Meaning", "Term"], ["Draft"]),
        ("<table><tr><th hidden>Draft<th>Head<tr><td>Cell</table>", ["Head", "Cell"], ["Draft"]),
        ("<table><tr hidden><td>Draft<tr><td>Row</table>Tail", ["Row", "Tail"], ["Draft"]),
        ("<table><caption hidden>Draft<tr><td>Cell</table>", ["Cell"], ["Draft"]),
        ("<table><tr><td><table><tr><td hidden>Draft<td>Inner</table>Outer</table>", ["Inner", "Outer"], ["Draft"]),
        ("<td hidden>Stray cell</td>Tail", ["Stray cell", "Tail"], []),  # a cell outside a table is no element
        ("<table hidden><tr><td>Draft</td></tr>Stray</table>Tail", ["Stray", "Tail"], ["Draft"]),  # fostered out
        ("<div><p hidden>Draft</div>Tail", ["Tail"], ["Draft"]),  # an ancestor's end tag
        ("<span><div hidden>Draft</span>Still</div>Tail", ["Tail"], ["Draft", "Still"]),  # </span> stops at a div
        ("<h2 hidden>Draft<h3>Heading</h3>Tail", ["Heading", "Tail"], ["Draft"]),
        ("<a hidden href=x>Draft<a href=y>Link</a>", ["Link"], ["Draft"]),
        ("<datalist><option hidden>Draft<option>Choice</datalist>", ["Choice"], ["Draft"]),
        ("<ruby>漢<rp hidden>(<rt>kan</ruby>", ["漢", "kan"], ["("]),
        ("<div hidden/>Draft</div>Tail", ["Tail"], ["Draft"]),  # "/>" does not close a div
        ("<template><div>Draft</template>Tail", ["Tail"], ["Draft"]),
        ("<noscript><div>Enable JavaScript</noscript>Tail", ["Tail"], ["Enable JavaScript"]),
        ("<svg><g>Drawing<p>Paragraph</p>", ["Paragraph"], ["Drawing"]),  # an HTML tag ends an open <svg>
        ("<select><option>Choice<div>Draft</div></select>Tail", ["Tail"], ["Choice", "Draft"]),
    ],
)
def test_a_hidden_element_ends_where_the_html_standard_ends_it(body: str, shown: list[str], hidden: list[str]) -> None:
    text = _html_text(body)
    for part in shown:
        assert part in text, (body, text)
    for part in hidden:
        assert part not in text, (body, text)


@pytest.mark.parametrize(
    ("body", "text"),
    [
        (
            "<p>Refunds take 30 days.<div hidden>Draft</div>Gift cards are final.",
            "Refunds take 30 days.\n\nGift cards are final.",
        ),
        (
            "<p>Refunds take 30 days.<i hidden>Draft</p>Gift cards are final.",
            "Refunds take 30 days.\n\nGift cards are final.",
        ),
        ("<p>Refunds take <span hidden>45</span>30 days.", "Refunds take 30 days."),
    ],
)
def test_text_after_a_hidden_block_is_not_run_into_the_text_before_it(body: str, text: str) -> None:
    assert _html_text(body) == text


def test_a_heading_ended_with_a_hidden_element_in_it_ends_its_section() -> None:
    doc = parse(b"<h2>Refunds<span hidden>draft</span></h2><p>Within 30 days.", "page.html")
    assert [(doc.text[b.start : b.end], b.section) for b in doc.blocks] == [("Within 30 days.", "Refunds")]
    doc = parse(b"<h2>Refunds<span hidden>draft</h2><p>Within 30 days.", "page.html")
    assert [(doc.text[b.start : b.end], b.section) for b in doc.blocks] == [("Within 30 days.", "Refunds")]


def test_deeply_nested_html_parses_in_linear_time() -> None:
    """Every check of the open elements is O(1). Here each <li> would otherwise walk down 50,000 open <span>s to the
    inner list, for each of 50,000 items: hours, where this takes seconds."""
    import time

    started = time.monotonic()
    page = b"<ul><li>Deep text.<ul>" + b"<span>" * 50_000 + b"<li>x</li>" * 50_000 + b"<div>" * 100_000 + b"After"
    text = parse(page, "deep.html").text
    assert text.split("\n\n") == ["Deep text.", *["x"] * 50_000, "After"]
    assert time.monotonic() - started < 60


def test_html_ordered_list_items_keep_their_numbers() -> None:
    """A wiki's numbered steps lost their numbers ("Ask your manager", not "1. Ask your manager"): "step 2" was
    written nowhere. An <ol>'s items are numbered as a browser numbers them: `start`, `reversed`, an item's `value`,
    `type` a/A/i/I, nested lists counted on their own; a bullet list and an item showing nothing add no number; an
    item whose text sits in a paragraph numbers that paragraph."""
    page = (
        b"<html><body><h1>Onboarding</h1><ol><li><p>Ask your <b>manager</b> for access.</p><p>Then wait.</p></li>"
        b"<li></li><li>Fill in the form<ol type=a><li>name<li>team</ol></li><li value=7>Seven<li>Eight</ol>"
        b"<ul><li>A bullet</li></ul><ol start=3 reversed><li>Three<li>Two</ol><ol type=I start=4><li>Four</ol>"
        b"<p>After the lists.</p></body></html>"
    )
    doc = parse(page, "o.html")
    _assert_well_formed(doc)
    paragraphs = doc.text.split("\n\n")
    assert paragraphs == [
        "Onboarding",
        "1. Ask your manager for access.",
        "Then wait.",
        "3. Fill in the form",
        "a. name",
        "b. team",
        "7. Seven",
        "8. Eight",
        "A bullet",
        "3. Three",
        "2. Two",
        "IV. Four",
        "After the lists.",
    ]


WIKI_EXPORT = """<html><head><title>IT Handbook - Acme Wiki</title></head><body>
<header class="site"><a href="/">Acme Wiki</a><form role="search"><input name="q"> Search</form></header>
<div class="breadcrumbs">Home &gt; IT &gt; IT Handbook</div>
<div id="cookie-banner" role="dialog">We use cookies to improve your experience. Accept all cookies</div>
<aside>Recently updated pages: IT Blog, Page tree</aside>
<main><article><header><h1>IT Handbook</h1><p>Created by Jane Doe</p></header>
<h2>Passwords</h2><p>Passwords must be at least 14 characters long.</p>
<aside>Note: contractors use a hardware key.</aside><footer>Last reviewed 2026-03-01</footer></article></main>
<div role="contentinfo">Powered by Confluence</div>
<footer>&copy; 2026 Acme &middot; Privacy &middot; Terms</footer></body></html>"""


def test_a_wiki_pages_frame_is_not_its_text() -> None:
    """A wiki export's cookie notice was chunk 0 and answered "What is the cookie policy?" as official; its sidebar
    was a chunk of its own, its footer "© 2026 Acme · Privacy · Terms" ran into the last section. A page with a
    <main> is what <main> holds (an article's own header, aside and footer stay); the title loses the site's name."""
    doc = parse(WIKI_EXPORT.encode(), "it.html")
    _assert_well_formed(doc)
    assert doc.title == "IT Handbook"
    assert doc.text.split("\n\n") == [
        "IT Handbook",
        "Created by Jane Doe",
        "Passwords",
        "Passwords must be at least 14 characters long.",
        "Note: contractors use a hardware key.",
        "Last reviewed 2026-03-01",
    ]


@pytest.mark.parametrize(
    ("body", "gone"),
    [
        ("<p>Kept text.</p><footer>© 2026 Acme · Privacy · Terms</footer>", "Privacy"),
        ('<div role="banner">Acme Wiki</div><p>Kept text.</p>', "Acme"),
        ('<div role="contentinfo">Powered by Confluence</div><p>Kept text.</p>', "Confluence"),
        ('<div role="navigation">Home | Recent changes</div><p>Kept text.</p>', "Recent"),
        ("<dialog>We use cookies. Accept all</dialog><p>Kept text.</p>", "cookies"),
        ('<div style="display: none">We use cookies.</div><p>Kept text.</p>', "cookies"),
        ('<p style="color:red; visibility:hidden !important">Secret draft.</p><p>Kept text.</p>', "draft"),
    ],
)
def test_a_pages_frame_without_main_is_left_out(body: str, gone: str) -> None:
    """Without a <main>: the page's own footer (outside any article or section), the landmarks marked as the banner,
    content-info or navigation, a dialog that is not open, an element styled not to show."""
    doc = parse(f"<html><body>{body}</body></html>".encode(), "p.html")
    assert doc.text == "Kept text.", doc.text
    assert gone not in doc.text


@pytest.mark.parametrize(
    "body",
    [
        "<section><header><h2>Scope</h2></header><p>Kept text.</p><footer>Owner: HR</footer></section>",
        "<article><aside>Note: interns excluded.</aside><p>Kept text.</p></article>",
        "<dialog open>Shown notice.</dialog><p>Kept text.</p>",
        # Pandoc's title block, a callout beside the text, a header inside a plain div (a review of this session)
        '<header id="title-block-header"><h1 class="title">Leave Policy</h1><p class="author">HR</p></header>'
        "<p>Kept text.</p>",
        "<h1>VPN</h1><p>Kept text.</p><aside><p>Note: VPN is required off-site.</p></aside>",
        '<div class="content"><header><h1>Doc title</h1><p>Intro</p></header><p>Kept text.</p></div>',
        '<p style="display:block">Shown styled.</p><p>Kept text.</p>',
    ],
)
def test_a_sections_own_header_footer_and_aside_stay(body: str) -> None:
    doc = parse(f"<html><body>{body}</body></html>".encode(), "p.html")
    assert doc.text != "Kept text." and "Kept text." in doc.text


def test_a_page_that_is_only_its_frame_is_read_with_it() -> None:
    """A notice whose whole text sits in the page's footer is read, not refused; a page with no text at all, or only
    its navigation, is refused plainly."""
    doc = parse(b"<html><body><footer><p>Contact: helpdesk@acme.example, ext 1234</p></footer></body></html>", "f.html")
    assert doc.text == "Contact: helpdesk@acme.example, ext 1234"
    with pytest.raises(EmptyDocument, match="no text of its own"):
        parse(b"<html><body><nav>Home | Search</nav></body></html>", "nav.html")


def test_the_pages_heading_over_its_main_stays_and_a_reversed_list_is_not_numbered_wrong() -> None:
    """ "<h1>Expenses</h1><main>…" lost its heading (the section path's root, and the title over "Expenses - Acme");
    "<ol reversed>" without a start numbered its items 1, 0, -1 (its count is not known until it ends: no numbers)."""
    doc = parse(b"<title>Expenses - Acme</title><h1>Expenses</h1><main><p>Submit receipts.</p></main>", "e.html")
    assert doc.title == "Expenses" and [b.section for b in doc.blocks] == ["Expenses"]
    doc = parse(b"<ol reversed><li>a<li>b<li>c</ol><ol reversed start=3><li>x<li>y</ol>", "r.html")
    assert doc.text.split("\n\n") == ["a", "b", "c", "3. x", "2. y"]


def test_deeply_nested_lists_and_marked_up_paragraphs_parse_in_linear_time() -> None:
    """Unclosed lists nested 20,000 deep took 99 s (the list depth was counted again for every open list), and one
    Markdown paragraph of 2 MB of emphasis 451 s (each edit counted the lines before it): both grew with the square
    of their size. Timed against a tenth of the input, not against a wall clock: a tenfold input takes well under a
    hundredfold time."""
    import time

    def cost(make: object, n: int, name: str) -> float:
        data = make(n)  # type: ignore[operator]
        start = time.perf_counter()
        parse(data, name)
        return time.perf_counter() - start

    for make, name, n in (
        (lambda n: b"<ol><li>x" * n, "x.html", 1500),
        (lambda n: b"*a* b `c` " * n, "x.md", 3000),
    ):
        # Each the least of three runs: one run of the large input on a busy machine (CI beside an evaluation) took 46
        # times a small one's least; the square's growth is a hundredfold.
        small, large = (min(cost(make, size, name) for _ in range(3)) for size in (n, 10 * n))
        assert large < 40 * max(small, 1e-3), (name, small, large)


def test_a_policys_numbered_title_over_its_sub_clauses_is_a_heading() -> None:
    """A policy typed as "4. Passwords" over "4.1 Passwords must be…" / "4.2 …" read as one paragraph run together
    ("4. Passwords 4.1 Passwords must be at least 14 characters long. 4.2 …") under the document's title: every
    citation was located at "ACME INFORMATION SECURITY POLICY". The title is a section, each sub-clause a line of
    its own; a wrapped line that starts with a decimal number in a sentence still joins its sentence."""
    data = (
        "ACME INFORMATION SECURITY POLICY\nVersion 2.0, effective 1 March 2026\n\n"
        "1. Purpose\n1.1 This policy protects Acme information.\n1.2 It applies to all employees.\n\n"
        "4. Passwords\n4.1 Passwords must be at least 14 characters long.\n4.2 Passwords must be changed every 180\n"
        "days, or when a compromise is suspected.\n\n"
        "5. Fees\nThe late fee is charged at a rate of\n3.5 percent of the amount due.\n"
    )
    doc = parse(data.encode(), "infosec.txt")
    _assert_well_formed(doc)
    blocks = {b.section: doc.text[b.start : b.end] for b in doc.blocks}
    assert blocks["ACME INFORMATION SECURITY POLICY > 4. Passwords"] == (
        "4.1 Passwords must be at least 14 characters long.\n"
        "4.2 Passwords must be changed every 180 days, or when a compromise is suspected."
    )
    assert blocks["ACME INFORMATION SECURITY POLICY > 1. Purpose"].startswith("1.1 This policy")
    assert "charged at a rate of 3.5 percent of the amount due." in doc.text


def test_a_numbered_title_over_its_sub_clause_is_its_parent_section() -> None:
    """ "1. Introduction" over "1.1 Scope" was given the sub-clause's level, so the two were siblings and the body
    sat under "1.1 Scope" alone."""
    doc = parse(b"1. Introduction\n1.1 Scope\nThis document covers the VPN.\n", "x.txt")
    assert [b.section for b in doc.blocks] == ["1. Introduction > 1.1 Scope"]
