"""Which documents a question names by title (pipeline/naming.py): the words, initials and version."""

from __future__ import annotations

import pytest

from rag_app.pipeline.naming import mentions, named_titles

GPL1 = "GNU General Public License, version 1"
GPL2 = "GNU General Public License, version 2"
GPL3 = "GNU General Public License, version 3"
LGPL2 = "GNU Library General Public License, version 2"
LGPL21 = "GNU Lesser General Public License, version 2.1"
LGPL3 = "GNU Lesser General Public License, version 3"
GFDL13 = "GNU Free Documentation License, version 1.3"
APACHE = "Apache License, Version 2.0"
ARTISTIC = 'The "Artistic License" (Perl)'
CC0 = "CC0 1.0 Universal"
PEP20 = "PEP 20 – The Zen of Python"
MIT_OCW = "MIT OpenCourseWare"
SDWU = "山东女子学院"
NBA = "2008年NBA总决赛"
TOP = "Time Off Policy"
LONDON = "London Office Guide"
SHANGHAI = "上海办公室指南"
BENEFITS = "Employee Benefits Guide 2025"
TITLES = [
    TOP,
    LONDON,
    SHANGHAI,
    BENEFITS,
    "Travel Policy",
    "差旅政策",
    "FAQ",
    "Windows 10",
    "ISO 8601:2004",
    GPL1,
    GPL2,
    GPL3,
    LGPL2,
    LGPL21,
    LGPL3,
    GFDL13,
    APACHE,
    ARTISTIC,
    CC0,
    PEP20,
    MIT_OCW,
    SDWU,
    NBA,
    None,
    "",
]


@pytest.mark.parametrize(
    ("question", "named"),
    [
        # Initials, with the version the question gives: the Library GPL writes "GPL" and "version 2" too.
        ("Under GPL v2 am I allowed to charge someone for giving them a copy?", {GPL2}),
        ("GPL第二版是什么时候发布的？", {GPL2}),
        ("GPL第三版里说的“传递”（convey）具体指什么？", {GPL3}),
        ("Can I relicense LGPLv3 code?", {LGPL3}),
        ("Is LGPL-2.1 the same as LGPL 2?", {LGPL21, LGPL2}),
        ("What does the GFDL 1.3 say about an MMC?", {GFDL13}),
        ("What does the FDL say about an MMC?", {GFDL13}),
        # A version in English words (text2num reads them as digits), only where the question says "version".
        ("When was the very first version of the GNU GPL released?", {GPL1}),
        ("Is GPL version two compatible with Apache?", {GPL2}),
        ("What changed in the third edition of the GFDL?", set()),
        ("Does one of the GPL versions allow this?", {GPL1, GPL2, GPL3}),
        ("First, does the GPL allow selling copies?", {GPL1, GPL2, GPL3}),
        # An ordinal counts only when no version is given otherwise.
        ("Is the first release of GPL version 3 dated 2007?", {GPL3}),
        # Several versions after the plural, in digits or words.
        ("Do GPL versions 2 and 3 both allow selling copies?", {GPL2, GPL3}),
        ("Is the warranty clause the same in GPL versions two or three?", {GPL2, GPL3}),
        ("Do versions 1, 2 and 3 of the GPL differ on warranty?", {GPL1, GPL2, GPL3}),
        ("Is the LGPL in versions 2.1 and 3. a library licence?", {LGPL21, LGPL3}),
        ("Were the GPL versions 3 years apart?", {GPL1, GPL2, GPL3}),  # one number after the plural is no list
        ("Do GPL versions 2 and 3, 2007 and 1991, differ?", {GPL2, GPL3}),  # a year is no version
        ("Is GPL version \ud800 two still used?", {GPL1, GPL2, GPL3}),  # text2num cannot read a lone surrogate
        # No number: every version.
        ("Does the GPL allow selling copies?", {GPL1, GPL2, GPL3}),
        # A number neither beside the name nor given as a version is no version ("30" of "30 days").
        ("Does the GPL give 30 days to cure a violation?", {GPL1, GPL2, GPL3}),
        ("Does section 2 of GPL v3 allow this?", {GPL3}),
        ("Is GPL 2.0 older than the GPL version 3?", {GPL2, GPL3}),
        # The words of the name, whole; "2" is "2.0".
        ("Does the Apache License grant a patent license?", {APACHE}),
        ("Apache License 2 的专利条款是什么？", {APACHE}),
        ("Does the Artistic License come with any warranty?", {ARTISTIC}),
        ("Is a license artistic?", set()),
        # A name written in capitals or with a digit is named by those words; its digit is no version.
        ("Is CC0 revocable?", {CC0}),
        ("What does PEP 20 say about readability?", {PEP20}),
        ("What does PEP 8 say about readability?", set()),
        ("What does the Zen of Python say about errors?", {PEP20}),
        ("Which courses does MIT OpenCourseWare publish?", {MIT_OCW}),
        ("Which courses does MIT publish?", set()),
        ("Which GNU licences allow linking?", set()),  # "GNU" alone names none of them
        ("Does the Apache foundation run it?", set()),  # one plain word names nothing
        ("What is the top speed?", set()),  # initials are written in capitals: no "Time Off Policy"
        ("Is the TOP generous?", {TOP}),
        ("Can I get a refund within 10 days?", set()),  # a number alone names no "Windows 10"
        ("What changed in 2004?", set()),  # "ISO 8601:2004" is one name
        # First words and the initials of the rest; a name written inside another's is the longer one's.
        ("Is the GNU GPL a copyleft licence?", {GPL1, GPL2, GPL3}),
        ("GNU 库通用公共许可证（Library GPL）第2版是什么时候发布的？", {LGPL2}),
        ("Why is it called the 'Lesser' GPL?", {LGPL21, LGPL3}),
        ("Is the Lesser GPL v3 compatible with the GPL v3?", {LGPL3, GPL3}),
        # Chinese titles as they stand.
        ("山东女子学院现任校长是谁", {SDWU}),
        ("2008年NBA总决赛的MVP是谁？", {NBA}),
        ("女子学院有几个？", set()),
        # A title less the word that says what kind of document it is, when what is left names something: two words,
        # or four characters.
        ("What time does the London office open?", {LONDON}),
        ("上海办公室几点开门？周末能进吗", {SHANGHAI}),
        ("Which employee benefits does the 2025 guide list?", {BENEFITS}),
        ("How much time off do I get?", {TOP}),
        ("Is travel reimbursed?", set()),  # "Travel" alone: one word
        ("差旅怎么报销？", set()),  # 差旅 alone: two characters
        ("Where is the FAQ?", {"FAQ"}),  # a genre word alone is the whole name, as written
        ("Is there an office guide?", set()),
    ],
)
def test_named_titles(question: str, named: set[str]) -> None:
    assert named_titles(question, TITLES) == named


