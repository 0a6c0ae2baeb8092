"""Word, PowerPoint, Excel and CSV: files built here with python-docx, python-pptx and openpyxl (no
binary fixtures), parsed into normalised text with exact blocks and honest locators, or refused
with a clear ParseError (password-protected, damaged, renamed, too big)."""

from __future__ import annotations

import datetime as dt
import io
import zipfile

import docx
import openpyxl
import pptx
import pytest
from docx.enum.style import WD_STYLE_TYPE
from hypothesis import given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st
from msoffcrypto.format.ooxml import OOXMLFile
from pptx.util import Inches

from rag_app.ingest.parsers import (
    ACCEPT,
    BinaryFile,
    EmptyDocument,
    EncryptedDocument,
    FileTooLarge,
    LegacyFormat,
    ParsedDocument,
    ParseError,
    UndecodableText,
    UnsupportedFileType,
    file_type_problem,
    is_supported,
    parse,
    sheets,
)
from rag_app.ingest.parsers.office import OLE_MAGIC
from tests.ingest.test_parsers import _assert_well_formed

DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def _saved(document: object) -> bytes:
    buf = io.BytesIO()
    document.save(buf)  # type: ignore[attr-defined]
    return buf.getvalue()


def _block_texts(doc: ParsedDocument) -> list[tuple[str | None, int | None, str]]:
    return [(b.section, b.page, doc.text[b.start : b.end]) for b in doc.blocks]


def _encrypted(data: bytes) -> bytes:
    """What Office writes for a password-protected file: an OLE container with an EncryptedPackage."""
    out = io.BytesIO()
    OOXMLFile(io.BytesIO(data)).encrypt("correct horse", out)
    return out.getvalue()


def make_docx() -> bytes:
    d = docx.Document()
    d.core_properties.title = ""
    d.add_paragraph("Staff handbook", style="Title")
    d.add_paragraph("This handbook applies to every office.")
    d.add_heading("Refunds", level=1)
    d.add_paragraph("Customers get a refund within 30 days.")
    d.add_paragraph("The receipt is required.")
    d.add_heading("Deadlines", level=2)
    d.add_paragraph("退款在十个工作日内到账。")
    table = d.add_table(rows=3, cols=2)
    for r, (a, b) in enumerate([("Item", "Days"), ("Laptop", "30"), ("Phone", "")]):
        table.cell(r, 0).text, table.cell(r, 1).text = a, b
    custom = d.styles.add_style("Policy Heading", WD_STYLE_TYPE.PARAGRAPH)
    custom.base_style = d.styles["Heading 2"]
    d.add_heading("Travel", level=1)
    d.add_paragraph("Exceptions", style="Policy Heading")
    d.add_paragraph("Line one\nline two after a break.")
    return _saved(d)


def test_docx_headings_are_the_section_path_and_tables_read_as_records() -> None:
    doc = parse(make_docx(), "handbook.docx")
    _assert_well_formed(doc)
    assert doc.mime == DOCX and doc.title == "Staff handbook"
    assert _block_texts(doc) == [
        (None, None, "This handbook applies to every office."),
        ("Refunds", None, "Customers get a refund within 30 days.\n\nThe receipt is required."),
        ("Refunds > Deadlines", None, "退款在十个工作日内到账。\n\nItem: Laptop\nDays: 30\n\nItem: Phone"),
        ("Travel > Exceptions", None, "Line one\nline two after a break."),
    ]
    # Headings read in the text, as in the document, but belong to no block.
    assert doc.text.startswith("Staff handbook\n\nThis handbook")
    assert "\n\nDeadlines\n\n" in doc.text


def test_docx_title_property_wins_and_heading_only_documents_are_kept() -> None:
    d = docx.Document()
    d.core_properties.title = "  Travel   policy "
    d.add_heading("Only a heading", level=1)
    doc = parse(_saved(d), "t.docx")
    assert doc.title == "Travel policy"
    assert _block_texts(doc) == [(None, None, "Only a heading")]


