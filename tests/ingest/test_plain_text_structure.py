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


def _sections(source: str) -> list[str | None]:
    return [b.section for b in structure(source)[1]]


def test_gnu_news_outline_headings_give_section_paths() -> None:
    """GNU NEWS files mark headings Emacs-outline style ("* release", "** Bug fixes"); elsewhere a "* " line
    is a bullet."""
    news = (
        "GNU diffutils NEWS                                    -*- outline -*-\n\n"
        "* Noteworthy changes in release 3.10 (2023-05-21) [stable]\n\n"
        "** Bug fixes\n\n"
        '  cmp -bl no longer omits "-" when it outputs a byte that is a\n'
        "  negative number.\n\n"
        "** New features\n\n"
        "  diff now accepts two new options --color and --palette.\n"
    )
    text, blocks = structure(news)
    release = "Noteworthy changes in release 3.10 (2023-05-21) [stable]"
    assert [b.section for b in blocks] == [None, f"{release} > Bug fixes", f"{release} > New features"]
    body = text[blocks[1].start : blocks[1].end]
    assert body == 'cmp -bl no longer omits "-" when it outputs a byte that is a negative number.'
    assert _sections("What changed:\n\n* faster start\n\n* smaller files\n") == [None]


def test_a_divider_line_is_neither_a_heading_nor_body_text() -> None:
    """A line of rule characters under a title (the MPL 1.1's centred "-----") names no section and is
    in no chunk."""
    source = (
        "                          MOZILLA PUBLIC LICENSE\n"
        "                                Version 1.1\n\n"
        "                              ---------------\n\n"
        "1. Definitions.\n\n"
        '     1.0.1. "Commercial Use" means distribution or otherwise making the\n'
        "     Covered Code available to a third party.\n"
    )
    text, blocks = structure(source)
    assert [b.section for b in blocks] == ["MOZILLA PUBLIC LICENSE", "MOZILLA PUBLIC LICENSE > 1. Definitions"]
    assert not any("---" in c.text for c in chunk_text(text, blocks))


def test_setext_underline_needs_a_title_over_it() -> None:
    """A rule that closes a box of lines is not an underline: only the first line of a paragraph is
    underlined into a title."""
    source = (
        "Interface changes relative to the 1.5.x series:\n"
        "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
        " gcry_pk_get_curve          NEW.\n"
        " GCRYCTL_DISABLE_HWF        NEW.\n"
        " gcry_kdf_derive            NEW.\n"
        "~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\n"
    )
    text, blocks = structure(source)
    assert [b.section for b in blocks] == ["Interface changes relative to the 1.5.x series:"]
    assert "GCRYCTL_DISABLE_HWF        NEW.\n" in text[blocks[0].start : blocks[0].end]


@pytest.mark.parametrize("line", ["PNG_COLOR_TYPE_GRAY", "CPPFLAGS=-DPNG_NO_FLOATING_ARITHMETIC", "TARGET: A = B"])
def test_a_capitals_line_of_code_is_no_heading(line: str) -> None:
    assert _sections(f"The value is set as follows.\n\n{line}\n\nThen the build runs.\n") == [None]


def test_a_lettered_list_is_not_a_run_of_headings() -> None:
    """The GFDL's "H. Include an unaltered copy of this License." is an item of a list from A. to O."""
    source = (
        "4. MODIFICATIONS\n\n"
        "G. Preserve in that license notice the full lists of Invariant Sections\n"
        "   and required Cover Texts given in the Document's license notice.\n"
        "H. Include an unaltered copy of this License.\n"
        'I. Preserve the section Entitled "History", Preserve its Title, and add\n'
        "   to it an item stating at least the title, year, new authors, and\n"
        "   publisher of the Modified Version as given on the Title Page.\n"
    )
    text, blocks = structure(source)
    assert [b.section for b in blocks] == ["4. MODIFICATIONS"]
    assert "\nH. Include an unaltered copy of this License.\nI. Preserve the section" in text


def test_numbered_title_over_a_numbered_subtitle_keeps_both() -> None:
    """Numbered one-line paragraphs of the same depth in a row are a list; a title over a sub-title is not."""
    source = "4. Fees\n\n4.1 Monthly fees\n\nThe monthly fee is due on the first day of each month.\n"
    assert _sections(source) == ["4. Fees > 4.1 Monthly fees"]


