"""Trial 37: a staff member's working morning judged for what the answers say and how (a helper asked about 125
questions of the demo corpus and of documents they uploaded, on the page, the API and the CLI). Each test is a defect
it found, asserting what a user expects; each failed on the code before its fix."""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.generation.extractive import ExtractiveGenerator
from rag_app.models import Answer
from rag_app.pipeline.assembly import assemble
from rag_app.pipeline.chunking import chunk_text
from rag_app.pipeline.records import Assembly, ChunkRecord
from rag_app.services.ask import retrieval_text
from tests import factories
from tests.factories import cited_sources
from tests.test_trial32d import V2, V3


@pytest.mark.parametrize(
    ("follow_up", "earlier", "searched"),
    [
        ("And version 3?", "When did the GPL v2 come out?", "And version 3?\nWhen did the GPL come out?"),
        ("And v3?", "When did the GPL v2 come out?", "And v3?\nWhen did the GPL come out?"),
        ("And GPLv3?", "When was GPLv2 released?", "And GPLv3?\nWhen was GPL released?"),
        ("And version 2?", "When was GPL version 3 released?", "And version 2?\nWhen was GPL version released?"),
        # ... and its names when it names another subject (not a version only)
        (
            "And GPL 3?",
            "Does the Apache license grant a patent license?",
            "And GPL 3?\nDoes the license grant a patent license?",
        ),
        ("那 GPL 呢？", "Apache 许可证有专利授权吗？", "那 GPL 呢？\n许可证有专利授权吗？"),
        (
            "And the Zephyr licence?",
            "Who may use the ACME licence?",
            "And the Zephyr licence?\nWho may use the licence?",
        ),
        # ... but not a place, a year or a count the follow-up swaps (the review of this session's changes)
        (
            "And in the NYC office?",
            "When is the VPN maintenance window?",
            "And in the NYC office?\nWhen is the VPN maintenance window?",
        ),
        ("And in 2024?", "What changed in the v2 API in 2023?", "And in 2024?\nWhat changed in the v2 API in ?"),
        (
            "And for 10 users?",
            "What does the v2 plan cost for 5 users?",
            "And for 10 users?\nWhat does the v2 plan cost for users?",
        ),
        (
            "And for contractors?",
            "Does the NDA apply to employees?",
            "And for contractors?\nDoes the NDA apply to employees?",
        ),
    ],
)
def test_a_follow_up_naming_its_own_version_drops_the_earlier_questions_however_it_is_written(
    follow_up, earlier, searched
):
    """ "v2" and "GPLv2" name a version as "version 2" does: "And version 3?" after "When did the GPL v2 come out?"
    was searched with v2 still in it and answered with version 2's date."""
    assert retrieval_text(follow_up, (earlier,)) == searched


@pytest.mark.django_db
@pytest.mark.parametrize("earlier", ["When did the ACME Public License v2 come out?", "When was ACME v2 released?"])
@pytest.mark.parametrize("follow_up", ["And version 3?", "And v3?"])
def test_a_follow_up_asking_of_another_version_is_answered_from_it(levels, staff_user, earlier, follow_up):
    factories.ingest_text(V2, source_id="licenses/acme-2", level="official")
    factories.ingest_text(V3, source_id="licenses/acme-3", level="official")
    first = services.ask(user=staff_user, question=earlier)
    assert cited_sources(first) == {"licenses/acme-2"}
    follow = services.ask(user=staff_user, question=follow_up, parent=first)
    assert follow.state == Answer.State.ANSWERED, follow.reason
    assert cited_sources(follow) == {"licenses/acme-3"}
    assert "29 June 2007" in " ".join(p.text for p in follow.paragraphs.all())


SERIES = (
    "2008年NBA总决赛是2007-08 NBA赛季的最后一个系列赛，由东部联盟冠军波士顿塞尔特人与西部联盟冠军洛杉矶湖人对决。"
    "比赛采用七场四胜制2-3-2的形式，常规赛成绩较优的波士顿凯尔特人（66–16）将获得多一个主场的优势，系列赛的第一、二、六"
    "（如果需要），七（如果需要）场比赛在他们主场进行，而本年亦是自1997年以来，东部联盟冠军首次拥有主场优势。本届总决赛戏码"
    "是继1987年以后，再一次由凯尔特人及湖人对决，亦是历史上2支夺得总冠军次数最多的球队对叠，被人誉为「梦幻对决」。"
    "在第四场比赛中，凯尔特人一度落后24分，最终逆转取胜。"
)


