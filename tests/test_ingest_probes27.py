"""Probes of issue 12 item 1 (contextual indexing: headings -> section paths, hard-wrapped text reflowed so no
quote is cut at a line break) and issue 13 (whole-sentence extractive answers), on inputs shaped like real
documents found on a Debian machine: GNU README/NEWS files, dpkg's feature-removal schedule, Python's LICENSE
(CWI/CNRI clauses), man pages, Node's BUILDING.md, PDFs made with fpdf2, Chinese regulations.

Each failing test is a confirmed defect, marked xfail(strict=True). The pure tests read quotes the way the
extractive generator does: chunks of the parsed text, split into lines, then `sentence_spans` per line.
"""

from __future__ import annotations

import io

import pytest

from rag_app import services
from rag_app.ingest.parsers import parse
from rag_app.models import AnswerParagraph
from rag_app.pipeline.chunking import chunk_text
from rag_app.pipeline.textproc import sentence_spans
from tests import factories


def quotes(data: str | bytes, name: str = "doc.txt") -> list[tuple[str | None, str]]:
    """(section, sentence) for every sentence the extractive generator could quote."""
    doc = parse(data.encode() if isinstance(data, str) else data, name)
    out: list[tuple[str | None, str]] = []
    for chunk in chunk_text(doc.text, doc.blocks):
        pos = 0
        for line in chunk.text.split("\n"):  # extractive._lines
            for s, e in sentence_spans(chunk.text, pos, pos + len(line)):
                out.append((chunk.section, chunk.text[s:e]))
            pos += len(line) + 1
    return out


def sentences(data: str | bytes, name: str = "doc.txt") -> list[str]:
    return [s for _, s in quotes(data, name)]


def section_of(data: str | bytes, needle: str, name: str = "doc.txt") -> str | None:
    return next(sec for sec, s in quotes(data, name) if needle in s)


# --- 1. reflow: a wrapped line that starts with a number or a dash is read as a list item ---------------------


def test_wrapped_line_starting_with_a_version_number_is_not_a_list_item() -> None:
    # Real case: Python's LICENSE, "5. CNRI SHALL NOT BE LIABLE TO LICENSEE OR ANY OTHER USERS OF PYTHON\n1.6.1 FOR ..."
    text = (
        "Release notes for the build tools used by the continuous integration\n\n"
        "  The build now requires the Python interpreter at version\n"
        "  3.11.2 or later on every one of the supported platforms, as announced.\n"
        "  Please upgrade the interpreter on each of the build machines\n"
        "  first; the old one is no longer tested by the continuous integration.\n"
    )
    assert (
        "The build now requires the Python interpreter at version 3.11.2 or later on every one of the supported "
        "platforms, as announced." in sentences(text)
    )


def test_wrapped_line_starting_with_an_option_is_not_a_list_item() -> None:
    # Real case: GNU diffutils NEWS, "... --color=always, --color=auto,\n  --color=never."
    text = (
        "Noteworthy changes in the command line tools of the current release\n\n"
        "  diff accepts two new options --color and --palette to generate\n"
        "  and configure colored output.  --color takes an optional argument\n"
        "  specifying when to colorize a line: --color=always, --color=auto,\n"
        "  --color=never.  --palette is used to configure which colors are used.\n"
    )
    assert (
        "--color takes an optional argument specifying when to colorize a line: "
        "--color=always, --color=auto, --color=never." in sentences(text)
    )


# --- 2. reflow: the wrap-width guess fails on ordinary documents --------------------------------------------


def test_short_note_under_a_title_is_reflowed() -> None:
    text = (
        "Refund policy\n\n"
        "Customers may return any unused item within thirty days of\n"
        "delivery for a full refund of the purchase price.\n"
    )
    assert (
        "Customers may return any unused item within thirty days of delivery for a full refund of the purchase price."
        in sentences(text)
    )


def test_short_chinese_clause_is_reflowed() -> None:
    text = "第三条 退款\n\n客户可以在收到商品后三十天内退回任何未使用的商品，\n并获得全额退款。\n"
    assert "客户可以在收到商品后三十天内退回任何未使用的商品，并获得全额退款。" in sentences(text)


def test_wrapped_paragraph_after_a_list_is_reflowed() -> None:
    # Real case: dpkg's README.feature-removal-schedule ("Status: / When: / Warning:" lines): every quote is cut.
    text = (
        "The installer runs on these platforms:\n\n"
        "- Linux\n- macOS\n- Windows\n- FreeBSD\n- OpenBSD\n- NetBSD\n\n"
        "The installer checks the platform before it copies any files and refuses\n"
        "to continue on a platform that is not listed above, printing its name.\n"
    )
    assert (
        "The installer checks the platform before it copies any files and refuses to continue on a platform "
        "that is not listed above, printing its name." in sentences(text)
    )


