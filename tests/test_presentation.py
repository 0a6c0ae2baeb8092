"""rag_app/presentation.py: the one answer presenter and the reviewer's trace."""

from __future__ import annotations

import datetime as dt

import pytest

from rag_app.models import Answer
from rag_app.presentation import answer_payload, present_answer, trace_for
from rag_app.services import ask
from tests import factories
from tests.views.answers import Para, make_answer

pytestmark = pytest.mark.django_db


def test_trace_withholds_nothing_from_someone_who_may_see_everything():
    """For an admin the trace is complete: context and candidates as stored, withheld 0."""
    factories.make_document("The refund deadline is 30 days.", source_id="hr/r.txt", groups=["hr"])
    hr = factories.make_user(groups=("staff", "hr"))
    answer = ask(user=hr, question="What is the refund deadline?")
    trace = trace_for(answer, viewer=factories.make_admin())
    assert trace is not None
    assert trace["withheld"] == 0
    assert "30 days" in trace["context"]
    assert [c["chunk_id"] for c in trace["candidates"]] == ["hr/r.txt:v1:0"]


def test_footnotes_are_numbered_in_reading_order(levels):
    """The first marker a reader meets is [1], whatever S-id assembly gave it; repeats keep their number."""
    factories.make_document("Alpha text about refunds.", source_id="a.txt")
    factories.make_document("Beta text about refunds.", source_id="b.txt")
    a, b = factories.chunks_of("a.txt")[0], factories.chunks_of("b.txt")[0]
    answer = make_answer(
        user=None,
        paragraphs=[
            Para("Beta.", cites=[("S2", b)]),
            Para("Alpha.", cites=[("S1", a)]),
            Para("Both.", cites=[("S1", a), ("S2", b)]),
        ],
    )
    view = present_answer(answer, viewer=factories.make_admin())
    assert [[c.number for c in p.cards] for p in view.paragraphs] == [[1], [2], [2, 1]]
    assert [c.marker for c in view.citations] == ["S2", "S1"]
    assert [s.source_id for s in view.sources] == ["b.txt", "a.txt"]
    payload = view.as_dict()
    assert [(s["id"], s["display_number"]) for s in payload["sources"]] == [("S2", 1), ("S1", 2)]
    assert payload["paragraphs"][2]["display_numbers"] == [2, 1]


def test_a_citation_of_an_old_version_names_the_current_one(levels, staff_user):
    """Page, API and CLI read one fact: the cited version is superseded, and which version is current."""
    factories.ingest_text("Refunds within 30 days.", source_id="refunds")
    old = factories.chunks_of("refunds")[0]
    answer = make_answer(user=staff_user, paragraphs=[Para("Refunds within 30 days.", cites=[("S1", old)])])
    current = present_answer(answer, viewer=staff_user).citations[0]
    assert (current.is_current, current.current_version, current.current_url) == (True, 1, "")
    factories.ingest_text("Refunds within 14 days.", source_id="refunds")
    view = present_answer(answer, viewer=staff_user)
    card = view.citations[0]
    assert (card.version, card.is_current, card.current_version) == (1, False, 2)
    assert card.current_url == "/documents/refunds/v2/"
    source = view.as_dict()["sources"][0]
    assert (source["version"], source["is_current"], source["current_version"]) == (1, False, 2)


def test_a_related_passage_of_an_old_version_names_the_current_one(levels, staff_user):
    """A no-evidence answer's related passage says a newer version exists, as a citation does."""
    factories.ingest_text(
        "Refund policy. Refunds are accepted within 30 days of purchase with the original receipt.", source_id="refunds"
    )
    answer = ask(user=staff_user, question="退款可以退到信用卡吗？")
    assert answer.reason == "below_threshold"
    (related,) = present_answer(answer, viewer=staff_user).related
    assert (related.is_current, related.current_version, related.current_url) == (True, 1, "")
    factories.ingest_text(
        "Refund policy. Refunds are accepted within 14 days of purchase with the original receipt.", source_id="refunds"
    )
    view = present_answer(answer, viewer=staff_user)
    (related,) = view.related
    assert (related.version, related.is_current, related.current_version) == (1, False, 2)
    assert related.current_url == "/documents/refunds/v2/"
    assert view.as_dict()["related"][0] | {"excerpt": "", "lacks": None, "relevance": None} == {
        "source_id": "refunds",
        "title": "refunds",
        "version": 1,
        "relevance": None,
        "excerpt": "",
        "lacks": None,
        "is_current": False,
        "current_version": 2,
        "in_force_until": None,  # version 2 is in force: version 1 is out of date
        "out_of_period": None,
        "period_date": None,
    }