@pytest.mark.parametrize(
    ("text", "titles", "expected"),
    [
        # The passage speaks of the named document by any of its names, whatever version it gives.
        ("The Artistic License comes with no warranty.", [ARTISTIC], True),
        ("You may also use the GNU GPL version 3 for this.", [GPL2], True),
        ("GNU Lesser General Public License: this license applies to libraries.", [GPL2], False),
        ("Gnomovision comes with ABSOLUTELY NO WARRANTY.", [ARTISTIC], False),
        ("山东女子学院是一所公办本科院校。", [SDWU], True),
        ("山东大学是一所公办本科院校。", [SDWU], False),
        ("Visitors sign in at the London office reception.", [LONDON], True),
        ("Visitors sign in at the reception.", [LONDON], False),
    ],
)
def test_mentions(text: str, titles: list[str], expected: bool) -> None:
    assert mentions(text, titles) is expected


def test_a_follow_up_is_searched_with_the_earlier_questions_numbers_whole() -> None:
    """A user trial: "Who approves it?" after "Who approves a 12,000元 expense claim?" was searched with "12 000 元",
    and "000元" was read as the sum it offers ("states no amount such as 000"). A number in thousands is one word as
    the question writes it; its pieces stay where the question writes them as numbers of their own."""
    from rag_app.pipeline.answerability import _offered_only, identifiers
    from rag_app.pipeline.naming import retrieval_text
    from rag_app.pipeline.textproc import query_words

    text = retrieval_text("Who approves it?", ["Who approves a 12,000元 expense claim?"])
    assert _offered_only(text) == (("12000", "money"),) and identifiers(text) == []
    assert query_words("Do I keep 12 months of 12,000 records?") == ["keep", "12,000", "12", "months", "records"]