ZH_REGULATION = """第一章 总则

第一条 为了规范公司员工的休假管理，保障员工的合法权益，根据国家有关法律法规，结合本公司实
际情况，制定本办法。

第二条 本办法适用于与公司签订劳动合同的全体员工，包括试用期员工和派遣员工。

第二章 年休假

第三条 员工累计工作已满一年不满十年的，年休假五天；已满十年不满二十年的，年休假十天；已满
二十年的，年休假十五天。

第四条 年休假一般不跨年度安排，确因工作需要不能安排的，经部门负责人批准可以顺延至次年第一
季度。
"""


def test_chinese_regulation_clauses_are_reflowed() -> None:
    said = sentences(ZH_REGULATION)
    assert "已满" not in said  # quoted on its own today
    assert "已满二十年的，年休假十五天。" in said
    assert "第四条 年休假一般不跨年度安排，确因工作需要不能安排的，经部门负责人批准可以顺延至次年第一季度。" in said


# --- 3. headings inside a paragraph (PDF output, regulations typed without blank lines) ------------------------


def test_heading_line_inside_a_paragraph_is_not_glued_to_the_next_sentence() -> None:
    text = (
        "LEAVE POLICY\n\n"
        "Employees accrue twenty days of paid annual leave per calendar year, and\n"
        "unused leave of up to five days may be carried over into the next year.\n"
        "EXPENSES\n"
        "Travel expenses are reimbursed within thirty days of the submission of a\n"
        "complete claim, provided that every receipt is attached to the claim form.\n"
    )
    said = quotes(text)
    assert not any(s.startswith("EXPENSES") for _, s in said)  # today: "EXPENSES Travel expenses are ..."
    assert section_of(text, "Travel expenses") == "EXPENSES"  # today: "LEAVE POLICY"


def test_chinese_chapters_without_blank_lines_give_section_paths() -> None:
    text = ZH_REGULATION.replace("\n\n", "\n")
    assert section_of(text, "年休假五天") == "第二章 年休假"  # today: "第一章 总则" for the whole document


def _pdf(headings: list[str]) -> bytes:
    from fpdf import FPDF

    body = [
        "Employees accrue twenty days of paid annual leave per calendar year, and unused leave of up to five days "
        "may be carried over into the first quarter of the following year with the written approval of their "
        "line manager.",
        "Travel expenses are reimbursed within thirty days of the submission of a complete claim, provided that every "
        "receipt is attached and the trip was approved in advance by the budget holder responsible for the project.",
    ]
    pdf = FPDF()
    pdf.set_title("Employee Handbook")
    pdf.add_page()
    for heading, para in zip(headings, body, strict=True):
        pdf.set_font("Helvetica", "B", 16)
        pdf.cell(0, 10, heading, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=11)
        pdf.multi_cell(0, 6, para)
        pdf.ln(4)
    out = io.BytesIO()
    pdf.output(out)
    return out.getvalue()


def test_pdf_headings_give_section_paths() -> None:
    data = _pdf(["LEAVE POLICY", "EXPENSES"])
    assert section_of(data, "paid annual leave", "handbook.pdf") == "LEAVE POLICY"
    assert section_of(data, "Travel expenses", "handbook.pdf") == "EXPENSES"


def test_pdf_numbered_heading_is_not_glued_into_the_first_sentence() -> None:
    said = sentences(_pdf(["1. Leave Policy", "2. Expenses"]), "handbook.pdf")
    # today: "1." and "Leave Policy Employees accrue twenty days ..." / "Expenses Travel expenses are ..."
    assert any(s.startswith("Employees accrue twenty days") for s in said)
    assert any(s.startswith("Travel expenses are reimbursed") for s in said)


# --- 4. heading detection in plain text ---------------------------------------------------------------------


def test_underlined_headings_give_section_paths() -> None:
    text = (
        "Installation\n============\n\n"
        "Run make install in the top directory of the source tree once the\n"
        "configure script has finished and the build has completed without errors.\n\n"
        "Known problems\n--------------\n\n"
        "The test suite fails on file systems that do not record the access time\n"
        "of a file, because the test compares it with the modification time.\n"
    )
    said = sentences(text)
    assert "Installation ============" not in said and "--------------" not in said
    assert (
        section_of(text, "access time") == "Installation > Known problems"
        or section_of(text, "access time") == "Known problems"
    )


