"""retrieve(): search + tiering with settings.RAG, the Selection services.ask consumes (rules 10, 11, 15)."""

from __future__ import annotations

import datetime as dt

import pytest

from rag_app.pipeline.records import RejectReason
from rag_app.search.hybrid import retrieve
from tests.factories import ingest_text

pytestmark = pytest.mark.django_db

TODAY = dt.date(2026, 6, 1)


def test_an_unrelated_question_has_no_evidence_and_keeps_its_candidates_for_the_trace(settings):
    settings.RAG = {**settings.RAG, "MIN_RELEVANCE": 0.4}
    ingest_text("The canteen serves dumplings every Tuesday and noodles on Friday.", source_id="canteen")
    ingest_text("Printer toner is ordered through the facilities desk.", source_id="toner")
    selection = retrieve(user=None, question="Which dumplings recipe won the Tuesday cooking prize in Berlin?")
    assert not selection.has_evidence
    assert selection.threshold == 0.4
    # The canteen passage shares "dumplings" and "Tuesday", enough for an English passage's share of the
    # threshold, and is then rejected by the answerability screen: it says nothing of a prize or Berlin.
    assert [r.reason for r in selection.rejected] == [RejectReason.NOT_ANSWERING]
    assert selection.rejected[0].record.source_id == "canteen"
    assert "focus" in selection.rejected[0].detail


def test_a_matching_question_keeps_the_record_with_its_level():
    ingest_text("Printer toner is ordered through the facilities desk.", source_id="toner", level="reviewed")
    selection = retrieve(user=None, question="Where is printer toner ordered?")
    assert [r.source_id for r in selection.kept] == ["toner"]
    assert selection.kept[0].level == "reviewed"


def test_records_beyond_top_k_are_rejected_as_over_budget(settings):
    settings.RAG = {**settings.RAG, "TOP_K": 2}
    for i in range(4):
        ingest_text(f"Badge office hours, edition {i}: the badge office opens at eight.", source_id=f"badge-{i}")
    selection = retrieve(user=None, question="badge office hours")
    assert len(selection.kept) == 2
    assert [r.reason for r in selection.rejected] == [RejectReason.OVER_BUDGET] * 2


def test_an_expired_version_is_excluded_or_demoted_by_setting(settings):
    ingest_text(
        "Travel expenses are reimbursed within ten days.",
        source_id="travel-old",
        effective_until=TODAY - dt.timedelta(days=1),
    )
    ingest_text("Travel expenses are reimbursed after approval.", source_id="travel-new", level="note")
    excluded = retrieve(user=None, question="travel expenses reimbursed", today=TODAY)
    assert [r.source_id for r in excluded.kept] == ["travel-new"]
    assert {r.record.source_id: r.reason for r in excluded.rejected} == {"travel-old": RejectReason.EXPIRED}
    settings.RAG = {**settings.RAG, "EXPIRED_POLICY": "demote"}
    demoted = retrieve(user=None, question="travel expenses reimbursed", today=TODAY)
    assert [r.source_id for r in demoted.kept] == ["travel-new", "travel-old"]