_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def _numbered(document: object, abstract_id: int, levels: list[tuple[str, str]], start: int = 1) -> int:
    """Add a list to a python-docx document's numbering part: one level per (format, level text), every level
    starting at `start`. Returns its numId."""
    from docx.oxml import parse_xml

    root = document.part.numbering_part.element  # type: ignore[attr-defined]
    lvls = "".join(
        f'<w:lvl w:ilvl="{i}"><w:start w:val="{start}"/><w:numFmt w:val="{fmt}"/><w:lvlText w:val="{text}"/></w:lvl>'
        for i, (fmt, text) in enumerate(levels)
    )
    root.insert(0, parse_xml(f'<w:abstractNum xmlns:w="{_W}" w:abstractNumId="{abstract_id}">{lvls}</w:abstractNum>'))
    num_id = 900 + abstract_id
    root.append(parse_xml(f'<w:num xmlns:w="{_W}" w:numId="{num_id}"><w:abstractNumId w:val="{abstract_id}"/></w:num>'))
    return num_id


def _in_list(paragraph: object, num_id: int, level: int = 0) -> None:
    from docx.oxml import parse_xml

    numbering = f'<w:numPr xmlns:w="{_W}"><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>'
    paragraph._p.get_or_add_pPr().insert(0, parse_xml(numbering))  # type: ignore[attr-defined]


def test_docx_numbered_paragraphs_start_with_their_numbers() -> None:
    """Word numbers steps and clauses itself: python-docx's text holds no number, so "step 2" or "clause 2.1" was
    written nowhere and a quote read "Set up your laptop." A numbered paragraph starts with its number as Word shows
    it: a List Number style's list, a clause list's "%1.%2" (a deeper level restarting under each clause), a Chinese
    "第%1条" in Chinese numerals; a bullet gets none; an empty numbered paragraph is counted, as Word shows its number,
    but adds no text; a numbered heading is the section path
    with its number."""
    d = docx.Document()
    d.add_heading("Onboarding", level=1)
    for step in ("Collect your badge.", "Set up your laptop.", "Meet your buddy."):
        d.add_paragraph(step, style="List Number")
    d.add_paragraph("Bring an ID.", style="List Bullet")
    clauses = _numbered(d, 71, [("decimal", "%1."), ("decimal", "%1.%2")])
    zh = _numbered(d, 72, [("chineseCounting", "第%1条")])
    heading = d.add_heading("Security", level=1)
    _in_list(heading, clauses)
    for text, level in (("Passwords have 14 characters.", 1), ("", 1), ("MFA is required.", 1)):
        _in_list(d.add_paragraph(text), clauses, level)
    _in_list(d.add_heading("Leave", level=1), clauses)
    _in_list(d.add_paragraph("Annual leave is 25 days."), clauses, 1)
    rules = ["员工每年享有年假。", "病假需提供证明。", "加班需审批。", "出差需报备。", "本规定自2026年起施行。"]
    rules += ["解释权归人力资源部。", "未尽事宜另行通知。", "各部门遵照执行。", "附则。", "自发布之日起施行。"]
    for text in [*rules, "第十一条的内容。", "第十二条的内容。"]:
        _in_list(d.add_paragraph(text), zh)
    doc = parse(_saved(d), "handbook.docx")
    _assert_well_formed(doc)
    paragraphs = doc.text.split("\n\n")
    assert paragraphs[:6] == [
        "Onboarding",
        "1. Collect your badge.",
        "2. Set up your laptop.",
        "3. Meet your buddy.",
        "Bring an ID.",
        "1. Security",
    ]
    assert paragraphs[6:10] == [
        "1.1 Passwords have 14 characters.",
        "1.3 MFA is required.",
        "2. Leave",
        "2.1 Annual leave is 25 days.",
    ]
    assert paragraphs[10] == "第一条 员工每年享有年假。"
    assert paragraphs[20:22] == ["第十一条 第十一条的内容。", "第十二条 第十二条的内容。"]
    assert ("1. Security", None, "1.1 Passwords have 14 characters.\n\n1.3 MFA is required.") in _block_texts(doc)


def test_docx_numbering_that_names_no_list_adds_nothing() -> None:
    """A paragraph whose list, level or format is missing or not a number (a damaged or hand-edited file) reads as
    its text, never as an error."""
    d = docx.Document()
    broken = _numbered(d, 73, [("decimal", "%1.")])
    _in_list(d.add_paragraph("Unknown list."), 4242)
    _in_list(d.add_paragraph("Unknown level."), broken, 5)
    _in_list(d.add_paragraph("No list at all."), 0)
    _in_list(d.add_paragraph("Counted."), broken)
    doc = parse(_saved(d), "odd.docx")
    assert doc.text.split("\n\n") == ["Unknown list.", "Unknown level.", "No list at all.", "1. Counted."]