def test_a_decision_whose_facts_name_a_hidden_passage_is_withheld_whole(levels):
    """A kept copy's facts name the original it qualified with: of a document the viewer may not read, neither
    the English detail nor the facts the page writes out say its chunk_id or score."""
    factories.make_document("Open text.", source_id="open")
    factories.make_document("Secret text.", source_id="secret", groups=["fin"])
    copy_row = {
        "chunk_id": "open:v1:0",
        "source_id": "open",
        "kept": True,
        "detail": "relevance 0.290 < 0.300, qualified with secret:v1:0 (0.350), which it copies but for one stretch",
        "facts": {
            "code": "copy_of",
            "relevance": 0.29,
            "bar": 0.3,
            "original": "secret:v1:0",
            "original_relevance": 0.35,
        },
    }
    hidden_row = {"chunk_id": "secret:v1:0", "source_id": "secret", "kept": True}
    answer = make_answer(user=None, trace={"candidates": [copy_row, hidden_row]})
    (shown,) = trace_for(answer, viewer=factories.make_user(groups=("staff", "reviewer")))["candidates"]
    assert "facts" not in shown and "secret" not in shown["detail"]
    full = trace_for(answer, viewer=factories.make_admin())["candidates"][0]
    assert full["facts"]["original"] == "secret:v1:0"


# ---------------------------------------------------------------- the "sources disagree" banner

REFUNDS_2022 = "Refunds are accepted within 30 days of purchase."
REFUNDS_2024 = "Refunds are accepted within 14 days of purchase."


def test_the_extractive_answer_and_its_banner_put_the_newer_of_two_equally_trusted_sources_first(levels, staff_user):
    """One ordering rule (conflict.trust_order): the quotations and the banner list the policy in force since 2024
    first, whichever was ingested or ranked first."""
    factories.ingest_text(REFUNDS_2022, source_id="refunds-2022", effective_from=dt.date(2022, 1, 1))
    factories.ingest_text(REFUNDS_2024, source_id="refunds-2024", effective_from=dt.date(2024, 1, 1))
    answer = ask(user=staff_user, question="Within how many days of purchase are refunds accepted?")
    assert answer.conflict
    view = present_answer(answer, viewer=staff_user)
    quoted = [p.cards[0].source_id for p in view.paragraphs]
    assert quoted == ["refunds-2024", "refunds-2022"]
    assert [s.source_id for s in view.conflict_sources] == quoted


def model_answer_citing_last_years_policy_first(user):
    old, new = factories.chunks_of("refunds-2022")[0], factories.chunks_of("refunds-2024")[0]
    return make_answer(
        user=user,
        mode=Answer.Mode.LLM,
        conflict=True,
        paragraphs=[Para(REFUNDS_2022, cites=[("S1", old)]), Para(REFUNDS_2024, cites=[("S2", new)])],
        trace={
            "marker_map": {
                "S1": {"chunk_id": old.chunk_id, "source_id": "refunds-2022", "effective_from": "2022-01-01"},
                "S2": {"chunk_id": new.chunk_id, "source_id": "refunds-2024", "effective_from": "2024-01-01"},
            },
            "settings_snapshot": {
                "quoted": False,
                "conflicting_markers": ["S1", "S2"],
                "conflicts": [{"markers": ["S1", "S2"], "kind": "duration", "values": ["720 h", "336 h"]}],
            },
        },
    )


