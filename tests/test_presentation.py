"""rag_app/presentation.py: the one answer presenter and the reviewer's trace."""

from __future__ import annotations

import pytest

from rag_app.presentation import present_answer, trace_for
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
