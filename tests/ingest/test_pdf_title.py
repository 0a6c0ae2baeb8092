"""A PDF's title (ingest/parsers/pdf.py): its metadata title where that names the document, else the first page's
largest text where it stands out as a title, else none (the document is shown by its source_id, never an invented
title). PDFs are made here with fpdf2, as a word processor's export would set them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from rag_app.ingest.parsers import parse
from rag_app.models import Document

CJK_FONT = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
BODY = "Hotel costs up to 150 euros per night are refunded. Receipts are required for every claim made."


def _pdf(lines: list[tuple[float, str]], *, title: str | None = None, font: Path | None = None) -> bytes:
    """A one-page PDF: each (size in points, text) a paragraph of its own; `title` its metadata title."""
    from fpdf import FPDF

    pdf = FPDF()
    if title is not None:
        pdf.set_title(title)
    pdf.add_page()
    if font is not None:
        if not font.exists():
            pytest.skip(f"{font} is not installed")
        pdf.add_font("doc", fname=str(font), collection_font_number=2 if font.suffix == ".ttc" else 0)
    for size, text in lines:
        pdf.set_font("doc", size=size) if font is not None else pdf.set_font(
            "Helvetica", "B" if size > 12 else "", size
        )
        pdf.multi_cell(0, size * 0.5, text, new_x="LMARGIN", new_y="NEXT")
    out = io.BytesIO()
    pdf.output(out)
    return out.getvalue()


def test_without_metadata_the_largest_text_is_the_title_not_the_page_header() -> None:
    """A user report: a PDF without a metadata title got a page header or junk for a title. The first page's
    largest text, set well above the body, is its title; the small header above it is not."""
    data = _pdf([(8, "ACME Corp - Internal - Page 1 of 3"), (20, "Travel Expense Policy"), (11, BODY)])
    assert parse(data, "travel_expense-policy_2025.pdf").title == "Travel Expense Policy"


@pytest.mark.parametrize("placeholder", ["Microsoft Word - Document1", "Untitled", "Presentation1", "report.docx"])
def test_a_placeholder_metadata_title_gives_way_to_the_largest_text(placeholder: str) -> None:
    data = _pdf([(8, "Confidential"), (20, "Travel Expense Policy"), (11, BODY)], title=placeholder)
    assert parse(data, "travel.pdf").title == "Travel Expense Policy"


@pytest.mark.parametrize(
    "placeholder",
    [
        "文档1",
        "演示文稿1",
        "工作簿1",
        "PowerPoint 演示文稿",
        "新建文档",
        "新建 Microsoft Word 文档",
        "新建 Microsoft PowerPoint 演示文稿",
        "新建 Microsoft Excel 工作表",
        "Microsoft Word - 文档1",
    ],
)
def test_a_chinese_office_placeholder_gives_way_to_the_largest_text(placeholder: str) -> None:
    """A review finding: Chinese Office's template names (文档1, 新建 Microsoft Word 文档, ...) were taken as titles."""
    data = _pdf([(8, "Header"), (20, "Travel Expense Policy"), (11, BODY)], title=placeholder)
    assert parse(data, "travel.pdf").title == "Travel Expense Policy"


@pytest.mark.parametrize("title", ["文档管理规定", "新建办公楼安全须知", "演示文稿制作指南"])
def test_a_chinese_title_that_starts_like_a_placeholder_is_kept(title: str) -> None:
    data = _pdf([(20, "Policy"), (11, BODY)], title=title)
    assert parse(data, "travel.pdf").title == title


@pytest.mark.parametrize(
    "lines",
    [
        [(40, "DRAFT"), (16, "Travel Expense Policy"), (11, BODY)],  # a stamp above the title, larger
        [(16, "Travel Expense Policy"), (11, BODY), (30, "CONFIDENTIAL")],  # a stamp after the body
        [(36, "Confidential"), (16, "Travel Expense Policy"), (11, BODY), (30, "Sample")],
        [(16, "Travel Expense Policy"), (11, BODY), (24, "Appendix figure"), (11, BODY)],  # large text after the body
    ],
    ids=["draft-above", "confidential-after", "stamps-both", "after-the-body"],
)
def test_a_stamp_or_text_after_the_body_is_not_the_title(lines: list[tuple[float, str]]) -> None:
    """A review finding: "DRAFT" at 40 pt above "Travel Expense Policy" at 16 pt was the title, and so was
    "CONFIDENTIAL" stamped at 30 pt after the body. A stamp word alone is no title, and the title comes before the
    body."""
    assert parse(_pdf(lines), "travel.pdf").title == "Travel Expense Policy"


def test_a_chinese_stamp_is_not_the_title() -> None:
    title = "差旅费用报销管理规定"
    data = _pdf(
        [(40, "草稿"), (20, title), (11, "住宿费用每晚不超过五百元，凭发票报销。" * 4), (30, "机密")], font=CJK_FONT
    )
    assert parse(data, "travel.pdf").title == title


def test_a_meaningful_metadata_title_is_kept() -> None:
    data = _pdf([(20, "Policy"), (11, BODY)], title="Travel Expense Policy 2025")
    assert parse(data, "travel.pdf").title == "Travel Expense Policy 2025"


def test_a_title_wrapped_over_two_lines_is_one_title() -> None:
    data = _pdf(
        [(8, "Header"), (24, "Travel and accommodation expenses for staff on business trips abroad"), (11, BODY)]
    )
    assert parse(data, "travel.pdf").title == "Travel and accommodation expenses for staff on business trips abroad"


def test_a_chinese_title_wrapped_over_lines_is_joined_without_a_space() -> None:
    title = "关于国内外出差住宿费用报销标准与审批流程的管理规定（二〇二五年修订版）"
    data = _pdf([(9, "内部文件"), (26, title), (11, "住宿费用每晚不超过五百元，凭发票报销。" * 4)], font=CJK_FONT)
    assert parse(data, "travel.pdf").title == title


@pytest.mark.parametrize(
    "lines",
    [
        [(11, "Travel Expense Policy"), (11, BODY)],  # nothing stands out: no title is made up
        [(11, BODY), (13, "Note"), (11, BODY)],  # larger, but not by enough to be a title
        [(11, BODY), (30, "2025"), (11, BODY)],  # no letters: a number is no title
    ],
    ids=["one-size", "slightly-larger", "no-letters"],
)
def test_no_title_stands_out_then_there_is_none(lines: list[tuple[float, str]]) -> None:
    assert parse(_pdf(lines, title="Untitled"), "travel.pdf").title is None


def test_an_ingested_pdf_is_titled_by_its_largest_text(levels) -> None:
    from rag_app.ingest.service import document_ingest

    data = _pdf([(8, "ACME Corp - Internal - Page 1 of 3"), (20, "Travel Expense Policy"), (11, BODY)])
    document_ingest(data=data, file_name="travel.pdf", source_id="policies/travel.pdf")
    assert Document.objects.get(source_id="policies/travel.pdf").display_title == "Travel Expense Policy"
