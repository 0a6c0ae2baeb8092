"""Adversarial review of session 32's change (git diff 9caf2b0..HEAD): each test was a defect the change brought in
(found as a strict xfail), now fixed."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group
from django.test import Client

from rag_app import selectors, services
from rag_app.generation.openai_compat import parse_plain, parse_structured, reader_text
from rag_app.models import Answer, Trace
from tests import factories

# --- openai_compat.reader_text: Markdown's character references ---------------------------------------------------


@pytest.mark.parametrize("reference", ["&#x202E;", "&#8238;", "&#x2066;", "&#X202d;"])
def test_a_models_character_reference_gives_no_bidi_control_to_the_reader(reference):
    """shown_text drops bidi controls from a model's reply, but reader_text ran it before markdown-it, which decodes
    "&#x202E;" (a numeric character reference, as CommonMark reads it) into U+202E: "30 days &#x202E;txt.exe" was
    shown reversed ("exe.txt") on the page, the API and the CLI, the spoof shown_text exists to stop."""
    structured = parse_structured('{"paragraphs": [{"text": "30 days ' + reference + 'txt.exe", "citation_ids": []}]}')
    assert structured is not None
    for text in (
        reader_text(f"Refunds within 30 days {reference}txt.exe [S1]"),
        parse_plain(f"Refunds within 30 days {reference}txt.exe [S1]")[0].text,
        structured[0].text,
    ):
        assert not any(ch in text for ch in "\u202e\u2066\u202d"), repr(text)
        assert "txt.exe" in text


# --- selectors.answer_history: a NUL in "My questions"' search ---------------------------------------------------


@pytest.mark.django_db
def test_my_questions_search_with_a_nul_finds_nothing_without_asking_the_database(
    levels, staff_user, django_assert_num_queries
):
    """`GET /history/?q=a%00` was a DataError ("text fields cannot contain NUL") and a 500 on PostgreSQL
    (RAG_TEST_DB=postgres shows the 500): the question text holds no NUL, so nothing matches, as document_list's
    `_storable` has it for its query."""
    Answer.objects.create(user=staff_user, question="What is the refund deadline?", state="no_evidence")
    with django_assert_num_queries(0):
        assert list(selectors.answer_history(user=staff_user, query="refund\x00")) == []
    client = Client()
    client.force_login(staff_user)
    assert client.get("/history/", {"q": "refund\x00"}).status_code == 200


# --- presentation: a follow-up's earlier question's words -----------------------------------------------------------


@pytest.mark.django_db
def test_the_earlier_questions_words_are_shown_only_where_its_question_is(levels):
    """A no-evidence follow-up lists "with the earlier question's words" from the trace's thread; the parent's
    question itself is named only where the viewer may see it (selectors.thread_parent). A reviewer who continued
    another user's answer, then lost the reviewer role, saw no "Follow-up to" link but did see that user's question
    word by word in the search terms."""
    alice = factories.make_user("alice", groups=("staff",))
    rev = factories.make_user("rev", groups=("staff", "reviewer"))
    factories.ingest_text("Refunds within 30 days.", source_id="pub/refund", title="Refund policy")
    first = services.ask(user=alice, question="What about the confidential zebra merger?")
    follow = services.ask(user=rev, question="And for penguins?", parent=first)
    assert follow.state == Answer.State.NO_EVIDENCE
    rev.groups.remove(Group.objects.get(name="reviewer"))
    client = Client()
    client.force_login(rev)
    body = client.get(follow.get_absolute_url()).content.decode()
    assert "penguins" in body
    assert "zebra" not in body and "merger" not in body
    # Still shown to the asker of a thread of their own.
    own_first = services.ask(user=alice, question="What about the zebra merger?")
    own = services.ask(user=alice, question="And for penguins?", parent=own_first)
    client.force_login(alice)
    assert "zebra" in client.get(own.get_absolute_url()).content.decode()


@pytest.mark.parametrize("follow_up", ["And version 2?", "那第二版呢？", "And GPL 2?"])
def test_the_earlier_questions_words_shown_are_those_the_search_read(follow_up):
    """ "with the earlier question's words" says what a follow-up's search read besides its own words
    (naming.retrieval_text). For a follow-up that swaps the subject and names its own number, the search read
    the earlier question less its numbers (textproc.subject_swapped), but the panel listed them: "And version 2?"
    after "When was GPL version 3 released?" said `3` was searched for, which the search had taken out."""
    from rag_app.pipeline.textproc import query_terms, query_words
    from rag_app.presentation import _thread_terms
    from rag_app.services.ask import retrieval_text

    earlier = "When was GPL version 3 released?"
    trace = Trace(settings_snapshot={"thread": [earlier]})
    shown = _thread_terms(trace, follow_up)
    assert "3" not in shown
    searched = set(query_terms(retrieval_text(follow_up, (earlier,))))
    assert set(query_terms(" ".join(shown))) <= searched
    assert set(shown) <= set(query_words(earlier))
