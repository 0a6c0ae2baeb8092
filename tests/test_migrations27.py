"""Migrations of session 27, on the database the suite runs on (SQLite, or PostgreSQL with RAG_TEST_DB=postgres).

0014/0015: each reader's latest vote on an answer stays their one vote; an earlier vote with a comment is kept,
marked replaced; one without is deleted. Flags and votes of no one are left as they were.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.migrating import migrate_to

BEFORE_VOTES = ("rag_app", "0013_answer_state_labels")


@pytest.mark.django_db(transaction=True)
def test_0014_keeps_each_readers_latest_vote_and_every_comment() -> None:
    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    apps = migrate_to([BEFORE_VOTES])
    try:
        User = apps.get_model("auth", "User")
        Answer, Feedback = apps.get_model("rag_app", "Answer"), apps.get_model("rag_app", "Feedback")
        ann, bob = User.objects.create(username="ann"), User.objects.create(username="bob")
        answer = Answer.objects.create(question="q", state="answered", mode="extractive")
        start = timezone.now() - dt.timedelta(days=1)

        def row(user, kind, minutes, comment=""):
            made = Feedback.objects.create(answer=answer, user=user, kind=kind, comment=comment)
            Feedback.objects.filter(pk=made.pk).update(created_at=start + dt.timedelta(minutes=minutes))
            return made.pk

        dropped = row(ann, "helpful", 1)
        commented = row(ann, "not_helpful", 2, "30 is wrong")
        kept = row(ann, "helpful", 3)
        flag = row(ann, "ask_reviewer", 4, "please look")
        only = row(bob, "not_helpful", 5)
        nobody = [row(None, "helpful", 6), row(None, "helpful", 7)]

        apps = migrate_to(latest)
        Feedback = apps.get_model("rag_app", "Feedback")
        rows = {f.pk: f for f in Feedback.objects.all()}
        assert dropped not in rows
        assert set(rows) == {commented, kept, flag, only, *nobody}
        assert rows[commented].replaced_at == start + dt.timedelta(minutes=3)
        assert [pk for pk, f in rows.items() if f.replaced_at is not None] == [commented]
    finally:
        migrate_to(latest)
        apps = MigrationExecutor(connection).loader.project_state(latest).apps
        apps.get_model("rag_app", "Answer").objects.all().delete()
        apps.get_model("auth", "User").objects.filter(username__in=["ann", "bob"]).delete()


BEFORE_LEVELS = ("rag_app", "0015_one_vote_per_reader_constraint")


@pytest.mark.django_db(transaction=True)
def test_0016_gives_old_citations_the_weight_they_were_ranked_with_and_a_label() -> None:
    """The weight from the trace's candidate row where it has one (else the level's now), the level's label now,
    the slug where no level has it any more; no level stays none."""
    from tests import factories

    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    # Ingested by today's code, before going back: the models of later migrations (0017's version fields) do not
    # fit the tables of 0015.
    factories.make_levels()  # seeded by 0002, but a transactional test before this one may have flushed them
    factories.make_document("Refunds are paid within 30 days.", source_id="refunds")
    chunk = factories.chunks_of("refunds")[0]
    apps = migrate_to([BEFORE_LEVELS])
    try:
        Answer, Trace = apps.get_model("rag_app", "Answer"), apps.get_model("rag_app", "Trace")
        Paragraph, Citation = apps.get_model("rag_app", "AnswerParagraph"), apps.get_model("rag_app", "Citation")
        answer = Answer.objects.create(question="q", state="answered", mode="extractive")
        Trace.objects.create(answer=answer, candidates=[{"chunk_id": chunk.chunk_id, "level_weight": 7.0}, "junk"])
        para = Paragraph.objects.create(answer=answer, order=0, text="t", evidence_status="linked")
        made = {
            slug: Citation.objects.create(
                paragraph=para, order=i, marker=f"S{i + 1}", chunk_id=chunk.pk, snippet="s", level_slug=slug
            ).pk
            for i, slug in enumerate(["official", "gone", ""])
        }
        other = Answer.objects.create(question="q2", state="answered", mode="extractive")  # no trace
        para2 = Paragraph.objects.create(answer=other, order=0, text="t", evidence_status="linked")
        untraced = Citation.objects.create(
            paragraph=para2, marker="S1", chunk_id=chunk.pk, snippet="s", level_slug="note"
        ).pk

        Citation = migrate_to(latest).get_model("rag_app", "Citation")
        got = {pk: (c.level_label, c.level_weight) for pk, c in Citation.objects.in_bulk().items()}
        assert got == {
            made["official"]: ("Official", 7.0),
            made["gone"]: ("gone", 7.0),
            made[""]: ("", None),
            untraced: ("Note", 1.0),
        }
    finally:
        migrate_to(latest)
