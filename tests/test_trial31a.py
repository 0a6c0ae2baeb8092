"""Trial 31a: an adversarial insider tries to learn restricted documents' text, titles, source_ids or existence from
outside their access group (docs/SECURITY.md). Each test is a defect found by driving the running app (or an edge of
its fix); each failed before its fix."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from rag_app import services
from rag_app.presentation import answer_payload
from tests import factories
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db


api_for = factories.token_client


OPEN_TEXT = "Refund policy. Customers may request a refund at the service desk with their receipt."
REFUND_Q = "How many days do customers have to request a refund?"


def _partly_hidden_no_evidence(settings):
    """An open passage on the topic that does not answer, and an hr-only one that answers but takes effect in 2099:
    an hr member's question is no-evidence because the hidden passage is not in effect yet."""
    factories.ingest_text(
        OPEN_TEXT,
        source_id="open/refund-desk",
        title="Refund desk",
    )
    factories.ingest_text(
        "Refund policy. Customers may request a refund within 45 days of purchase.",
        source_id="hr/refunds-2099",
        title="Refund policy 2099",
        groups=["hr"],
        effective_from=dt.date(2099, 1, 1),
    )
    settings.RAG = settings.RAG | {"MIN_RELEVANCE": 0.16}
    asker = factories.make_user("asker", groups=("staff", "hr"))
    answer = services.ask(user=asker, question=REFUND_Q)
    return asker, answer


@pytest.mark.parametrize("who", ["outside_reviewer", "asker_left_group"])
def test_the_no_evidence_reason_is_read_from_the_passages_the_viewer_may_read(levels, settings, who):
    asker, answer = _partly_hidden_no_evidence(settings)
    # As asked: the hr passage answers but takes effect in 2099; the open one is on the topic without answering.
    reasons = {c["source_id"]: c["reason"] for c in answer.trace.candidates}
    assert (answer.reason, reasons) == (
        "out_of_period",
        {"hr/refunds-2099": "not_yet_effective", "open/refund-desk": "not_answering"},
    )
    member = answer_payload(answer, viewer=factories.make_user("revhr", groups=("staff", "reviewer", "hr")))
    assert member["reason"] == "out_of_period"

    viewer = factories.make_user("rev", groups=("staff", "reviewer"))
    if who == "asker_left_group":
        asker.groups.remove(factories.make_group("hr"))
        viewer = type(asker).objects.get(pk=asker.pk)
    body = api_for(viewer).get(f"/api/v1/answers/{answer.pk}").json()
    page = client_for(viewer).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    # What they are shown: one related passage, in effect, that does not state what was asked.
    assert [(r["source_id"], r["out_of_period"]) for r in body["related"]] == [("open/refund-desk", None)]
    assert body["reason"] == "no_answering_passage", body["reason"]
    assert "none is in effect today" not in page
    if who == "outside_reviewer":  # the answers list and the review queue say the same
        listed = api_for(viewer).get("/api/v1/answers/").json()["results"]
        assert [(r["id"], r["reason"]) for r in listed] == [(answer.pk, "no_answering_passage")]


def test_a_refused_scope_is_said_in_the_readers_language(levels, staff_user):
    factories.ingest_text("Executive salaries rise by 4.5 percent.", source_id="hr/pay", groups=["hr"])
    html = (
        client_for(staff_user)
        .post(
            reverse("ask"),
            {"question": "工资涨多少？", "scope_documents": ["hr/pay"]},
            HTTP_ACCEPT_LANGUAGE="zh-CN",
        )
        .content.decode()
    )
    assert "Unknown documents in the scope" not in html
    assert "范围" in html and "hr/pay" in html  # the refusal, in Chinese, names what was sent
    body = api_for(staff_user).post(
        "/api/v1/ask",
        {"question": "工资涨多少？", "scope": {"documents": ["hr/pay"], "groups": ["hr"]}},
        format="json",
        HTTP_ACCEPT_LANGUAGE="zh-CN",
    )
    assert body.status_code == 400 and body.json()["code"] == "invalid"
    assert "Unknown" not in body.json()["fields"]["scope"][0], body.json()


def test_a_model_answer_that_stated_nothing_keeps_its_reason_while_a_passage_it_was_given_is_readable(levels):
    """Edge of the fix above: `nothing_stated` is about the passages the model was given (kept). A viewer who may read
    one of them is told so; one who may read none is given what their readable rejected passages say."""
    from tests.views.answers import make_answer

    factories.ingest_text("Refunds are handled at the service desk.", source_id="open/desk")
    factories.ingest_text("Refunds are accepted within 45 days.", source_id="hr/refunds", groups=["hr"])

    def row(source_id, **extra):
        return {"chunk_id": f"{source_id}:v1:0", "source_id": source_id, "relevance": 0.3, "language": "en", **extra}

    asker = factories.make_user("asker", groups=("staff", "hr"))

    def answer_with(*candidates):
        return make_answer(
            user=asker,
            state="no_evidence",
            mode="llm",
            reason="nothing_stated",
            trace={"threshold": 0.5, "candidates": list(candidates)},
        )

    rev = factories.make_user("rev", groups=("staff", "reviewer"))
    both_kept = answer_with(row("hr/refunds", kept=True), row("open/desk", kept=True))
    assert answer_payload(both_kept, viewer=rev)["reason"] == "nothing_stated"
    hidden_kept = answer_with(row("hr/refunds", kept=True), row("open/desk", kept=False, reason="below_threshold"))
    assert answer_payload(hidden_kept, viewer=rev)["reason"] == "below_threshold"
    member = factories.make_user("revhr", groups=("staff", "reviewer", "hr"))
    assert answer_payload(hidden_kept, viewer=member)["reason"] == "nothing_stated"