def make_pptx() -> bytes:
    p = pptx.Presentation()
    first = p.slides.add_slide(p.slide_layouts[1])  # title and content
    first.shapes.title.text = "Quarterly results"
    first.placeholders[1].text_frame.text = "Revenue grew by 4%.\nCosts fell."
    first.notes_slide.notes_text_frame.text = "Mention the new office."
    second = p.slides.add_slide(p.slide_layouts[5])  # title only
    second.shapes.title.text = "Refund table"
    rows = second.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, (a, b) in enumerate([("Item", "Days"), ("Laptop", "30"), ("Phone", "14")]):
        rows.cell(r, 0).text, rows.cell(r, 1).text = a, b
    box = second.shapes.add_textbox(Inches(1), Inches(1), Inches(4), Inches(1))
    box.text_frame.text = "Above the table."
    third = p.slides.add_slide(p.slide_layouts[6])  # blank: no title
    group = third.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(3), Inches(2), Inches(1)).text_frame.text = "Lower"
    group.shapes.add_textbox(Inches(1), Inches(1), Inches(2), Inches(1)).text_frame.text = "Upper"
    p.slides.add_slide(p.slide_layouts[6])  # an empty slide: nothing, and numbering goes on
    fifth = p.slides.add_slide(p.slide_layouts[1])
    fifth.shapes.title.text = "谢谢"
    fifth.placeholders[1].text_frame.text = "问题？"
    return _saved(p)


def test_pptx_one_block_per_slide_with_its_number_and_title() -> None:
    doc = parse(make_pptx(), "deck.pptx")
    _assert_well_formed(doc)
    assert doc.title == "Quarterly results"
    assert _block_texts(doc) == [
        ("Quarterly results", 1, "Revenue grew by 4%.\nCosts fell.\n\nNotes: Mention the new office."),
        ("Refund table", 2, "Above the table.\n\nItem: Laptop\nDays: 30\n\nItem: Phone\nDays: 14"),
        (None, 3, "Upper\n\nLower"),
        ("谢谢", 5, "问题？"),
    ]


def make_xlsx() -> bytes:
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.title = "Refunds"
    ws.append(["Product", "Days", "Share", "Since"])
    ws.append(["Laptop", 30, 0.25, dt.datetime(2024, 1, 31)])
    ws.append(["Phone", 14.0, 0.5, dt.date(2023, 7, 1)])
    ws.append([])
    ws.append(["Tablet", None, 0.125, None])
    for row in range(2, 6):
        ws.cell(row, 3).number_format = "0%"
    numbers = wb.create_sheet("Figures")
    numbers.append([2023, 2024])  # numbers in the first row: data, not headers
    numbers.append([1.5, 2])
    wb.create_sheet("Empty")
    wb.properties.title = "Refund figures"
    return _saved(wb)


def test_xlsx_rows_are_records_with_sheet_and_row_range() -> None:
    doc = parse(make_xlsx(), "figures.xlsx")
    _assert_well_formed(doc)
    assert doc.title == "Refund figures"
    assert _block_texts(doc) == [
        (
            "Refunds > rows 2-5",
            None,
            "Product: Laptop\nDays: 30\nShare: 25%\nSince: 2024-01-31\n\n"
            "Product: Phone\nDays: 14\nShare: 50%\nSince: 2023-07-01\n\n"
            "Product: Tablet\nShare: 12.5%",
        ),
        ("Figures > rows 1-2", None, "A: 2023\nB: 2024\n\nA: 1.5\nB: 2"),
    ]
    assert doc.text.startswith("Refunds\n\nProduct: Laptop")  # the sheet name is a heading line


def test_sheet_rows_are_grouped_into_blocks_of_about_one_chunk(settings) -> None:
    settings.RAG = {**settings.RAG, "CHUNK_TARGET": 80}
    rows = "name,city\n" + "".join(f"person {i},city number {i}\n" for i in range(2, 12))
    doc = parse(rows.encode(), "people.csv")
    _assert_well_formed(doc)
    sections = [b.section for b in doc.blocks]
    assert sections == ["rows 2-3", "rows 4-5", "rows 6-7", "rows 8-9", "rows 10-11"]
    assert _block_texts(doc)[0][2] == "name: person 2\ncity: city number 2\n\nname: person 3\ncity: city number 3"