def test_short_chinese_lines_are_not_wrapped_lines() -> None:
    """Display width counts a Chinese character as two columns, but verse of five characters is still short."""
    poem = "床前明月光\n疑是地上霜\n举头望明月\n低头思故乡"
    assert structure(poem)[0] == poem


BOXED = """\
5.3. In the event of termination under Sections 5.1 or 5.2 above, all
end user license agreements (excluding distributors and resellers) which
have been validly granted by You or Your distributors under this License
prior to termination shall survive termination.

************************************************************************
*                                                                      *
*  6. Disclaimer of Warranty                                           *
*  -------------------------                                           *
*                                                                      *
*  Covered Software is provided under this License on an "as is"       *
*  basis, without warranty of any kind, either expressed, implied, or  *
*  statutory. The entire risk as to the quality and performance of     *
*  the Covered Software is with You.                                   *
*                                                                      *
************************************************************************

************************************************************************
*                                                                      *
*  7. Limitation of Liability                                          *
*  --------------------------                                          *
*                                                                      *
*  Under no circumstances and under no legal theory, whether tort      *
*  (including negligence), contract, or otherwise, shall any           *
*  Contributor be liable to You for any direct, indirect, special,     *
*  incidental, or consequential damages of any character.              *
*      An indented note keeps its indentation inside the box.          *
*                                                                      *
************************************************************************

8. Litigation
-------------

Any litigation relating to this License may be brought only in the
courts of a jurisdiction where the defendant maintains its principal
place of business.
"""


def _box(lines: list[str], *, side: str, border: str, indent: str = "") -> str:
    """Lines in a frame: `side` on both ends of each (padded to one width in display columns, a Chinese
    character two), `border` (or that character repeated) above and below."""
    widths = [len(ln) + sum(1 for ch in ln if ord(ch) > 0x2E80) for ln in lines]
    width = max(widths)
    framed = [f"{indent}{side} {ln}{' ' * (width - w)} {side}" for ln, w in zip(lines, widths, strict=True)]
    top = indent + (border if len(border) > 1 else border * (width + 4))
    return "\n".join([top, *framed, top])


NOTE = ["NOTE: back up the data directory and the settings file", "before you run the upgrade on the server."]
BOXES = [
    _box(NOTE, side="|", border="+" + "-" * 57 + "+"),
    _box(NOTE, side="#", border="#"),
    _box(
        ["注意：升级之前请先备份数据目录和配置文件，然后再在", "服务器上运行升级程序。"],
        side="|",
        border="=",
        indent="  ",
    ),
]


def test_a_framed_block_is_read_without_its_frame() -> None:
    """The MPL 2.0 boxes sections 6 and 7 in a frame of asterisks: the frame is in no chunk, the boxed
    lines are reflowed and their underlined headings name their sections."""
    text, blocks = structure(BOXED)
    assert "*" not in text
    assert [b.section for b in blocks] == [
        None,
        "6. Disclaimer of Warranty",
        "7. Limitation of Liability",
        "8. Litigation",
    ]
    sentences = split_sentences(text[blocks[2].start : blocks[2].end])
    assert sentences[0] == (
        "Under no circumstances and under no legal theory, whether tort (including negligence), contract, or "
        "otherwise, shall any Contributor be liable to You for any direct, indirect, special, incidental, or "
        "consequential damages of any character."
    )
    assert "\n    An indented note keeps its indentation inside the box." in text
    assert 'Covered Software is provided under this License on an "as is" basis, without warranty' in text


@pytest.mark.parametrize("box", BOXES)
def test_other_frames_and_a_chinese_box_are_taken_off(box: str) -> None:
    """Frames of | and #, borders of + - + or =, an indented box, and a box whose width is in display
    columns (a Chinese character takes two)."""
    text, _ = structure(f"Before the upgrade.\n\n{box}\n\nAfter the upgrade.\n")
    assert "|" not in text and "#" not in text and "===" not in text and "---" not in text
    assert "the settings file before you run the upgrade" in text or "配置文件，然后再在服务器上运行" in text


