"""Excel (.xlsx, read with openpyxl) and CSV (the stdlib csv module over the shared decoder).

A table's rows become records a chunk can be read by on its own: each row is "header: value"
lines under the first row's headers (a column without one is named by its letter, and a first
row with numbers in it is data, not headers). Rows are grouped into blocks of about one chunk
(RAG_CHUNK_TARGET characters), each with its sheet and row range as the section ("Budget >
rows 2-9"; a CSV has no sheet: "rows 2-9"), so a citation points at the rows it rests on. Row
numbers are the ones a spreadsheet shows (the header is row 1). A sheet's name is a heading
line in the text. Values are shown as Excel shows the common formats: integers without ".0",
percentages with "%", dates as YYYY-MM-DD; formulas by their last computed value.

Bounded: at most MAX_CELLS non-empty cells and MAX_ROWS rows per file, and a text of at most twice
RAG_MAX_UPLOAD_BYTES characters; past a bound the file is refused (FileTooLarge) rather than cut.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Iterable, Iterator
from typing import Any, cast

from django.conf import settings
from django.utils.translation import gettext_noop

from rag_app.pipeline.chunking import Block

from .base import EmptyDocument, FileTooLarge, ParsedDocument, ParseError
from .office import TextBuilder, cell_text, check_package, library_errors, one_line, render_record
from .text import decode

XLSX_MIME = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CSV_MIME = "text/csv"
MAX_CELLS = 1_000_000
MAX_ROWS = 1_048_576  # Excel's own limit per sheet; here per file, empty rows included
_CSV_DELIMITERS = ",;\t|"


class _Budget:
    """Counts what a file has produced so far and refuses it past the bounds."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.cells = 0
        self.rows = 0
        self.chars = 0
        self.max_chars = 2 * cast(int, settings.RAG["MAX_UPLOAD_BYTES"])

    def row(self, values: list[str]) -> None:
        self.rows += 1
        if self.rows > MAX_ROWS:
            raise FileTooLarge(
                gettext_noop("the %(kind)s file has more than %(limit)s rows; split it into smaller files"),
                kind=self.kind,
                limit=f"{MAX_ROWS:,}",
            )
        filled = [v for v in values if v]
        self.cells += len(filled)
        if self.cells > MAX_CELLS:
            raise FileTooLarge(
                gettext_noop(
                    "the %(kind)s file has more than %(limit)s cells with values; split it into smaller files"
                ),
                kind=self.kind,
                limit=f"{MAX_CELLS:,}",
            )

    def text(self, n: int) -> None:
        self.chars += n
        if self.chars > self.max_chars:
            raise FileTooLarge(
                gettext_noop(
                    "the %(kind)s file reads as more than %(limit)s characters of text (twice RAG_MAX_UPLOAD_BYTES);"
                    " split it into smaller files"
                ),
                kind=self.kind,
                limit=f"{self.max_chars:,}",
            )


def parse_xlsx(data: bytes) -> ParsedDocument:
    check_package(data, kind="Excel", ext=".xlsx", required="[Content_Types].xml")
    with library_errors("Excel"):
        import openpyxl

        workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
        try:
            out = TextBuilder()
            budget = _Budget("Excel")
            for sheet in workbook.worksheets:
                if not hasattr(sheet, "iter_rows"):
                    continue  # a chart sheet
                sheet.reset_dimensions()  # never trust the stored size: rows are read as they come
                _table(out, sheet.title, _xlsx_rows(sheet, budget), budget)
            title = one_line(workbook.properties.title or "") or None
        finally:
            workbook.close()
    return _document(out, title=title, mime=XLSX_MIME, kind="Excel")


