"""Scoped questions and follow-up threads (services.ask with scope= and parent=)."""

from __future__ import annotations

import pytest

from rag_app import services
from rag_app.models import Answer, Trace
from rag_app.pipeline.records import Scope
from rag_app.services.scope import scope_clean, scope_remember, scope_remembered
from rag_app.validation import InvalidInput
from tests import factories

pytestmark = pytest.mark.django_db

OFFICIAL = "Travel expenses are reimbursed within 30 days of the trip."
NOTE = "Travel expenses are reimbursed within 10 days of the trip, says an old note."


@pytest.fixture
def corpus(levels):
    factories.ingest_text(OFFICIAL, source_id="policy/travel", level="official")
    factories.ingest_text(NOTE, source_id="notes/travel", level="note")
    factories.ingest_text(
        "Travel expenses for the sales team are reimbursed within 5 days.",
        source_id="sales/travel",
        level="official",
        groups=["sales"],
    )


def test_a_level_scope_keeps_other_levels_out(corpus, staff_user):
    """Within "note" only the note is searched; within "official" only the policy."""
    q = "Within how many days are travel expenses reimbursed?"
    assert factories.cited_sources(services.ask(user=staff_user, question=q, scope=Scope(levels=("note",)))) == {
        "notes/travel"
    }
    answer = services.ask(user=staff_user, question=q, scope=Scope(levels=("official",)))
    assert factories.cited_sources(answer) == {"policy/travel"}
    assert answer.scope == {"levels": ["official"]}
    assert Trace.objects.get(answer=answer).settings_snapshot["scope"] == {"levels": ["official"]}


def test_a_document_scope_and_a_group_scope(corpus, levels):
    """documents= narrows to those ids; groups= to documents of the asker's groups."""
    seller = factories.make_user("seller", groups=("staff", "sales"))
    q = "Within how many days are travel expenses reimbursed?"
    assert factories.cited_sources(services.ask(user=seller, question=q, scope=Scope(documents=("notes/travel",)))) == {
        "notes/travel"
    }
    assert factories.cited_sources(services.ask(user=seller, question=q, scope=Scope(groups=("sales",)))) == {
        "sales/travel"
    }


def test_a_scope_cannot_name_what_the_asker_may_not_use(corpus, staff_user):
    """A hidden document, a group the asker is not in, an unknown level: refused like unknown names."""
    for data in ({"documents": ["sales/travel"]}, {"groups": ["sales"]}, {"levels": ["secret"]}, {"colour": ["red"]}):
        with pytest.raises(InvalidInput) as info:
            scope_clean(user=staff_user, data=data)
        assert info.value.code == "invalid_scope", data
    assert scope_clean(user=staff_user, data={"documents": ["notes/travel"]}) == Scope(documents=("notes/travel",))


def test_the_scope_is_remembered_and_rechecked(corpus, staff_user):
    """The last scope comes back; a facet that no longer holds drops the remembered scope."""
    scope_remember(user=staff_user, scope=Scope(levels=("official",), documents=("notes/travel",)))
    assert scope_remembered(user=staff_user) == Scope(levels=("official",), documents=("notes/travel",))
    factories.ingest_text(NOTE, source_id="notes/travel", level="note", groups=["sales"])  # now hidden from staff
    assert scope_remembered(user=staff_user) == Scope()


def test_a_follow_up_uses_the_previous_question_for_retrieval(corpus, staff_user):
    """ "And for interns?" alone matches nothing; as a follow-up it is searched with the thread's topic, finds
    the travel documents, and (since none mentions interns) honestly says they are not enough."""
    first = services.ask(user=staff_user, question="Within how many days are travel expenses reimbursed?")
    alone = services.ask(user=staff_user, question="And for interns?")
    follow = services.ask(user=staff_user, question="And for interns?", parent=first)
    assert (alone.state, alone.reason) == (Answer.State.NO_EVIDENCE, "no_match")
    assert follow.parent == first
    candidates = {c["source_id"] for c in Trace.objects.get(answer=follow).candidates}
    assert candidates == {"policy/travel", "notes/travel"}
    assert Trace.objects.get(answer=follow).settings_snapshot["thread"] == [first.question]
    assert factories.cited_sources(first)  # each answer keeps its own citations