def test_a_readable_related_passage_is_listed_however_many_hidden_ones_rank_above_it(levels):
    """Edge of the fix above: the outsider is told that related passages were found (below_threshold) when a readable
    one is related, so it is listed too, also below more hidden ones than the list's length: the related passages
    are those the viewer may read, cut after the access rule, not before it."""
    from tests.views.answers import make_answer

    factories.ingest_text("Refunds are handled at the service desk.", source_id="open/desk")
    hidden = [
        {"chunk_id": f"hr/r{i}:v1:0", "source_id": f"hr/r{i}", "relevance": 0.4 - i / 100, "language": "en"}
        for i in range(15)
    ]
    for row in hidden:
        factories.ingest_text("Refunds within 45 days.", source_id=row["source_id"], groups=["hr"])
    readable = {"chunk_id": "open/desk:v1:0", "source_id": "open/desk", "relevance": 0.25, "language": "en"}
    answer = make_answer(
        user=factories.make_user("asker", groups=("staff", "hr")),
        state="no_evidence",
        reason="below_threshold",
        trace={
            "threshold": 0.5,
            "candidates": [row | {"kept": False, "reason": "below_threshold"} for row in [*hidden, readable]],
        },
    )
    body = answer_payload(answer, viewer=factories.make_user("rev", groups=("staff", "reviewer")))
    assert (body["reason"], [r["source_id"] for r in body["related"]]) == ("below_threshold", ["open/desk"])


def test_the_lists_flag_no_insufficient_paragraph_the_detail_withholds(levels):
    """An extractive answer quotes an open passage and, as a second paragraph, a label of an hr passage that states
    nothing (support.apply_support: insufficient, citations dropped). The hr passage was in the answer's context."""
    from tests.views.answers import Para, make_answer

    factories.ingest_text("Refunds are accepted within 30 days of purchase.", source_id="open/refunds")
    factories.ingest_text(
        "Refund bands. Executives are refunded within 90 days.", source_id="hr/refunds", groups=["hr"]
    )
    open_, hidden = factories.chunks_of("open/refunds")[0], factories.chunks_of("hr/refunds")[0]
    answer = make_answer(
        user=factories.make_user("asker", groups=("staff", "hr")),
        paragraphs=[
            Para("Refunds are accepted within 30 days of purchase.", cites=[("S1", open_)]),
            Para("Refund bands.", insufficient=True),
        ],
        trace={
            "threshold": 0.5,
            "marker_map": {
                "S1": {"chunk_id": open_.chunk_id, "source_id": "open/refunds"},
                "S2": {"chunk_id": hidden.chunk_id, "source_id": "hr/refunds"},
            },
            "candidates": [
                {"chunk_id": open_.chunk_id, "source_id": "open/refunds", "kept": True},
                {"chunk_id": hidden.chunk_id, "source_id": "hr/refunds", "kept": True},
            ],
            "settings_snapshot": {"quoted": True},
        },
    )
    rev = factories.make_user("rev", groups=("staff", "reviewer"))
    body = api_for(rev).get(f"/api/v1/answers/{answer.pk}").json()
    assert [p["evidence_status"] for p in body["paragraphs"]] == ["linked", "withheld"]
    listed = api_for(rev).get("/api/v1/answers/").json()["results"]
    assert [(r["id"], r["has_insufficient"]) for r in listed] == [(answer.pk, False)]
    assert api_for(rev).get("/api/v1/answers/", {"status": "insufficient"}).json()["count"] == 0
    # A member, shown both paragraphs, is given the flag.
    member = factories.make_user("revhr", groups=("staff", "reviewer", "hr"))
    assert [r["has_insufficient"] for r in api_for(member).get("/api/v1/answers/").json()["results"]] == [True]


def test_an_upload_refused_for_a_hidden_source_id_is_said_in_the_readers_language(levels):
    from django.core.files.uploadedfile import SimpleUploadedFile

    factories.make_document("Pay bands.", source_id="hr/pay.txt", groups=["hr"])
    outsider = factories.make_user("outsider", groups=("staff", "admin"))
    response = client_for(outsider).post(
        reverse("document_upload"),
        {"file": SimpleUploadedFile("pay.txt", b"New bands."), "source_id": "hr/pay.txt"},
        HTTP_ACCEPT_LANGUAGE="zh-CN",
    )
    html = response.content.decode()
    assert response.status_code == 404
    assert "No document" not in html and "hr/pay.txt" in html
    body = api_for(outsider).post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("pay.txt", b"New bands."), "source_id": "hr/pay.txt"},
        format="multipart",
        HTTP_ACCEPT_LANGUAGE="zh-CN",
    )
    assert body.status_code == 404 and "No document" not in body.json()["detail"], body.json()
    # The same words as the API's 404 for any document it will not show (docs/SECURITY.md): nothing tells them apart.
    shown = api_for(outsider).get("/api/v1/documents/hr/pay.txt", HTTP_ACCEPT_LANGUAGE="zh-CN").json()["detail"]
    assert shown == body.json()["detail"] == "没有文档 'hr/pay.txt'。"
    english = api_for(outsider).get("/api/v1/documents/hr/pay.txt").json()["detail"]
    assert english == "No document 'hr/pay.txt'."
