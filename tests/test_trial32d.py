"""Trial 32d: a staff member who holds long threads with the assistant (follow-ups on the page, the API and the CLI).

Each test is a defect found by using the running app (`make run`) as that person. Each was a strict xfail until it
was fixed.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from rag_app import services
from rag_app.models import Answer, Trace
from rag_app.pipeline.naming import stands_alone
from rag_app.pipeline.textproc import query_terms, swaps_subject
from rag_app.presentation import present_answer
from rag_app.services.ask import retrieval_text
from tests import factories

LICENSE = "License keys for contractors are issued by the IT desk on their first day."
PAYMENT = "Contractors are paid within 30 days of their invoice."


@pytest.mark.parametrize(
    "earlier",
    [
        "What does the license say?",
        "When was GPL version 3 released?",
        "Which expenses are reimbursed for employees?",
        "Is the licence under GPLv3 or the Apache License 2.0?",  # a British spelling, a name run into its version
        "GPL 第三版是什么时候发布的？",  # jieba's words are no stems: they always read back as themselves
    ],
)
def test_a_follow_up_is_searched_with_every_word_of_the_thread_it_builds_on(earlier):
    """What a follow-up is searched with holds the earlier question's search terms as that question gave them."""
    searched = set(query_terms(retrieval_text("And for contractors?", (earlier,))))
    assert set(query_terms(earlier)) <= searched, set(query_terms(earlier)) - searched


@pytest.mark.django_db
def test_a_follow_up_finds_the_passage_the_threads_word_names(levels, staff_user):
    factories.ingest_text(LICENSE, source_id="it/license-keys", level="official")
    factories.ingest_text(PAYMENT, source_id="finance/contractors", level="official")
    first = services.ask(user=staff_user, question="What does the license say?")
    follow = services.ask(user=staff_user, question="And for contractors?", parent=first)
    assert follow.state == Answer.State.ANSWERED, follow.reason
    assert factories.cited_sources(follow) == {"it/license-keys"}


TRAVEL = "Travel expenses are reimbursed within 30 days of the trip."


@pytest.mark.django_db
def test_a_follow_ups_no_evidence_panel_names_the_threads_words_it_searched_with(levels, staff_user):
    factories.ingest_text(TRAVEL, source_id="policy/travel", level="official")
    first = services.ask(user=staff_user, question="Within how many days are travel expenses reimbursed?")
    follow = services.ask(user=staff_user, question="And for interns?", parent=first)
    assert follow.state == Answer.State.NO_EVIDENCE, follow.state
    client = Client()
    client.force_login(staff_user)
    page = client.get(follow.get_absolute_url()).content.decode()
    searched = page[page.index("Search terms") :].split("</p>", 1)[0]
    assert "interns" in searched
    for word in ("travel", "expenses", "reimbursed"):
        assert word in searched, searched


@pytest.mark.django_db
def test_the_threads_words_are_named_apart_and_only_those_the_follow_up_does_not_say_itself(levels, staff_user):
    factories.ingest_text(TRAVEL, source_id="policy/travel", level="official")
    first = services.ask(user=staff_user, question="Are travel expenses of interns reimbursed?")
    assert first.state == Answer.State.NO_EVIDENCE
    assert present_answer(first, viewer=staff_user).thread_terms == []  # a first question has no thread
    follow = services.ask(user=staff_user, question="And the travel expenses of trainees?", parent=first)
    view = present_answer(follow, viewer=staff_user)
    assert view.searched_terms == ["travel", "expenses", "trainees"]
    assert view.thread_terms == ["interns", "reimbursed"]  # as the earlier question writes them, less the above
    client = Client(headers={"accept-language": "zh-hans"})
    client.force_login(staff_user)
    page = client.get(follow.get_absolute_url()).content.decode()
    assert "沿用上一个问题的词语" in page