def test_a_follow_up_is_held_to_the_bar_of_its_own_language_not_its_threads(levels, staff_user, settings):
    """An English follow-up to a Chinese question is searched with the Chinese question's terms, which the
    language detection reads as Chinese; its English passages still meet the bar of an English question
    (tiering.OWN_LANGUAGE_SHARE), the answer's language, not the one for a question read across."""
    from rag_app.pipeline.tiering import LANGUAGE_THRESHOLD_SHARE, OWN_LANGUAGE_SHARE

    factories.ingest_text("The badge office opens at 8:00 and closes at 17:00 on weekdays.", source_id="badge")
    factories.ingest_text("Printer toner is ordered through the facilities desk.", source_id="toner")
    first = services.ask(user=staff_user, question="工牌办公室和访客登记处平时设在园区哪一栋楼的哪一层？")
    question = "When does the badge office open on weekdays?"
    settings.RAG = settings.RAG | {"MIN_RELEVANCE": 0.01}
    probe = services.ask(user=staff_user, question=question, parent=first)
    relevance = next(c["relevance"] for c in Trace.objects.get(answer=probe).candidates if c["source_id"] == "badge")
    between = (OWN_LANGUAGE_SHARE["en"] + LANGUAGE_THRESHOLD_SHARE["en"]) / 2
    settings.RAG = settings.RAG | {"MIN_RELEVANCE": relevance / between}
    follow = services.ask(user=staff_user, question=question, parent=first)
    assert follow.language == "en"
    assert follow.state == Answer.State.ANSWERED, follow.reason
    assert factories.cited_sources(follow) == {"badge"}


def test_a_replay_searches_as_the_question_was_asked_with_its_thread_and_scope(corpus, staff_user):
    """The reviewer's replay runs the same search the ask ran: a follow-up with its thread's earlier question
    ("And for interns?" alone matches nothing), a scoped question within its scope."""
    from rag_app.services.answers import answer_replay

    first = services.ask(user=staff_user, question="Within how many days are travel expenses reimbursed?")
    follow = services.ask(user=staff_user, question="And for interns?", parent=first)
    rows, _ = answer_replay(answer=follow, user=staff_user, then={})
    assert {r.record.source_id for r in rows} == {c["source_id"] for c in Trace.objects.get(answer=follow).candidates}
    assert {r.record.source_id for r in rows} == {"policy/travel", "notes/travel"}
    scoped = services.ask(user=staff_user, question=first.question, scope=Scope(levels=("note",)))
    rows, _ = answer_replay(answer=scoped, user=staff_user, then={})
    assert {r.record.source_id for r in rows} == {"notes/travel"}


def test_a_stored_scope_reads_back_and_anything_else_narrows_nothing():
    scope = Scope(levels=("note",), documents=("a", "b"))
    assert Scope.stored(scope.as_dict()) == scope
    assert Scope.stored({}) == Scope() and Scope.stored(None) == Scope() and Scope.stored("levels") == Scope()
    assert Scope.stored({"levels": "note", "documents": ["a", 3]}) == Scope(documents=("a",))
    # The groups' ids are stored beside their names, one per group, and never shown (as_dict).
    grouped = Scope(groups=("hr", "legal"), group_ids=(4, 9))
    assert grouped.stored_form() == {"groups": ["hr", "legal"], "group_ids": [4, 9]}
    assert grouped.as_dict() == {"groups": ["hr", "legal"]} and Scope.stored(grouped.stored_form()) == grouped
    for ids in ([4], [4, "9"], [4, True], "4,9", None):
        assert Scope.stored({"groups": ["hr", "legal"], "group_ids": ids}) == Scope(groups=("hr", "legal"))


def test_a_thread_stops_at_an_earlier_question_the_asker_may_no_longer_see(corpus, staff_user):
    """A reviewer continued a colleague's answer, then lost the reviewer role. Following up their own answer, the
    thread holds their own question only: the colleague's is neither searched with nor shown to a model (the trace's
    thread, the prompt's context). With the role, both are."""
    from django.contrib.auth.models import Group

    rev = factories.make_user("rev", groups=("staff", "reviewer"))
    colleague = services.ask(user=staff_user, question="When is the confidential zebra merger announced?")
    mine = services.ask(user=rev, question="And within how many days are travel expenses reimbursed?", parent=colleague)
    with_role = services.ask(user=rev, question="And for interns?", parent=mine)
    assert Trace.objects.get(answer=with_role).settings_snapshot["thread"] == [colleague.question, mine.question]
    rev.groups.remove(Group.objects.get(name="reviewer"))
    rev = type(rev).objects.get(pk=rev.pk)  # as the next request reads the user (roles are cached per instance)
    without = services.ask(user=rev, question="And for interns?", parent=mine)
    trace = Trace.objects.get(answer=without)
    assert trace.settings_snapshot["thread"] == [mine.question]
    assert "zebra" not in trace.prompt and "zebra" not in trace.context