def parse_csv(data: bytes) -> ParsedDocument:
    raw, encoding = decode(data)
    sample = raw[:65536]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=_CSV_DELIMITERS)
        if dialect.delimiter not in sample.split("\n", 1)[0]:
            dialect = csv.excel
    except csv.Error:
        dialect = csv.excel
    out = TextBuilder()
    budget = _Budget("CSV")
    reader = csv.reader(io.StringIO(raw, newline=""), dialect)
    try:
        _table(out, None, _csv_rows(reader, budget), budget)
    except csv.Error as exc:
        raise ParseError(
            gettext_noop("the CSV file is malformed (record %(record)s: %(error)s)"),
            record=reader.line_num,
            error=str(exc),
        ) from exc
    return _document(out, title=None, mime=CSV_MIME, kind="CSV", encoding=encoding)


def _document(
    out: TextBuilder, *, title: str | None, mime: str, kind: str, encoding: str | None = None
) -> ParsedDocument:
    text = out.text
    if not text:
        raise EmptyDocument(gettext_noop("the %(kind)s file has no cells with values"), kind=kind)
    blocks = out.blocks or [Block(0, len(text))]
    return ParsedDocument(text=text, blocks=blocks, title=title, mime=mime, encoding=encoding)


def _xlsx_rows(sheet: Any, budget: _Budget) -> Iterator[tuple[int, list[str], bool]]:
    """(row number, cell texts, whether every filled cell holds text) for each row of a sheet."""
    for number, row in enumerate(sheet.iter_rows(), start=1):
        values = [_format(cell.value, getattr(cell, "number_format", "") or "") for cell in row]
        budget.row(values)
        all_text = all(isinstance(cell.value, str) for cell in row if cell.value is not None)
        yield number, values, all_text


def _csv_rows(reader: Iterable[list[str]], budget: _Budget) -> Iterator[tuple[int, list[str], bool]]:
    for number, row in enumerate(reader, start=1):
        values = [cell_text(value) for value in row]
        budget.row(values)
        yield number, values, not any(_is_number(v) for v in values if v)


def _table(out: TextBuilder, sheet: str | None, rows: Iterable[tuple[int, list[str], bool]], budget: _Budget) -> None:
    """Records of one sheet into the text, in blocks of about a chunk, each with its row range."""
    target = cast(int, settings.RAG["CHUNK_TARGET"])
    header: list[str] | None = None
    header_number = 0
    seen_first = wrote = False
    group: list[str] = []
    size = first = last = 0

    def flush() -> None:
        nonlocal group, size, wrote
        if not group:
            return
        if sheet and not wrote:
            out.heading(sheet)
        wrote = True
        piece = "\n\n".join(group)
        budget.text(len(piece))
        rows_label = f"row {first}" if first == last else f"rows {first}-{last}"
        out.add(piece, section=f"{sheet} > {rows_label}" if sheet else rows_label, merge=False)
        group, size = [], 0

    for number, values, all_text in rows:
        while values and not values[-1]:
            values.pop()
        if not values:
            continue
        if not seen_first:
            seen_first = True
            if all_text:  # a first row of text alone names the columns
                header, header_number = [one_line(v) for v in values], number
                continue
        record = render_record(header or [], values)
        if group and size + 2 + len(record) > target:
            flush()
        if group:
            size += 2 + len(record)
        else:
            first, size = number, len(record)
        group.append(record)
        last = number
    flush()
    if not wrote and header is not None:  # a sheet of headers alone: they are its text
        group, first, last = [" | ".join(h for h in header if h)], header_number, header_number
        flush()


def _is_number(text: str) -> bool:
    try:
        float(text.replace(",", "").rstrip("%"))
    except ValueError:
        return False
    return True


def _format(value: Any, number_format: str) -> str:
    """A cell's value as the spreadsheet shows it, in the common formats."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return f"{value:,}" if "#,##" in number_format else str(value)
    if isinstance(value, float):
        if "%" in number_format:
            return f"{value * 100:.10g}%"
        if value.is_integer() and abs(value) < 1e15:
            return f"{int(value):,}" if "#,##" in number_format else str(int(value))
        return f"{value:.15g}"
    if isinstance(value, dt.datetime):
        if value.time() == dt.time(0, 0):
            return value.date().isoformat()
        return value.isoformat(sep=" ", timespec="seconds" if value.second else "minutes")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return str(value)
    return cell_text(str(value))