def ask_cli(*args: str) -> str:
    out = StringIO()
    call_command("ask", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_command_line_follows_up_an_answer_as_the_page_and_the_api_do(levels, staff_user):
    factories.ingest_text(TRAVEL, source_id="policy/travel", level="official")
    first = services.ask(user=staff_user, question="Within how many days are travel expenses reimbursed?")
    data = json.loads(ask_cli("And for interns?", "--parent", str(first.pk), "--user", staff_user.username, "--json"))
    assert data["parent_id"] == first.pk
    assert Trace.objects.get(answer_id=data["id"]).settings_snapshot["thread"] == [first.question]
    text = ask_cli("And for interns?", "--parent", str(first.pk), "--user", staff_user.username)
    assert f"follow-up to answer {first.pk}: {first.question}" in text


@pytest.mark.django_db
def test_the_command_line_follows_up_only_an_answer_its_asker_may_see(levels, staff_user):
    factories.ingest_text(TRAVEL, source_id="policy/travel", level="official")
    other = factories.make_user("colleague")
    theirs = services.ask(user=other, question="Within how many days are travel expenses reimbursed?")
    before = Answer.objects.count()
    with pytest.raises(CommandError, match=f"no answer {theirs.pk} that {staff_user.username} may see"):
        ask_cli("And for interns?", "--parent", str(theirs.pk), "--user", staff_user.username)
    assert Answer.objects.count() == before


@pytest.mark.django_db
def test_the_system_follows_up_its_own_answers_only(levels, staff_user):
    """Without --user the question is the system's: it continues a thread the system asked, never a person's."""
    factories.ingest_text(TRAVEL, source_id="policy/travel", level="official")
    own = json.loads(ask_cli("Within how many days are travel expenses reimbursed?", "--json"))
    follow = json.loads(ask_cli("And for interns?", "--parent", str(own["id"]), "--json"))
    assert follow["parent_id"] == own["id"]
    staffs = services.ask(user=staff_user, question="Within how many days are travel expenses reimbursed?")
    with pytest.raises(CommandError, match=f"no answer {staffs.pk} that the system may see"):
        ask_cli("And for interns?", "--parent", str(staffs.pk))


V2 = (
    "ACME PUBLIC LICENSE\nVersion 2, June 1991\n\nEveryone is permitted to copy and distribute verbatim copies of this "
    "license document, but changing it is not allowed.\n\nThe licenses for most software are designed to take away "
    "your freedom to share and change it.\n"
)
V3 = (
    "ACME PUBLIC LICENSE\nVersion 3, 29 June 2007\n\nEveryone is permitted to copy and distribute verbatim copies of "
    "this license document, but changing it is not allowed.\n\nThe ACME Public License is a free, copyleft license "
    "for software and other kinds of works. Developers that use it protect your rights in two steps.\n"
)


@pytest.mark.django_db
def test_a_follow_up_that_only_swaps_the_subject_asks_what_the_earlier_question_asked(levels, staff_user):
    factories.ingest_text(V2, source_id="licenses/acme-2", level="official")
    factories.ingest_text(V3, source_id="licenses/acme-3", level="official")
    first = services.ask(user=staff_user, question="When was the ACME Public License version 3 released?")
    assert factories.cited_sources(first) == {"licenses/acme-3"}
    follow = services.ask(user=staff_user, question="And version 2?", parent=first)
    assert follow.state == Answer.State.ANSWERED, follow.reason
    assert factories.cited_sources(follow) == {"licenses/acme-2"}
    assert "June 1991" in " ".join(p.text for p in follow.paragraphs.all())


@pytest.mark.parametrize(
    ("follow_up", "swaps"),
    [
        ("And version 2?", True),
        ("What about contractors?", True),
        ("How about the GPL?", True),
        ("那第二版呢？", True),
        ("还有合同工呢？", True),
        ("Why?", False),  # asks its own question: searched with the thread's topic words only
        ("Who invented it?", False),
        ("Does it apply to contractors?", False),
        ("And who approves it?", False),
        ("那纸质单据交到哪里？", False),
        ("那有没有免费早餐？", False),  # "is there" asks of its own, as 吗 does
        ("Andrew?", True),  # a name alone (no "and" read off it, nothing that asks): another subject
        ("and whats the fee for contractors?", False),  # "whats" is "what's", as chat writes it
        ("and wheres the form?", False),
    ],
)
def test_which_follow_ups_ask_again_what_the_question_before_asked(follow_up, swaps):
    assert swaps_subject(follow_up) is swaps


@pytest.mark.parametrize(
    ("follow_up", "alone"),
    [
        ("Who may use the Zephyr licence?", True),  # a name the thread does not write, nothing that points back
        ("When was GPLv2 released?", True),
        ("Zephyr 许可证谁可以用？", True),  # a Chinese question's Latin name, first or not
        ("Who may use the ACME licence?", False),  # the thread's own subject
        ("Does it apply to Zephyr?", False),  # "it" points back
        ("And the Zephyr licence?", False),  # swaps the subject: asks the earlier question again
        ("那 Zephyr 呢？", False),
        ("Who approves travel?", False),  # no name: the thread's topic may be what it leaves unsaid
        ("Is version 4 out?", False),
        # A capital that names no document (found by the review of session 35): a month, a language, a quarter, the
        # first word of a second sentence.
        ("Is the deadline different in December?", False),
        ("Thanks. How long does approval take?", False),
        ("How many days can I carry over to Q2?", False),
        ("Can I submit the form in English?", False),
        ("Q4的截止日期是哪天？", False),
    ],
)
def test_which_follow_ups_are_searched_alone(follow_up, alone):
    earlier = ("When was the ACME Public License version 3 released?",)
    assert stands_alone(follow_up, earlier) is alone
    assert (retrieval_text(follow_up, earlier) == follow_up) is alone


def test_a_follow_up_naming_its_own_number_is_searched_without_the_earlier_ones():
    assert retrieval_text("And version 2?", ("When was GPL version 3 released?",)) == (
        "And version 2?\nWhen was GPL version released?"
    )
    assert retrieval_text("那第二版呢？", ("GPL 第三版是什么时候发布的？",)) == "那第二版呢？\nGPL 版是什么时候发布的？"
    # no number of its own: the earlier question's stay; a question of its own: the earlier topic words only
    assert retrieval_text("And for contractors?", ("Within 30 days of what?",)) == (
        "And for contractors?\nWithin 30 days of what?"
    )
    assert retrieval_text("Why?", ("When was GPL version 3 released?",)) == "Why?\nGPL version 3 released"


@pytest.mark.django_db
def test_a_follow_up_to_an_answer_one_may_not_read_is_refused_in_the_readers_language(levels, staff_user):
    factories.ingest_text(TRAVEL, source_id="policy/travel", level="official")
    theirs = services.ask(user=factories.make_user("colleague"), question="Are travel expenses reimbursed?")
    api = factories.token_client(staff_user)
    before = Answer.objects.count()
    for language, message in [
        ("en", "The answer this question follows up is not available."),  # the page's form says the same
        ("zh-hans", "所追问的回答不可用。"),
    ]:
        body = {"question": "And for interns?", "parent_id": theirs.pk}
        refused = api.post("/api/v1/ask", body, format="json", HTTP_ACCEPT_LANGUAGE=language)
        assert refused.status_code == 400, refused.content
        assert refused.json()["fields"] == {"parent_id": [message]}
    assert Answer.objects.count() == before


@pytest.mark.django_db
def test_a_replay_searches_as_the_follow_up_was_asked_after_its_parent_is_deleted(levels, staff_user, reviewer_user):
    from rag_app.models import Document
    from rag_app.services.answers import answer_replay
    from rag_app.services.documents import document_delete

    factories.ingest_text(TRAVEL, source_id="policy/travel", level="official")
    factories.ingest_text("Travel expenses are reimbursed within 10 days, says an old note.", source_id="notes/travel")
    first = services.ask(user=staff_user, question="Within how many days are travel expenses reimbursed?")
    follow = services.ask(user=staff_user, question="And for interns?", parent=first)
    assert "policy/travel" in factories.cited_sources(first)
    then = {c["source_id"] for c in Trace.objects.get(answer=follow).candidates}
    assert "notes/travel" in then
    document_delete(
        user=factories.make_admin(),
        document=Document.objects.get(source_id="policy/travel"),
        force=True,
    )
    follow.refresh_from_db()
    assert follow.parent_id is None  # the follow-up stays; its thread is in its trace
    rows, _ = answer_replay(answer=follow, user=reviewer_user, then={})
    assert {r.record.source_id for r in rows} == then - {"policy/travel"}


def _history(client: Client, query: str = "") -> str:
    return client.get("/history/" + query).content.decode()


@pytest.mark.django_db
def test_my_questions_are_searched_and_the_pages_keep_the_search(levels, staff_user):
    answers = [
        Answer.objects.create(user=staff_user, question=f"Parking question {i}?", state="no_evidence")
        for i in range(30)
    ]
    Answer.objects.create(user=staff_user, question="Wann ist das Büro offen?", state="no_evidence")
    Answer.objects.create(
        user=factories.make_user("colleague"), question="Parking for colleagues?", state="no_evidence"
    )
    client = Client()
    client.force_login(staff_user)
    page = _history(client, "?q=parking")
    assert 'name="q"' in page and 'value="parking"' in page
    assert "Wann ist" not in page and "Parking for colleagues" not in page  # only their own, only matches
    assert answers[-1].question in page and "page 1 of 2" in page
    assert "?q=parking&amp;page=2" in page  # the pager keeps the search
    second = _history(client, "?q=parking&page=2")
    assert answers[0].question in second
    assert "No question of yours matches" in _history(client, "?q=zebra")


@pytest.mark.django_db
def test_my_questions_are_found_in_either_chinese_script_or_width(levels, staff_user):
    """The search of "My questions" reads as the document search does (selectors._holding): a question typed in
    Traditional characters is found from Simplified words and back, "ＧＰＬ" finds "GPL", and a colleague's
    question is still never listed."""
    Answer.objects.create(user=staff_user, question="報銷申請要在幾天內提交？", state="no_evidence")
    Answer.objects.create(user=staff_user, question="GPL 第三版是什么时候发布的？", state="answered")
    Answer.objects.create(user=factories.make_user("colleague"), question="报销申请谁审批？", state="no_evidence")
    client = Client()
    client.force_login(staff_user)
    page = _history(client, "?q=报销申请")
    assert "報銷申請要在幾天內提交" in page and "谁审批" not in page
    assert "GPL 第三版" in _history(client, "?q=ＧＰＬ")
    assert "報銷申請" in _history(client, "?q=報銷")


@pytest.mark.django_db
def test_my_questions_say_which_question_a_follow_up_continues(levels, staff_user):
    factories.ingest_text(TRAVEL, source_id="policy/travel", level="official")
    first = services.ask(user=staff_user, question="Within how many days are travel expenses reimbursed?")
    follow = services.ask(user=staff_user, question="And for interns?", parent=first)
    client = Client()
    client.force_login(staff_user)
    page = _history(client)
    row = page[page.index(follow.get_absolute_url()) :].split("</tr>", 1)[0]
    assert "Follow-up to" in row and first.get_absolute_url() in row, row


@pytest.mark.django_db
def test_an_htmx_search_of_my_questions_swaps_the_list_alone_in_the_readers_language(levels, staff_user):
    Answer.objects.create(user=staff_user, question="Parking question?", state="no_evidence")
    client = Client(headers={"accept-language": "zh-hans"})
    client.force_login(staff_user)
    swapped = client.get("/history/?q=zebra", headers={"HX-Request": "true"}).content.decode()
    assert swapped.lstrip().startswith('<div id="history-list">') and "<html" not in swapped
    assert "没有与此搜索匹配的提问" in swapped
    assert "问题中的词语" in _history(client)


@pytest.mark.django_db
def test_a_follow_up_box_for_an_answer_one_may_not_read_says_so(levels, staff_user):
    theirs = Answer.objects.create(user=factories.make_user("colleague"), question="Secret plan?", state="no_evidence")
    client = Client()
    client.force_login(staff_user)
    for parent in (theirs.pk, 999999):
        page = client.get(f"/?parent={parent}").content.decode()
        assert "The answer this question follows up is not available." in page
        assert "Secret plan" not in page and f'value="{parent}"' not in page


@pytest.mark.django_db
def test_a_follow_up_that_changes_topic_is_not_answered_with_the_earlier_topic(levels, staff_user):
    """A follow-up that changes topic ('Who may use the Zephyr licence?' after a question on the ACME licence) was
    searched with the earlier topic too: the panel listed the ACME licence as related. A follow-up that names its own
    subject and points nowhere back is searched alone (textproc.stands_alone)."""
    factories.ingest_text(V3, source_id="licenses/acme-3", level="official")
    first = services.ask(user=staff_user, question="When was the ACME Public License version 3 released?")
    alone = services.ask(user=staff_user, question="Who may use the Zephyr licence?")
    follow = services.ask(user=staff_user, question="Who may use the Zephyr licence?", parent=first)
    assert alone.state == Answer.State.NO_EVIDENCE  # no document names the Zephyr licence
    assert (follow.state, follow.reason) == (alone.state, alone.reason)
    assert follow.trace.candidates == alone.trace.candidates  # searched as asked alone
    assert present_answer(follow, viewer=staff_user).related == present_answer(alone, viewer=staff_user).related