def test_csv_in_gb18030_with_semicolons_reads_through_the_shared_decoder() -> None:
    data = "产品;退款天数;备注\n笔记本电脑;30;需要收据\n手机;14;\n".encode("gb18030")
    doc = parse(data, "退款.csv")
    _assert_well_formed(doc)
    assert doc.encoding == "gb18030" and doc.mime == "text/csv"
    assert _block_texts(doc) == [
        ("rows 2-3", None, "产品: 笔记本电脑\n退款天数: 30\n备注: 需要收据\n\n产品: 手机\n退款天数: 14"),
    ]


def test_csv_quoted_newlines_stay_inside_their_record() -> None:
    data = b'question,answer\n"How long?","30 days.\n\nWith receipt."\n'
    doc = parse(data, "faq.csv")
    assert _block_texts(doc) == [("row 2", None, "question: How long?\nanswer: 30 days.\nWith receipt.")]


def test_a_sheet_of_headers_alone_is_kept() -> None:
    doc = parse(b"name,city\n", "headers.csv")
    assert _block_texts(doc) == [("row 1", None, "name | city")]


@pytest.mark.parametrize(
    ("name", "data", "error", "message"),
    [
        ("empty.csv", b"", EmptyDocument, "empty"),
        ("commas.csv", b",,,\n,,\n", EmptyDocument, "no cells"),
        ("image.csv", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x01\x00", BinaryFile, "binary"),
        ("noise.csv", bytes(range(128, 256)) * 40, UndecodableText, "encoding"),
        ("huge-field.csv", b'a\n"' + b"x" * 200_000 + b'"\n', ParseError, "malformed"),
    ],
)
def test_bad_csv_files_raise_clear_errors(name: str, data: bytes, error: type[ParseError], message: str) -> None:
    with pytest.raises(error, match=message):
        parse(data, name)


@pytest.mark.parametrize(("name", "make"), [("a.docx", make_docx), ("a.pptx", make_pptx), ("a.xlsx", make_xlsx)])
def test_password_protected_office_files_are_encrypted_errors(name: str, make: object) -> None:
    """Encrypted with a password the way Office does it (msoffcrypto-tool writes the same container)."""
    data = _encrypted(make())  # type: ignore[operator]
    assert data.startswith(OLE_MAGIC)
    with pytest.raises(EncryptedDocument, match="password-protected; remove the password"):
        parse(data, name)


def test_an_unreadable_ole_container_is_refused_as_protected_or_damaged() -> None:
    with pytest.raises(EncryptedDocument, match="password-protected or damaged"):
        parse(OLE_MAGIC + b"\x00" * 600, "report.docx")


def _zip(parts: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in parts.items():
            z.writestr(name, data)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("cut.docx", make_docx()[:3000], "damaged or truncated"),
        ("cut.xlsx", make_xlsx()[:2000], "damaged or truncated"),
        ("plain.docx", _zip({"hello.txt": b"hi"}), r"not a valid Word file: the package has no \[Content_Types\].xml"),
        ("sheet.docx", make_xlsx(), "damaged or unreadable"),  # a workbook renamed .docx
        ("deck.xlsx", make_pptx(), "damaged or unreadable"),
        ("fake.pptx", b"%PDF-1.7 not a presentation", "not a valid PowerPoint file"),
        (
            "broken-xml.docx",
            _zip({"[Content_Types].xml": b"<Types", "word/document.xml": b"<w:document"}),
            "damaged or unreadable",
        ),
    ],
)
def test_damaged_or_renamed_office_files_are_parse_errors(name: str, data: bytes, message: str) -> None:
    with pytest.raises(ParseError, match=message) as info:
        parse(data, name)
    assert not isinstance(info.value, EncryptedDocument)


def test_a_package_that_unpacks_past_the_limit_is_refused_before_it_is_read(settings) -> None:
    settings.RAG = {**settings.RAG, "MAX_UPLOAD_BYTES": 100_000}  # unpacked limit: 1,000,000 bytes
    bomb = _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": b"<" + b" " * 2_000_000 + b"/>"})
    assert len(bomb) < 10_000
    with pytest.raises(FileTooLarge, match="unpacks to 2,000,"):
        parse(bomb, "bomb.docx")


