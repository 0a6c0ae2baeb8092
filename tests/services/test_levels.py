"""rag_app/levels.py: every level change leaves one audit row (rule 9: levels come from admins)."""

from __future__ import annotations

import pytest

from rag_app.models import LevelChange, SourceLevel
from rag_app.services.levels import document_set_level, documents_set_level, level_create, level_update
from tests.factories import make_admin, make_document


@pytest.mark.django_db
def test_migration_seeds_levels_and_role_groups() -> None:
    """Migration 0002 seeds official(3) / reviewed(2) / note(1) and the staff/reviewer/admin groups."""
    from django.contrib.auth.models import Group

    weights = dict(SourceLevel.objects.values_list("slug", "weight"))
    assert weights == {"official": 3.0, "reviewed": 2.0, "note": 1.0}
    assert set(Group.objects.values_list("name", flat=True)) >= {"staff", "reviewer", "admin"}


@pytest.mark.django_db
def test_document_set_level_records_who_from_and_to(levels: dict[str, SourceLevel]) -> None:
    """Changing a document's level writes one LevelChange with the user, old slug and new slug."""
    admin = make_admin()
    doc = make_document(level="note")
    change = document_set_level(user=admin, document=doc, level=levels["official"])
    assert change is not None
    doc.refresh_from_db()
    assert doc.level == levels["official"]
    assert (change.user, change.document, change.field, change.old_value, change.new_value) == (
        admin,
        doc,
        "document.level",
        "note",
        "official",
    )


@pytest.mark.django_db
def test_document_set_level_same_level_records_nothing(levels: dict[str, SourceLevel]) -> None:
    """Setting the level a document already has is a no-op: no audit row."""
    doc = make_document(level="reviewed")
    assert document_set_level(user=None, document=doc, level=levels["reviewed"]) is None
    assert not LevelChange.objects.filter(document=doc).exists()


@pytest.mark.django_db
def test_document_set_level_to_none_clears_level(levels: dict[str, SourceLevel]) -> None:
    """None removes the level (the document then ranks lowest) and is recorded as an empty new value."""
    doc = make_document(level="official")
    change = document_set_level(user=None, document=doc, level=None)
    assert change is not None and (change.old_value, change.new_value) == ("official", "")
    doc.refresh_from_db()
    assert doc.level is None


@pytest.mark.django_db
def test_documents_set_level_counts_only_changed(levels: dict[str, SourceLevel]) -> None:
    """The bulk form changes each document once and skips those already at the level."""
    docs = [make_document(level="note"), make_document(level="official"), make_document(level=None)]
    assert documents_set_level(user=None, documents=docs, level=levels["official"]) == 2
    assert LevelChange.objects.filter(field="document.level").count() == 2


@pytest.mark.django_db
def test_level_create_and_update_are_audited() -> None:
    """Creating, renaming and reweighting a level each leave an audit row with old and new values."""
    admin = make_admin()
    level = level_create(user=admin, slug="policy", label="Policy", weight=2.5)
    changes = level_update(user=admin, level=level, label="Policies", weight=4)
    assert [(c.field, c.old_value, c.new_value) for c in changes] == [
        ("level.label", "Policy", "Policies"),
        ("level.weight", "2.5", "4"),
    ]
    assert LevelChange.objects.filter(level=level, field="level.created").count() == 1
    level.refresh_from_db()
    assert (level.label, level.weight) == ("Policies", 4.0)
    assert level_update(user=admin, level=level, label="Policies", weight=4.0) == []


REFUND = "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt."


@pytest.mark.django_db
def test_an_answer_keeps_each_sources_level_as_it_was_when_answered(levels, staff_user) -> None:
    """Citation and trace keep the level the search read (slug, label, weight); a rename, reweight or change of slug
    since changes neither what the old answer shows nor how it ranked its sources."""
    from rag_app.presentation import present_answer
    from rag_app.services.ask import ask
    from tests.factories import ingest_text

    ingest_text(REFUND, source_id="refunds", level="official")
    answer = ask(user=staff_user, question="Within how many days of purchase are refunds accepted?")
    citation = answer.paragraphs.get().citations.get()
    assert (citation.level_slug, citation.level_label, citation.level_weight) == ("official", "Official", 3.0)
    row = next(c for c in answer.trace.candidates if c["chunk_id"] == citation.chunk.chunk_id)
    assert (row["level"], row["level_label"], row["level_weight"]) == ("official", "Official", 3.0)
    level_update(user=make_admin(), level=levels["official"], slug="policy", label="Company policy", weight=0.5)
    card = present_answer(answer, viewer=staff_user).citations[0]
    assert (card.level_slug, card.level_label, card.level_weight) == ("official", "Official", 3.0)
    source = card.as_source()  # the API's and the CLI's sources[]: the level as answered, beside its slug
    assert (source["source_level"], source["source_level_label"], source["source_level_weight"]) == (
        "official",
        "Official",
        3.0,
    )