def test_a_related_passage_shows_the_sentences_that_hold_the_questions_words():
    """A related passage longer than the excerpt showed its chunk's opening ("2008年NBA总决赛是…", cut at "梦幻…"), so
    the sentence it was found by ("…落后24分…") was never in sight; the excerpt is now the whole sentences around the
    one holding most of the question's words, marked "…" where the chunk goes on."""
    from rag_app.presentation import EXCERPT_CHARS, related_excerpt

    shown = related_excerpt(SERIES, "第四场落后多少分逆转的")
    assert "在第四场比赛中，凯尔特人一度落后24分，最终逆转取胜。" in shown
    assert shown.startswith("…") and len(shown) <= EXCERPT_CHARS + 2
    opening = related_excerpt(SERIES, "What does CC0 do?")  # nothing held: the chunk's opening, whole sentences
    assert opening.startswith("2008年NBA总决赛是") and opening.endswith("。…")
    assert related_excerpt("A short passage.", "anything") == "A short passage."


APACHE = (
    "APACHE LICENSE\n\nEach Contributor hereby grants to You a perpetual, worldwide, royalty-free patent license to "
    "make, use and sell the Work.\n"
)
GPL3 = (
    "GNU GENERAL PUBLIC LICENSE\nVersion 3\n\nEach contributor grants you a non-exclusive, worldwide, royalty-free "
    "patent license under the contributor's essential patent claims.\n"
)


@pytest.mark.django_db
def test_a_follow_up_naming_another_licence_is_answered_from_it(levels, staff_user):
    """ "And GPL 3?" after "Does the Apache license grant a patent license?" was searched with "Apache" still in it:
    no_evidence, every related passage the Apache License's ("None of the related passages mentions GPL")."""
    factories.ingest_text(APACHE, source_id="licenses/apache", title="Apache License", level="official")
    factories.ingest_text(GPL3, source_id="licenses/gpl-3", title="GNU General Public License v3", level="official")
    first = services.ask(user=staff_user, question="Does the Apache license grant a patent license?")
    assert cited_sources(first) == {"licenses/apache"}
    follow = services.ask(user=staff_user, question="And GPL 3?", parent=first)
    assert follow.state == Answer.State.ANSWERED, follow.reason
    assert cited_sources(follow) == {"licenses/gpl-3"}


@pytest.mark.django_db
def test_a_plain_text_file_is_titled_by_the_heading_it_opens_with(levels):
    """A hard-wrapped checklist uploaded without a title was shown everywhere as its source_id ("hr/onboarding"),
    its first line only a section; a Markdown file's first heading was its title already."""
    from rag_app.models import Document

    text = "NEW EMPLOYEE ONBOARDING CHECKLIST\n\nNew employees receive their laptop\nfrom the IT service desk.\n"
    factories.ingest_text(text, source_id="hr/onboarding", file_name="onboarding.txt")
    assert Document.objects.get(source_id="hr/onboarding").title == "NEW EMPLOYEE ONBOARDING CHECKLIST"
    factories.ingest_text("1. Scope\n\nThis policy applies to all staff.\n", source_id="hr/scope", file_name="s.txt")
    assert Document.objects.get(source_id="hr/scope").title == ""  # a numbered clause names no document
    titled = factories.ingest_text(text, source_id="hr/titled", file_name="t.txt", title="Onboarding")
    assert titled is not None and Document.objects.get(source_id="hr/titled").title == "Onboarding"


# --------------------------------------------------------------- found by the review of this session's changes


def test_a_bound_is_read_alike_however_the_negation_is_placed():
    from rag_app.pipeline.conflict import Statement, compare, negated

    assert not negated("Employees may not work more than 40 hours a week.")
    assert not negated("Employees may work no more than 40 hours a week.")
    a = Statement("S1", "a", "You may not claim more than $500 per trip.")
    b = Statement("S2", "b", "You may claim no more than $500 per trip.")
    assert compare(a, b, "How much may I claim per trip?") is None


def test_a_question_asking_which_version_in_other_words_still_sees_versions_disagree():
    from rag_app.pipeline.conflict import Statement, compare

    a = Statement("S1", "build", "The build tool requires Python version 3.11 or later to run.")
    b = Statement("S2", "wiki", "The build tool requires Python version 3.8 or later to run.")
    assert compare(a, b, "Which Python version does the build tool require?") is not None
    assert compare(a, b, "How long does the build take?") is None  # no version asked: what tells them apart
    roman = ("The Bears won Super Bowl XX in New Orleans.", "The Bears won Super Bowl XXX in New Orleans.")
    assert compare(Statement("S1", "x", roman[0]), Statement("S2", "y", roman[1]), "Which Super Bowl did they win?")