def test_sheets_past_the_cell_bound_are_refused_not_cut(monkeypatch) -> None:
    monkeypatch.setattr(sheets, "MAX_CELLS", 100)
    wb = openpyxl.Workbook()
    for i in range(60):
        wb.active.append([f"a{i}", f"b{i}"])
    with pytest.raises(FileTooLarge, match="more than 100 cells"):
        parse(_saved(wb), "big.xlsx")
    with pytest.raises(FileTooLarge, match="more than 100 cells"):
        parse("".join(f"a{i},b{i}\n" for i in range(60)).encode(), "big.csv")


def test_a_sheet_claiming_a_huge_size_is_read_by_its_rows() -> None:
    """A stored dimension of A1:XFD1048576 does not make the reader pad every row to 16,384 cells."""
    wb = openpyxl.Workbook()
    wb.active.append(["k", "v"])
    wb.active.append(["a", "b"])
    data = _saved(wb)
    buf = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            part = src.read(info)
            if info.filename == "xl/worksheets/sheet1.xml":
                part = part.replace(b'<dimension ref="A1:B2"/>', b'<dimension ref="A1:XFD1048576"/>')
                assert b"XFD1048576" in part
            dst.writestr(info, part)
    doc = parse(buf.getvalue(), "claims.xlsx")
    assert _block_texts(doc) == [("Sheet > row 2", None, "k: a\nv: b")]


@pytest.mark.parametrize("name", ["a.docx", "b.PPTX", "c.xlsx", "d.csv", "deep/e.Csv"])
def test_office_formats_are_supported_extensions(name: str) -> None:
    assert is_supported(name)
    assert name.rsplit(".", 1)[1].lower() in ACCEPT


def test_office_lock_files_are_not_documents() -> None:
    assert not is_supported("~$handbook.docx")


def word_97_document() -> bytes:
    """An OLE container as Word 97-2003 writes one (.doc): the container Office writes, its streams renamed as a
    binary Word document names them (no library here writes the old format itself)."""
    data = bytearray(_encrypted(make_docx()))
    for old, new in (("EncryptedPackage", "WordDocument"), ("EncryptionInfo", "1Table")):
        at = data.find(old.encode("utf-16-le"))
        assert at >= 0 and at % 128 == 0  # a directory entry's name
        data[at : at + 64] = (new.encode("utf-16-le") + b"\0\0").ljust(64, b"\0")
        data[at + 64 : at + 66] = (len(new) * 2 + 2).to_bytes(2, "little")
    return bytes(data)


@pytest.mark.parametrize(
    ("name", "data", "kind", "new"),
    [
        ("report.doc", None, "Word", ".docx"),  # by its name: never opened
        ("budget.XLS", b"anything", "Excel", ".xlsx"),
        ("deck.ppt", b"anything", "PowerPoint", ".pptx"),
        ("report.docx", None, "Word", ".docx"),  # a .doc renamed .docx: found inside
    ],
)
def test_an_old_binary_office_file_is_refused_saying_what_to_save_it_as(name, data, kind, new) -> None:
    """A user report: a legacy .doc upload was "unsupported file type" with a list of extensions. It says what the
    file is and to save it as .docx (or PDF), as LegacyFormat, an unsupported type of its own code."""
    with pytest.raises(LegacyFormat) as info:
        parse(word_97_document() if data is None else data, name)
    assert info.value.code == "legacy_format" and isinstance(info.value, UnsupportedFileType)
    assert f"old binary {kind} file" in str(info.value) and f"save it as {new} (or as PDF)" in str(info.value)
    assert file_type_problem(name) is None if name.endswith("x") else isinstance(file_type_problem(name), LegacyFormat)


_cells = st.text(alphabet=st.sampled_from(list('ab 退款,;"\n\r\t\u00a0\u3000-:|0123456789.')), max_size=12)


@given(st.lists(st.lists(_cells, min_size=1, max_size=5), min_size=1, max_size=30))
@hypothesis_settings(max_examples=150, deadline=None)
def test_any_csv_gives_well_formed_blocks_or_a_clear_error(rows: list[list[str]]) -> None:
    import csv

    buf = io.StringIO()
    csv.writer(buf).writerows(rows)
    try:
        doc = parse(buf.getvalue().encode(), "x.csv")
    except EmptyDocument:
        return
    _assert_well_formed(doc)
    for block in doc.blocks:
        assert block.section is not None and block.section.startswith("row")
