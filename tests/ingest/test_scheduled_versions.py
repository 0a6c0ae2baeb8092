"""Which versions retrieval reads (search.indexing.settle_versions, called by ingest): the current version, and the
version in force while its successor is scheduled for later (rule 15), recorded with the date it is superseded."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.utils import timezone

from rag_app.models import Chunk, Document, DocumentVersion
from rag_app.search import indexing, lexical
from rag_app.services.documents import document_delete
from tests.embedding_server import embedding_server, openai_embedder  # noqa: F401 (fixtures)
from tests.factories import ingest_text

pytestmark = pytest.mark.django_db

POLICY = "Refund policy\n\nCustomers may request a refund within {days} days of purchase."
TODAY = timezone.localdate()
LATER = TODAY + dt.timedelta(days=90)


def versions(source_id: str = "policy") -> list[tuple[int, bool, bool, dt.date | None]]:
    """(version, is_current, searched, superseded_on), oldest first."""
    rows = DocumentVersion.objects.filter(document__source_id=source_id).order_by("version")
    return list(rows.values_list("version", "is_current", "searched", "superseded_on"))


def assert_index_holds_the_searched_chunks() -> None:
    """Index rows (lexical, dense) are exactly the searched versions' chunks; the term statistics count exactly the
    current versions' chunks (a predecessor kept searched is scored against them, not counted)."""
    searched = Chunk.objects.filter(version__searched=True)
    table = "rag_chunk_tsv" if connection.vendor == "postgresql" else "rag_chunk_fts"
    with connection.cursor() as cur:
        cur.execute(f"SELECT count(*) FROM {table}")
        assert cur.fetchone()[0] == searched.count()
    current = Chunk.objects.filter(version__is_current=True)
    stats = lexical.corpus_stats(["refund"])
    assert stats.chunks == current.count()
    assert stats.tokens == sum(len(c.search_text.split()) for c in current)
    assert stats.df == {"refund": sum("refund" in c.search_text.split() for c in current)}


def policy(days: int, **dates: dt.date | None) -> None:
    ingest_text(POLICY.format(days=days), source_id="policy", **dates)  # type: ignore[arg-type]


def test_a_version_scheduled_for_later_leaves_its_predecessor_searched_until_that_date(levels) -> None:
    policy(30, effective_from=dt.date(2024, 1, 1))
    policy(45, effective_from=LATER)
    assert versions() == [(1, False, True, LATER), (2, True, True, None)]
    assert_index_holds_the_searched_chunks()


@pytest.mark.parametrize("effective_from", [None, TODAY, TODAY - dt.timedelta(days=1)], ids=["none", "today", "past"])
def test_a_version_in_effect_at_once_takes_its_predecessor_out_of_the_index(levels, effective_from) -> None:
    policy(30)
    policy(45, effective_from=effective_from)
    assert versions() == [(1, False, False, effective_from or TODAY), (2, True, True, None)]
    assert_index_holds_the_searched_chunks()


def test_a_third_version_in_effect_at_once_leaves_only_itself_searched(levels) -> None:
    policy(30)
    policy(45, effective_from=LATER)
    policy(60)
    assert versions() == [(1, False, False, TODAY), (2, False, False, TODAY), (3, True, True, None)]
    assert_index_holds_the_searched_chunks()


def test_a_next_version_after_the_scheduled_one_took_effect_unindexes_its_predecessor(levels) -> None:
    """No job ran on the day version 2 took effect (tiering rejected version 1 from then on): the next ingest of the
    document takes version 1 out, and its record keeps the day it was superseded."""
    policy(30)
    policy(45, effective_from=LATER)
    took_effect = TODAY - dt.timedelta(days=3)
    DocumentVersion.objects.filter(version=2).update(effective_from=took_effect)
    DocumentVersion.objects.filter(version=1).update(superseded_on=took_effect)
    policy(60, effective_from=LATER)
    assert versions() == [(1, False, False, took_effect), (2, False, True, LATER), (3, True, True, None)]
    assert_index_holds_the_searched_chunks()


def test_a_version_rescheduled_before_it_took_effect_never_answers(levels) -> None:
    """Version 3 is to take effect before version 2 would have: version 2 is never in force, version 1 is until
    version 3's date."""
    soon = TODAY + dt.timedelta(days=30)
    policy(30)
    policy(45, effective_from=LATER)
    policy(60, effective_from=soon)
    assert versions() == [(1, False, True, soon), (2, False, False, soon), (3, True, True, None)]
    assert_index_holds_the_searched_chunks()


def test_two_versions_scheduled_one_after_the_other_each_answer_in_their_turn(levels) -> None:
    soon, later = TODAY + dt.timedelta(days=30), TODAY + dt.timedelta(days=90)
    policy(30)
    policy(45, effective_from=soon)
    policy(60, effective_from=later)
    assert versions() == [(1, False, True, soon), (2, False, True, later), (3, True, True, None)]
    assert_index_holds_the_searched_chunks()


def test_moving_the_scheduled_date_moves_the_predecessors_end(levels) -> None:
    """The same file again with other dates changes the current version's dates only: its predecessor follows."""
    policy(30)
    policy(45, effective_from=LATER)
    moved = LATER + dt.timedelta(days=30)
    policy(45, effective_from=moved)
    assert versions() == [(1, False, True, moved), (2, True, True, None)]
    policy(45, effective_from=TODAY - dt.timedelta(days=1))
    assert versions() == [(1, False, False, TODAY - dt.timedelta(days=1)), (2, True, True, None)]
    assert_index_holds_the_searched_chunks()