def _one_passage(source_id: str, text: str) -> Assembly:
    record = ChunkRecord(chunk_id=f"{source_id}:v1:0", source_id=source_id, version=1, index=0, text=text, relevance=1)
    return assemble([record], budget_chars=10_000)


def test_a_list_is_quoted_whole_or_not_at_all_and_an_enumerated_item_stands_alone():
    meals = (
        "Meals are reimbursed up to $50 per day when travelling. The following expenses are not reimbursed:\n"
        "- alcohol\n- in-room movies\n- minibar purchases\n- laundry"
    )
    question = "Are meals reimbursed when travelling?"
    draft = ExtractiveGenerator().generate(question=question, assembly=_one_passage("exp", meals), language="en")
    assert draft.paragraphs[0].text == meals
    leaving = (
        "On leaving, the employee must: (1) notify the manager in writing; (2) return the laptop to the IT desk; "
        "(3) return the badge to reception; (4) complete the exit survey."
    )
    question = "Where does the employee return the laptop?"
    draft = ExtractiveGenerator(follow=False).generate(
        question=question, assembly=_one_passage("exit", leaving), language="en"
    )
    assert draft.paragraphs[0].text == "(2) return the laptop to the IT desk;"


def test_an_enumeration_cut_at_a_chinese_enumeration_comma_runs_on_into_its_next_chunk():
    names = "、".join(f"第{i}号成员单位" for i in range(1, 80))
    chunks = chunk_text(f"该联盟的创始成员包括{names}，共七十九家。")
    assert len(chunks) == 2 and chunks[0].text.endswith("、")
    records = [
        ChunkRecord(
            chunk_id=f"u:v1:{c.index}",
            source_id="u",
            version=1,
            index=c.index,
            text=c.text,
            relevance=0.8 - c.index / 10,
            start=c.start,
            end=c.end,
            language="zh",
        )
        for c in chunks
    ]
    assembly = assemble(records, budget_chars=10_000, per_source=2)
    draft = ExtractiveGenerator().generate(question="该联盟的创始成员包括哪些单位？", assembly=assembly, language="zh")
    assert draft.paragraphs[-1].text.endswith("共七十九家。")


def test_a_plain_texts_title_is_no_numbered_heading_and_carries_its_version_line():
    from rag_app.ingest.parsers.text import parse_text

    assert parse_text("第一章 总则\n\n第一条 为了规范管理，制定本办法。\n".encode()).title is None
    assert parse_text("一、总则\n\n为了规范管理。\n".encode()).title is None
    gpl = "GNU GENERAL PUBLIC LICENSE\nVersion 3, 29 June 2007\n\nEveryone is permitted to copy this document.\n"
    assert parse_text(gpl.encode()).title == "GNU GENERAL PUBLIC LICENSE, Version 3, 29 June 2007"


def test_a_connective_left_between_list_items_is_not_quoted_as_a_paragraph():
    """GPL 2's hard-wrapped "(b) …software interchange;" is followed by "or," on a line of its own (opening the next
    chunk), then "c) …": the quote ran on into "or," and showed it as a paragraph of its own, which states nothing."""
    item = (
        "b) Accompany it with a written offer, valid for at least three years, to give any third party a complete "
        "machine-readable copy of the corresponding source code;"
    )
    rest = "or,\n\nc) Accompany it with the information you received as to the offer to distribute source."
    first = ChunkRecord(chunk_id="gpl:v1:27", source_id="gpl", version=1, index=27, text=item, relevance=0.8,
                        start=0, end=len(item))  # fmt: skip
    second = ChunkRecord(chunk_id="gpl:v1:28", source_id="gpl", version=1, index=28, text=rest, relevance=0.5,
                         start=len(item) + 1, end=len(item) + 1 + len(rest))  # fmt: skip
    assembly = assemble([first, second], budget_chars=10_000, per_source=2)
    question = "How long must a written offer for the source code stay valid?"
    draft = ExtractiveGenerator().generate(question=question, assembly=assembly, language="en")
    shown = [p.text for p in draft.paragraphs]
    assert shown[0] == item and not any(text.startswith("or,") for text in shown), shown
