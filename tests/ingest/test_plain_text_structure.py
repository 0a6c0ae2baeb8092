"""Plain text: hard-wrapped lines reflowed into paragraphs, headings found and used as section paths."""

from __future__ import annotations

from pathlib import Path

import pytest

from rag_app.ingest.parsers.text import parse_text, structure
from rag_app.pipeline.chunking import chunk_text
from rag_app.pipeline.textproc import split_sentences

ROOT = Path(__file__).resolve().parents[2]

WRAPPED = """\
                    EXAMPLE LICENSE

  0. Definitions.

  "This License" refers to version 3 of the License, and a covered work
means either the unmodified Program or a work based on the Program.  To
"grant" such a patent license to a party means to make such an agreement
or commitment not to enforce a patent against the party.

  1. Source Code.

  The "source code" for a work means the preferred form of the work for
making modifications to it.  "Object code" means any non-source form of
a work, and it is used here for the sake of the example in this test.
"""


def test_wrapped_lines_join_into_whole_sentences() -> None:
    text, _ = structure(WRAPPED)
    sentences = split_sentences(text)
    assert (
        'To "grant" such a patent license to a party means to make such an agreement or commitment not to '
        "enforce a patent against the party." in sentences
    )
    assert not any(s.endswith(("a", "covered work", "to")) for s in sentences)


def test_headings_become_the_section_path_and_leave_the_body() -> None:
    text, blocks = structure(WRAPPED)
    sections = [b.section for b in blocks]
    assert sections == ["EXAMPLE LICENSE > 0. Definitions", "EXAMPLE LICENSE > 1. Source Code"]
    body = text[blocks[1].start : blocks[1].end]
    assert body.startswith('The "source code" for a work') and "Source Code." not in body
    for chunk in chunk_text(text, blocks):
        assert text[chunk.start : chunk.end] == chunk.text


def test_a_numbered_clause_that_starts_a_paragraph_is_not_a_heading() -> None:
    source = (
        "  0. This License applies to any program or other work which contains\n"
        "a notice placed by the copyright holder saying it may be distributed\n"
        'under the terms of this General Public License.  The "Program", below,\n'
        'refers to any such program or work, and a "work based on the Program"\n'
        "means either the Program or any derivative work under copyright law.\n"
    )
    text, blocks = structure(source)
    assert [b.section for b in blocks] == [None]
    assert "\n" not in text


@pytest.mark.parametrize(
    "heading",
    [
        "第三条 退款期限",
        "一、总则",
        "（二）适用范围",
        "Section 5. Submission of Contributions",
        "11. Patents.",
        "TERMS AND CONDITIONS",
    ],
)
def test_heading_styles_of_both_languages(heading: str) -> None:
    body = "这是正文的第一句话，说明规则的内容。" if not heading.isascii() else "This is the body of the clause."
    _, blocks = structure(f"{heading}\n\n{body}\n")
    assert blocks[0].section == heading.rstrip(".")


def test_short_lines_that_end_sentences_keep_their_breaks() -> None:
    zen = "\n".join(
        [
            "Beautiful is better than ugly.",
            "Explicit is better than implicit.",
            "Simple is better than complex.",
            "Complex is better than complicated.",
            "Flat is better than nested.",
            "Sparse is better than dense.",
            "Readability counts.",
        ]
    )
    text, _ = structure(zen)
    assert text == zen


def test_one_line_per_paragraph_text_is_not_reflowed() -> None:
    zh = "\n".join(["亚硫酸盐是一类化合物，" * 12 + "它们很常见。"] * 6)
    text, _ = structure(zh)
    assert text == zh


def test_wrapped_chinese_joins_without_a_space() -> None:
    lines = ["这是一段按固定宽度折行的中文文本，用来检查重排之后句子不会被切断，"] * 6 + ["最后一句在这里结束。"]
    text, _ = structure("\n".join(lines))
    assert "\n" not in text and " " not in text


def test_demo_gpl3_sections_and_sentences() -> None:
    parsed = parse_text((ROOT / "demo/licenses/gpl-3.0.txt").read_bytes())
    sections = {b.section for b in parsed.blocks}
    assert any(s and s.endswith("11. Patents") for s in sections)
    assert any(s and s.endswith("0. Definitions") for s in sections)
    sentences = split_sentences(parsed.text)
    assert any(s.startswith('To "grant" such a patent license to a party means') for s in sentences)


def test_a_short_hard_wrapped_paragraph_is_reflowed_too() -> None:
    """Four lines of one licence clause, pasted on their own: a quote must not stop at "which". An address
    or a short poem keeps its lines."""
    clause = (
        "5.3. In the event of termination under Sections 5.1 or 5.2 above, all\n"
        "end user license agreements (excluding distributors and resellers) which\n"
        "have been validly granted by You or Your distributors under this License\n"
        "prior to termination shall survive termination."
    )
    text, _ = structure(clause)
    assert "\n" not in text and "which have been validly granted" in text
    address = "51 Franklin Street, Fifth Floor,\nBoston, MA 02110-1301\nUSA"
    assert structure(address)[0] == address
    verse = "Beautiful is better than ugly.\nExplicit is better than implicit.\nSimple is better than complex."
    assert structure(verse)[0] == verse


def test_a_short_clause_under_its_heading_or_defined_term_is_reflowed() -> None:
    """A clause pasted with its heading, or a definition whose term stands on the first line, is still
    hard-wrapped: the short first line does not make the text look unwrapped."""
    clause = (
        "  11. Patents.\n\n"
        '  A "contributor" is a copyright holder who authorizes use under this\n'
        "License of the Program or a work on which the Program is based.  The\n"
        'work thus licensed is called the contributor\'s "contributor version".'
    )
    text, _ = structure(clause)
    assert text.startswith("11. Patents.\n\n")
    assert "authorizes use under this License of the Program" in text and text.count("\n") == 2
    definition = (
        '1.7. "Larger Work"\n'
        "    means a work that combines Covered Software with other material, in \n"
        "    a separate file or files, that is not Covered Software."
    )
    assert structure(definition)[0] == (
        '1.7. "Larger Work" means a work that combines Covered Software with other material, in a separate '
        "file or files, that is not Covered Software."
    )
    # A short first line that is no heading still reads as an address.
    address = "Jane Doe\nFree Software Foundation, 51 Franklin Street, Fifth Floor\nBoston"
    assert structure(address)[0] == address


def test_a_shouted_disclaimer_is_one_paragraph() -> None:
    """A capitals line after a capitals line that runs on continues the sentence; it is no heading."""
    text, _ = structure(
        "  15. Disclaimer of Warranty.\n\n"
        "  THERE IS NO WARRANTY FOR THE PROGRAM, TO THE EXTENT PERMITTED BY\n"
        "APPLICABLE LAW.  EXCEPT WHEN OTHERWISE STATED IN WRITING THE COPYRIGHT\n"
        'HOLDERS AND/OR OTHER PARTIES PROVIDE THE PROGRAM "AS IS" WITHOUT WARRANTY\n'
        "OF ANY KIND, EITHER EXPRESSED OR IMPLIED.\n"
    )
    assert "PERMITTED BY APPLICABLE LAW.  EXCEPT WHEN OTHERWISE STATED IN WRITING THE COPYRIGHT HOLDERS" in text
    assert "THERE IS NO WARRANTY FOR THE PROGRAM, TO THE EXTENT PERMITTED BY APPLICABLE LAW." in split_sentences(text)