@pytest.mark.parametrize(
    "source",
    [
        # Markdown-ish bullets: no closing frame character.
        "***********************\n* first item\n* second item\n* third item\n***********************\n",
        # A C comment block: a leading space and no closing frame character.
        "/**********************\n * Frees the buffer.\n * Returns nothing.\n **********************/\n",
        # A table: several '|' per line are columns, not a frame.
        "|------|------|-------|\n| name | size | owner |\n| a.c  | 12   | root  |\n|------|------|-------|\n",
        "-----------------------\n| name | size | owner |\n| a.c  | 12   | root  |\n-----------------------\n",
        # A single '*' line, and framed-looking lines with no border as wide as they are.
        "*\n",
        "***\n* item **bold** *\n* two  **more** *\n",
        "*  Important: this line is starred at both ends.  *\n*  So is this one, though no border frames them.  *\n",
    ],
)
def test_what_only_looks_framed_keeps_its_characters(source: str) -> None:
    text, _ = structure(source)
    kept = [c for c in source if c in "*|#"]
    assert [c for c in text if c in "*|#"] == kept


def test_mpl_2_0_boxed_sections() -> None:
    path = Path("/usr/share/common-licenses/MPL-2.0")
    if not path.exists():
        pytest.skip("no /usr/share/common-licenses/MPL-2.0 here")
    parsed = parse_text(path.read_bytes())
    chunks = chunk_text(parsed.text, parsed.blocks)
    assert not any("*  " in c.text or "  *" in c.text for c in chunks)
    sections = [b.section or "" for b in parsed.blocks]
    assert any(s.endswith("> 6. Disclaimer of Warranty") for s in sections)
    liability = next(b for b in parsed.blocks if (b.section or "").endswith("> 7. Limitation of Liability"))
    assert split_sentences(parsed.text[liability.start : liability.end])[0] == (
        "Under no circumstances and under no legal theory, whether tort (including negligence), contract, or "
        "otherwise, shall any Contributor, or anyone who distributes Covered Software as permitted above, be "
        "liable to You for any direct, indirect, special, incidental, or consequential damages of any character "
        "including, without limitation, damages for lost profits, loss of goodwill, work stoppage, computer "
        "failure or malfunction, or any and all other commercial damages or losses, even if such party shall "
        "have been informed of the possibility of such damages."
    )
    assert structure(parsed.text)[0] == parsed.text


IDEMPOTENT_CASES = [
    WRAPPED,
    "LEAVE POLICY\n\nEmployees accrue twenty days of paid annual leave per calendar year, and\n"
    "unused leave may be carried over.\nEXPENSES\nTravel expenses are reimbursed within thirty days of the\n"
    "submission of a complete claim, provided that every receipt is attached.\n",
    "第一章 总则\n第一条 为了规范公司员工的休假管理，保障员工的合法权益，根据国家有关法律法规，结合本公司实\n"
    "际情况，制定本办法。\n第二章 年休假\n第三条 员工累计工作已满一年不满十年的，年休假五天。\n",
    "Installation\n============\n\nRun make install in the top directory of the source tree once the\n"
    "configure script has finished.\n",
    "1. Leave Policy\nEmployees accrue twenty days of paid annual leave per calendar year.\n",
    "What: fallback of dpkg-source to source format 1.0\nStatus: deprecated\nWhen: 1.17.x\nWarning: program\nWhy:\n"
    " With the support of multiple source formats, the user should be explicit\n"
    " about the desired source format. The fallback to 1.0 is there only for\n"
    " backwards compatibility but will be removed once all packages have the\n debian/source/format file.\n",
    BOXED,
    *BOXES,
]


@pytest.mark.parametrize("source", IDEMPOTENT_CASES)
def test_structure_is_idempotent_on_its_own_output(source: str) -> None:
    """`rag_reindex --reparse` parses stored text again: what the parser wrote must read the same."""
    text, blocks = structure(source)
    again, blocks_again = structure(text)
    assert again == text
    assert [(b.start, b.end, b.section) for b in blocks_again] == [(b.start, b.end, b.section) for b in blocks]


def test_a_title_over_a_shouted_heading_stays_above_it_in_the_section_path():
    """A title line over a level-1 heading in the same paragraph ("Security Handbook" / "PASSWORDS") is the heading's
    parent, not replaced by it: its words had been lost from every block (found by hypothesis in
    tests/test_review27_diff.py: "alpha" / "WARRANTY")."""
    _, blocks = structure("Security Handbook\nPASSWORDS\n\nPasswords must be long.")
    assert [b.section for b in blocks] == ["Security Handbook > PASSWORDS"]
    assert parse_text(b"Security Handbook\nPASSWORDS\n\nPasswords must be long.").title == "Security Handbook"
    _, blocks = structure("alpha\nWARRANTY\n\nClosing text here.")
    assert [b.section for b in blocks] == ["alpha > WARRANTY"]