def test_a_date_fixed_after_the_version_was_in_force_at_once_brings_its_predecessor_back(levels, staff_user) -> None:
    """Version 2 was uploaded without a date (in force at once, version 1 left the indexes); the same file sent again
    with a later date schedules it: version 1 is in force again until then, and answers (docs/ARCHITECTURE.md; a
    user trial of session 36 found nothing answering until that date). Moved to today again, it leaves again."""
    from rag_app import services

    policy(30)
    policy(45)
    assert versions() == [(1, False, False, TODAY), (2, True, True, None)]
    policy(45, effective_from=LATER)
    assert versions() == [(1, False, True, LATER), (2, True, True, None)]
    assert_index_holds_the_searched_chunks()
    answer = services.ask(user=staff_user, question="Within how many days may customers request a refund?")
    cited = {c.chunk.version.version for p in answer.paragraphs.all() for c in p.citations.all()}
    assert cited == {1} and "30 days" in answer.paragraphs.first().text
    policy(45, effective_from=TODAY)
    assert versions() == [(1, False, False, TODAY), (2, True, True, None)]
    assert_index_holds_the_searched_chunks()
    # The version right before the current one is the one brought back (version 2, in force from today until then).
    policy(60, effective_from=TODAY - dt.timedelta(days=1))  # version 3, in force since yesterday: 2 left
    policy(60, effective_from=LATER)
    assert versions()[1:] == [(2, False, True, LATER), (3, True, True, None)]
    assert_index_holds_the_searched_chunks()


def test_reindexing_keeps_the_predecessor_searched_and_out_of_the_statistics(levels) -> None:
    policy(30)
    policy(45, effective_from=LATER)
    Document.objects.filter(source_id="policy").update(title="Refund rules")
    assert indexing.reindex_current() == 2
    assert all("rule" in c.search_text.split() for c in Chunk.objects.all())
    assert_index_holds_the_searched_chunks()


def test_deleting_the_document_empties_the_index_and_the_statistics(levels) -> None:
    policy(30)
    policy(45, effective_from=LATER)
    admin = User.objects.create_superuser("boss")
    document_delete(user=admin, document=Document.objects.get(source_id="policy"))
    assert_index_holds_the_searched_chunks()
    assert lexical.corpus_stats(["refund"]).df == {"refund": 0}


@pytest.mark.parametrize(
    ("rows", "searched"),
    [
        ([(3, None)], {3: (True, None)}),
        ([(3, LATER), (2, None)], {3: (True, None), 2: (True, LATER)}),
        ([(3, LATER), (2, TODAY)], {3: (True, None), 2: (True, LATER)}),
        ([(3, TODAY + dt.timedelta(days=1)), (2, LATER)], {3: (True, None), 2: (False, TODAY + dt.timedelta(days=1))}),
        (
            [(4, LATER), (3, LATER - dt.timedelta(days=1)), (2, None)],
            {4: (True, None), 3: (True, LATER), 2: (True, LATER - dt.timedelta(days=1))},
        ),
        ([(3, None), (2, LATER)], {3: (True, None), 2: (False, TODAY)}),
        ([(3, TODAY), (2, None)], {3: (True, None), 2: (False, TODAY)}),
    ],
)
def test_searched_periods_decides_from_the_dates_alone(rows, searched) -> None:
    """(pk, effective_from) newest first -> (searched, superseded_on): the current one always; an older one until the
    earliest date a newer one takes effect, if that is after today and after its own date."""
    assert indexing.searched_periods(rows, TODAY) == searched


@pytest.mark.usefixtures("openai_embedder")
def test_the_predecessor_brought_back_has_its_vectors_made_again(levels, django_capture_on_commit_callbacks) -> None:
    """Its vectors left with it: once the new date commits, a REEMBED job makes them again (until then it is found
    lexically, as any chunk without a vector)."""
    from rag_app.models import IngestJob

    policy(30)
    policy(45)
    assert not IngestJob.objects.filter(kind=IngestJob.Kind.REEMBED).exists()
    with django_capture_on_commit_callbacks(execute=True):
        policy(45, effective_from=LATER)
    assert IngestJob.objects.get(kind=IngestJob.Kind.REEMBED).source_id == "policy"


def test_the_versions_brought_back_are_those_in_force_by_their_dates(levels) -> None:
    """Version 2 scheduled for SOON, version 3 sent without a date (in force at once: 1 and 2 left), then given a
    later date: version 1 is in force until SOON, version 2 from then until LATER (the review of session 36: version 2
    alone came back, and nothing answered until SOON)."""
    soon = TODAY + dt.timedelta(days=30)
    policy(30)
    policy(45, effective_from=soon)
    policy(60)
    assert [v[2] for v in versions()] == [False, False, True]
    policy(60, effective_from=LATER)
    assert versions() == [(1, False, True, soon), (2, False, True, LATER), (3, True, True, None)]
    assert_index_holds_the_searched_chunks()


def test_a_version_brought_back_is_indexed_with_the_title_sent_with_the_new_date(levels) -> None:
    """Retitled in the same upload that moves the date: the version brought back is found by the new title (its
    tokens were made again with it)."""
    ingest_text(POLICY.format(days=30), source_id="policy", title="Refund policy")
    ingest_text(POLICY.format(days=45), source_id="policy", title="Refund policy")
    ingest_text(POLICY.format(days=45), source_id="policy", title="Zebra returns rulebook", effective_from=LATER)
    first = Chunk.objects.filter(version__version=1)
    assert all("zebra" in c.search_text.split() for c in first)
    assert_index_holds_the_searched_chunks()
