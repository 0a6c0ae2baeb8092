"""Trial 37: a staff member's working morning judged for what the answers say and how (a helper asked about 125
questions of the demo corpus and of documents they uploaded, on the page, the API and the CLI). Each test is a defect
it found, asserting what a user expects; each failed on the code before its fix."""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer
from rag_app.services.ask import retrieval_text
from tests import factories
from tests.test_trial32d import V2, V3, cited


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
    assert cited(first) == {"licenses/acme-2"}
    follow = services.ask(user=staff_user, question=follow_up, parent=first)
    assert follow.state == Answer.State.ANSWERED, follow.reason
    assert cited(follow) == {"licenses/acme-3"}
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
    assert cited(first) == {"licenses/apache"}
    follow = services.ask(user=staff_user, question="And GPL 3?", parent=first)
    assert follow.state == Answer.State.ANSWERED, follow.reason
    assert cited(follow) == {"licenses/gpl-3"}


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