def test_the_banner_orders_sides_by_the_effective_date_they_were_answered_with(levels, staff_user):
    """The model cited last year's policy first; the banner names the newer first, by the date the search read (the
    trace's marker map), which an unchanged file uploaded again with another date does not change."""
    factories.ingest_text(REFUNDS_2022, source_id="refunds-2022", effective_from=dt.date(2022, 1, 1))
    factories.ingest_text(REFUNDS_2024, source_id="refunds-2024", effective_from=dt.date(2024, 1, 1))
    answer = model_answer_citing_last_years_policy_first(staff_user)
    order = ["refunds-2024", "refunds-2022"]
    assert [s.source_id for s in present_answer(answer, viewer=staff_user).conflict_sources] == order
    factories.ingest_text(REFUNDS_2022, source_id="refunds-2022", effective_from=dt.date(2025, 1, 1))
    assert factories.current_version("refunds-2022").effective_from == dt.date(2025, 1, 1)
    view = present_answer(answer, viewer=staff_user)
    assert [s.source_id for s in view.conflict_sources] == order
    assert [s.effective_from for s in view.conflict_sources] == [dt.date(2024, 1, 1), dt.date(2022, 1, 1)]


def hr_conflict(snapshot: dict[str, object]) -> Answer:
    """An extractive answer quoting two open sources (S1 30 days, S2 14 days) and an hr note (S3 47 days)."""
    a = factories.make_document("Refunds within 30 days.", source_id="a.txt")
    b = factories.make_document("Refunds within 14 days.", source_id="b.txt", level="reviewed")
    h = factories.make_document("Refunds within 47 days.", source_id="hr/c.txt", level="note", groups=["hr"])
    cited = {"S1": factories.chunks_of(a)[0], "S2": factories.chunks_of(b)[0], "S3": factories.chunks_of(h)[0]}
    return make_answer(
        user=factories.make_user("asker", groups=("staff", "hr")),
        conflict=True,
        paragraphs=[Para(chunk.text, cites=[(marker, chunk)]) for marker, chunk in cited.items()],
        trace={
            "marker_map": {
                m: {"chunk_id": c.chunk_id, "source_id": c.version.document.source_id} for m, c in cited.items()
            },
            "settings_snapshot": {"quoted": True, **snapshot},
        },
    )


def test_a_disagreement_between_readable_sources_is_shown_beside_one_with_a_hidden_source(levels, reviewer_user):
    """S1 and S2 disagree with each other as well as with the hidden note: the banner names both, as the trace."""
    pairs = [["S1", "S2"], ["S1", "S3"], ["S2", "S3"]]
    answer = hr_conflict(
        {"conflicting_markers": ["S1", "S2", "S3"], "conflicts": [{"markers": p, "kind": "duration"} for p in pairs]}
    )
    view = present_answer(answer, viewer=reviewer_user)
    assert view.withheld_paragraphs == 1
    assert [s.source_id for s in view.conflict_sources] == ["a.txt", "b.txt"]
    assert answer_payload(answer, viewer=reviewer_user)["conflict"] is True
    snapshot = trace_for(answer, viewer=reviewer_user)["settings_snapshot"]
    assert [c["markers"] for c in snapshot["conflicts"]] == [["S1", "S2"]]
    assert snapshot["conflicting_markers"] == ["S1", "S2"]


def test_a_trace_that_kept_only_the_markers_shows_no_banner_when_one_of_them_is_hidden(levels, reviewer_user):
    """Without the recorded pairs, whether S1 and S2 disagree with each other or only with the hidden S3 is unknown:
    no banner for a viewer who may not read S3, the banner for one who may."""
    answer = hr_conflict({"conflicting_markers": ["S1", "S2", "S3"]})
    assert present_answer(answer, viewer=reviewer_user).conflict_sources == []
    assert answer_payload(answer, viewer=reviewer_user)["conflict"] is False
    assert trace_for(answer, viewer=reviewer_user)["settings_snapshot"]["conflicting_markers"] == []
    insider = factories.make_user("insider", groups=("staff", "reviewer", "hr"))
    sides = [s.source_id for s in present_answer(answer, viewer=insider).conflict_sources]
    assert sides == ["a.txt", "b.txt", "hr/c.txt"]
