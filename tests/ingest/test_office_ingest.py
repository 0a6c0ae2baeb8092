"""Office files through the real ingest service and the folder command: chunks keep their locators
(heading path, slide, sheet and row range), and a protected or damaged file fails alone."""

from __future__ import annotations

import io
from pathlib import Path

import openpyxl
import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from rag_app.ingest.parsers import ParseError
from rag_app.ingest.service import document_ingest
from rag_app.models import Document
from tests import factories
from tests.ingest.test_office_parsers import _encrypted, make_docx, make_pptx, make_xlsx

pytestmark = pytest.mark.django_db


def test_docx_chunks_carry_their_heading_path_and_exact_offsets(levels) -> None:
    result = document_ingest(data=make_docx(), file_name="handbook.docx", source_id="hr/handbook", level="official")
    version = factories.current_version("hr/handbook")
    chunks = factories.chunks_of("hr/handbook")
    assert result.status == "new" and version.mime.endswith("wordprocessingml.document")
    assert version.document.title == "Staff handbook"
    assert [c.section for c in chunks] == ["", "Refunds", "Refunds > Deadlines", "Travel > Exceptions"]
    for chunk in chunks:
        assert version.text[chunk.start : chunk.end] == chunk.text


def test_pptx_chunks_are_slides_with_their_number(levels) -> None:
    document_ingest(data=make_pptx(), file_name="deck.pptx", source_id="deck")
    chunks = factories.chunks_of("deck")
    assert [(c.page, c.section) for c in chunks] == [
        (1, "Quarterly results"),
        (2, "Refund table"),
        (3, ""),
        (5, "谢谢"),
    ]


def test_sheet_chunks_stay_inside_their_row_ranges(levels, settings) -> None:
    settings.RAG = {**settings.RAG, "CHUNK_TARGET": 120, "CHUNK_MAX": 200}
    wb = openpyxl.Workbook()
    wb.active.title = "Staff"
    wb.active.append(["Name", "Office", "Phone"])
    for i in range(2, 42):
        wb.active.append([f"Person {i}", f"Office {i % 5}", f"555-01{i:02d}"])
    buf = io.BytesIO()
    wb.save(buf)
    document_ingest(data=buf.getvalue(), file_name="staff.xlsx", source_id="staff.xlsx")
    chunks = factories.chunks_of("staff.xlsx")
    assert len(chunks) > 5
    covered: list[int] = []
    for chunk in chunks:
        sheet, rows = chunk.section.split(" > ")
        first, _, last = rows.removeprefix("rows ").removeprefix("row ").partition("-")
        numbers = list(range(int(first), int(last or first) + 1))
        covered += numbers
        assert sheet == "Staff"
        assert chunk.text.count("Name: Person") == len(numbers)
        assert all(f"Name: Person {n}\n" in chunk.text for n in numbers)
    assert covered == list(range(2, 42))


def test_a_protected_file_fails_with_its_reason_and_stores_nothing(levels) -> None:
    with pytest.raises(ParseError, match="password-protected") as info:
        document_ingest(data=_encrypted(make_xlsx()), file_name="pay.xlsx", source_id="pay.xlsx")
    assert info.value.code == "encrypted"
    assert not Document.objects.filter(source_id="pay.xlsx").exists()


def test_folder_ingest_reads_office_files_and_reports_a_bad_one_alone(levels, tmp_path: Path) -> None:
    (tmp_path / "handbook.docx").write_bytes(make_docx())
    (tmp_path / "deck.pptx").write_bytes(make_pptx())
    (tmp_path / "figures.xlsx").write_bytes(make_xlsx())
    (tmp_path / "people.csv").write_text("name,city\nAda,London\n", encoding="utf-8")
    (tmp_path / "secret.docx").write_bytes(_encrypted(make_docx()))
    (tmp_path / "~$handbook.docx").write_bytes(b"\x05owner lock file")
    out, err = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="1 of 5 files failed"):
        call_command("ingest", str(tmp_path), stdout=out, stderr=err)
    assert sorted(line.split(" ")[0] for line in out.getvalue().splitlines()) == [
        "deck.pptx",
        "figures.xlsx",
        "handbook.docx",
        "people.csv",
    ]
    assert "secret.docx error encrypted: the Word file is password-protected" in err.getvalue()
    assert "~$" not in out.getvalue() + err.getvalue()
    assert set(Document.objects.values_list("source_id", flat=True)) == {
        "deck.pptx",
        "figures.xlsx",
        "handbook.docx",
        "people.csv",
    }