def test_first_line_of_a_shouted_disclaimer_is_not_a_heading() -> None:
    # Python's LICENSE (CWI clause), verbatim: its first line became the section and the quote starts mid-sentence.
    text = (
        "Permission to use, copy, modify, and distribute this software and its\n"
        "documentation for any purpose and without fee is hereby granted.\n\n"
        "STICHTING MATHEMATISCH CENTRUM DISCLAIMS ALL WARRANTIES WITH REGARD TO\n"
        "THIS SOFTWARE, INCLUDING ALL IMPLIED WARRANTIES OF MERCHANTABILITY AND\n"
        "FITNESS, IN NO EVENT SHALL STICHTING MATHEMATISCH CENTRUM BE LIABLE\n"
        "FOR ANY SPECIAL, INDIRECT OR CONSEQUENTIAL DAMAGES OR ANY DAMAGES\n"
        "WHATSOEVER RESULTING FROM LOSS OF USE, DATA OR PROFITS.\n"
    )
    assert any(
        s.startswith("STICHTING MATHEMATISCH CENTRUM DISCLAIMS ALL WARRANTIES WITH REGARD TO THIS SOFTWARE")
        for s in sentences(text)
    )
    assert section_of(text, "INDIRECT OR CONSEQUENTIAL") is None


def test_numbered_steps_are_not_swallowed_as_headings() -> None:
    text = (
        "To reset your password, follow these steps:\n\n"
        "1. Open the account settings page\n\n"
        "2. Click the Forgot password link\n\n"
        "3. Enter the code sent to your email\n\n"
        "The code expires after ten minutes, so enter it promptly.\n"
    )
    said = " ".join(sentences(text))
    assert "Open the account settings page" in said  # today: not in any chunk, never quotable
    assert "Click the Forgot password link" in said
    assert section_of(text, "expires after ten minutes") is None  # today: "3. Enter the code sent to your email"


def test_numbered_item_ending_in_a_comma_is_not_a_heading() -> None:
    text = (
        "EXIT STATUS\n\n"
        "The command reports how it ended through its exit status, as follows:\n\n"
        "0 if OK,\n\n"
        "1 if minor problems (e.g., cannot access subdirectory),\n\n"
        "2 if serious trouble (e.g., cannot access command-line argument).\n"
    )
    said = " ".join(sentences(text))
    assert "1 if minor problems" in said
    assert section_of(text, "serious trouble") == "EXIT STATUS"


# --- 5. Markdown -----------------------------------------------------------------------------------------------


def test_markdown_table_rows_are_not_joined_into_one_line() -> None:
    text = (
        "# Plans\n\n| Plan  | Price | Seats |\n|-------|-------|-------|\n"
        "| Basic | 10    | 1     |\n| Team  | 50    | 10    |\n"
    )
    said = sentences(text, "plans.md")
    assert not any("Basic" in s and "Team" in s for s in said)  # today: the whole table is one quote


def test_markdown_blockquote_marker_is_not_glued_into_the_sentence() -> None:
    text = (
        "# Minutes\n\n"
        "> The committee agreed that the budget for the next financial year\n"
        "> will be frozen at the current level until the audit is complete.\n"
    )
    said = sentences(text, "minutes.md")
    assert not any("year > will" in s for s in said)


# --- 6. the product path: extractive answers ----------------------------------------------------------------

CLAUSES = """LICENCE AGREEMENT FOR THE WIDGET LIBRARY

4. The licensee shall pay the annual licence fee within thirty days of the invoice date.

5. The licensor shall not be liable for any incidental or consequential damages arising from the use of the library.

6. This agreement terminates automatically upon a material breach of its terms.
"""


def _answer(user: object, question: str) -> list[str]:
    answer = services.ask(user=user, question=question, mode="extractive")
    return [p.text for p in AnswerParagraph.objects.filter(answer=answer).order_by("order")]


@pytest.mark.django_db
def test_extractive_quote_does_not_end_with_the_next_clause_number(levels: object, staff_user: object) -> None:
    factories.ingest_text(CLAUSES, source_id="licence.txt")
    paragraphs = _answer(staff_user, "Is the licensor liable for consequential damages?")
    assert paragraphs and "consequential damages" in paragraphs[0]
    assert not paragraphs[0].rstrip().endswith("6.")  # today: '... use of the library.\n\n6.'


@pytest.mark.django_db
def test_extractive_answer_is_not_cut_at_a_hard_line_break(levels: object, staff_user: object) -> None:
    # Shape of dpkg's README.feature-removal-schedule, where the answer read 'The fallback to "1.0" is there only for'.
    text = (
        "What: fallback of dpkg-source to source format 1.0\n"
        "Status: deprecated\n"
        "When: 1.17.x\n"
        "Warning: program\n"
        "Why:\n"
        " With the support of multiple source formats, the user should be explicit\n"
        " about the desired source format. The fallback to 1.0 is there only for\n"
        " backwards compatibility but will be removed once all packages have the\n"
        " debian/source/format file.\n"
    )
    factories.ingest_text(text, source_id="removals.txt")
    paragraphs = _answer(staff_user, "Why is the fallback to source format 1.0 still there?")
    joined = " ".join(paragraphs)
    assert "backwards compatibility" in joined
    assert "The fallback to 1.0 is there only for backwards compatibility" in joined
