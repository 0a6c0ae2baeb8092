"""Stored answers seen later by someone outside a restricted document's group (a reviewer, or the asker after
leaving the group): what the conflict check recorded, a copy's note, the no-evidence reason and its related
passages, comments and review notes, and the review list's conflict flag. Found by a reviewing helper's probes
(session 24); each failed before its fix."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import Permission, User
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app import services
from rag_app.models import Answer, Document, Feedback
from tests import factories
from tests.llm_server import completion
from tests.views.answers import Para, make_answer
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db
SECRET = "Salary bands for 2027 rise by 4.5 percent in grade seven."
OPEN = "The canteen opens at eight in the morning on weekdays."
Q_PAY = "How much do salary bands rise in 2027?"
HIDDEN_NE = "Executive bonus pool for the Zanzibar merger is nine million."
Q_NE = "When is the Zanzibar merger bonus paid?"


def api(user):
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return c


def outsider_reviewer():
    return factories.make_user("rev", groups=("staff", "reviewer"))


def conflict_answer():
    """Open official doc says 30 days, hr-only note says 47 days; an hr member asks."""
    factories.ingest_text("Refunds are accepted within 30 days of purchase.", source_id="policy/refunds.txt")
    factories.ingest_text(
        "Refunds are accepted within 47 days of purchase.", source_id="hr/refunds.txt", level="note", groups=["hr"]
    )
    asker = factories.make_user("asker", groups=("staff", "hr"))
    answer = services.ask(user=asker, question="Within how many days of purchase are refunds accepted?")
    assert answer.conflict
    return answer


def no_evidence_answer():
    factories.ingest_text("The parking garage permit costs forty euros a month for staff.", source_id="open/x")
    factories.ingest_text(HIDDEN_NE, source_id="hr/bonus", groups=["hr"])
    asker = factories.make_user("asker", groups=("staff", "hr"))
    answer = services.ask(user=asker, question=Q_NE)
    assert answer.state == "no_evidence" and answer.reason == "no_answering_passage"
    return asker, answer


# the trace's settings_snapshot keeps the hidden side's conflicting value
def test_the_trace_keeps_no_conflict_value_of_a_hidden_source(levels):
    answer = conflict_answer()
    trace = api(outsider_reviewer()).get(f"/api/v1/answers/{answer.pk}/trace").json()
    assert trace["redacted"] is True
    assert "1128 h" not in json.dumps(trace["settings_snapshot"]), trace["settings_snapshot"]["conflicts"]
    # nor says which readable source disagreed with a hidden one
    assert trace["settings_snapshot"]["conflicting_markers"] == []
    assert trace["settings_snapshot"].get("statements_added", []) == []
    # a reviewer who may read both sides gets all of it
    member = factories.make_user("revhr", groups=("staff", "reviewer", "hr"))
    own = api(member).get(f"/api/v1/answers/{answer.pk}/trace").json()["settings_snapshot"]
    assert sorted(own["conflicting_markers"]) == ["S1", "S2"] and "1128 h" in json.dumps(own["conflicts"])


# a kept copy's `detail` names the hidden original it qualified with
def test_a_copys_note_does_not_name_the_hidden_original_it_qualified_with(levels, settings):
    from rag_app.pipeline.tiering import share
    from tests.services.test_copies_qualify_together import CLAUSE, EDITED, OTHERS, QUESTION

    factories.ingest_text(CLAUSE, source_id="gpl3/2024", title="License terms (2024)")
    factories.ingest_text(EDITED, source_id="gpl3/2023", title="License terms (2023)")
    for i, text in enumerate(OTHERS):
        factories.ingest_text(text, source_id=f"other/{i}")
    asker = factories.make_user("asker", groups=("staff", "hr"))
    settings.RAG = settings.RAG | {"MIN_RELEVANCE": 0.01}
    rel = {c["source_id"]: c["relevance"] for c in services.ask(user=asker, question=QUESTION).trace.candidates}
    strong, weak = sorted(("gpl3/2024", "gpl3/2023"), key=lambda s: -rel[s])
    settings.RAG = settings.RAG | {"MIN_RELEVANCE": (rel[strong] + rel[weak]) / 2 / share("en", "en")}
    Document.objects.get(source_id=strong).groups.set([factories.make_group("hr")])
    answer = services.ask(user=asker, question=QUESTION)
    rev = outsider_reviewer()
    trace = api(rev).get(f"/api/v1/answers/{answer.pk}/trace").json()
    page = client_for(rev).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    details = [c.get("detail") for c in trace["candidates"]]
    assert strong not in json.dumps(trace), details
    assert strong not in page


# no-evidence reason/message/heading say "related passages exist" when all are hidden from the viewer
@pytest.mark.parametrize("who", ["outside_reviewer", "asker_left_group"])
def test_no_evidence_does_not_say_related_passages_exist_when_all_are_hidden(levels, who):
    asker, answer = no_evidence_answer()
    viewer = outsider_reviewer()
    if who == "asker_left_group":
        asker.groups.remove(factories.make_group("hr"))
        viewer = User.objects.get(pk=asker.pk)
    body = api(viewer).get(f"/api/v1/answers/{answer.pk}").json()
    page = client_for(viewer).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    assert body["related"] == []
    assert body["reason"] != "no_answering_passage", body["reason"]
    if who == "outside_reviewer":  # the answers list is the reviewers'
        listed = api(viewer).get("/api/v1/answers/").json()["results"]
        assert [(r["id"], r["reason"]) for r in listed] == [(answer.pk, "no_match")]
    else:
        assert api(viewer).get("/api/v1/answers/").status_code == 403
    assert "Related passages, but none answers the question" not in page


# answer list / review queue show conflict=True where the detail says conflict=False
def test_the_answer_list_flags_no_conflict_the_detail_hides(levels):
    answer = conflict_answer()
    rev = outsider_reviewer()
    assert api(rev).get(f"/api/v1/answers/{answer.pk}").json()["conflict"] is False
    listed = api(rev).get("/api/v1/answers/", {"status": "conflict"}).json()
    assert [r["conflict"] for r in listed["results"]] == [], listed["results"]
    assert "badge conflict" not in client_for(rev).get(reverse("review_list")).content.decode()


# comments / reviewer notes on a no-evidence answer whose related passage is hidden
def test_comments_on_a_no_evidence_answer_with_hidden_related_passages_are_withheld(levels):
    from rag_app.services.feedback import answer_review, feedback_add

    asker, answer = no_evidence_answer()
    feedback_add(user=asker, answer=answer, kind="ask_reviewer", comment="pool is nine million; when paid?")
    answer_review(reviewer=factories.make_admin("root"), answer=answer, verdict="ok", note="nine million, right")
    rev = outsider_reviewer()
    prov = client_for(rev).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    body = api(rev).get(f"/api/v1/answers/{answer.pk}").json()
    assert "nine million" not in json.dumps(body), body["review"]
    assert "nine million" not in prov
    # the asker, who may read the related passage, keeps the note and the reason
    own = api(asker).get(f"/api/v1/answers/{answer.pk}").json()
    assert own["review"]["note"] == "nine million, right" and own["reason"] == "no_answering_passage"


def test_a_hidden_rejected_candidate_withholds_reviewers_notes_not_readers_comments(levels):
    """Only a no-evidence answer's asker was shown its candidates (as related passages): an answered one's readers'
    comments quote what it cites, which the viewer reads. A reviewer's note may quote any candidate the review read
    (session 27's review: a note quoting the HR memo reached a reviewer outside HR), so it is shown only to a viewer
    shown all of the answer, the one rule that also lets a reviewer record a verdict (presentation.fully_shown)."""
    from rag_app.services.feedback import answer_review

    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    factories.make_document(OPEN, source_id="open/canteen.txt")
    open_ = factories.chunks_of("open/canteen.txt")[0]
    answer = make_answer(
        user=factories.make_user("asker", groups=("staff", "hr")),
        paragraphs=[Para(OPEN, cites=[("S1", open_)])],
        trace={
            "marker_map": {"S1": {"chunk_id": open_.chunk_id, "source_id": "open/canteen.txt"}},
            "candidates": [
                {"chunk_id": open_.chunk_id, "source_id": "open/canteen.txt", "kept": True},
                {"chunk_id": "hr/pay.txt:v1:0", "source_id": "hr/pay.txt", "kept": False},
                {"chunk_id": "x", "kept": False},  # a row without a source_id names no document
            ],
        },
    )
    answer_review(reviewer=factories.make_admin("root"), answer=answer, verdict="ok", note="opens at eight, right")
    Feedback.objects.create(answer=answer, user=answer.user, kind="comment", comment="the canteen opens at eight")
    outsider = outsider_reviewer()
    body = api(outsider).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["review"]["note"] is None and body["review"]["note_withheld"]
    html = client_for(outsider).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert "the canteen opens at eight" in html and "opens at eight, right" not in html
    assert api(factories.make_admin("root2")).get(f"/api/v1/answers/{answer.pk}").json()["review"]["note"] == (
        "opens at eight, right"
    )


# related list ignores existing_at: a reused source_id lists the deleted hidden passage's score/lacks
def test_related_passages_of_a_deleted_document_are_not_those_of_its_reused_id(levels):
    from rag_app.services.documents import document_delete

    _, answer = no_evidence_answer()
    Answer.objects.filter(pk=answer.pk).update(created_at=answer.created_at.replace(year=answer.created_at.year - 1))
    document_delete(user=None, document=Document.objects.get(source_id="hr/bonus"))
    factories.ingest_text("Cafeteria menu for Monday.", source_id="hr/bonus")  # id reused, open
    body = api(outsider_reviewer()).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["related"] == [], (body["related"], body["unmatched_words"])


# --- paths that held when probed ------------------------------------------------------------
def test_the_admin_site_is_for_superusers_only(levels):
    factories.ingest_text("Secret text.", source_id="hr/x", groups=["hr"])
    u = factories.make_user("adm", groups=("staff", "admin"), is_staff=True)
    u.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    for url in ("/admin/", "/admin/rag_app/document/", "/admin/rag_app/chunk/"):
        r = client_for(u).get(url)
        assert r.status_code == 302 and b"hr/x" not in r.content


def test_an_outsider_sees_no_hidden_text_in_a_conflict_answer(levels):
    answer = conflict_answer()
    rev = outsider_reviewer()
    body = json.dumps(api(rev).get(f"/api/v1/answers/{answer.pk}").json())
    page = client_for(rev).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    prov = client_for(rev).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    for text in (body, page, prov):
        assert "47 days" not in text and "hr/refunds.txt" not in text


def test_related_passages_and_the_trace_are_filtered_for_an_outsider(levels):
    _, answer = no_evidence_answer()
    rev = outsider_reviewer()
    body = json.dumps(api(rev).get(f"/api/v1/answers/{answer.pk}").json())
    trace = json.dumps(api(rev).get(f"/api/v1/answers/{answer.pk}/trace").json())
    prov = client_for(rev).get(reverse("answer_provenance", args=[answer.pk]) + "?replay=1").content.decode()
    for text in (body, trace, prov):
        assert "Zanzibar merger is" not in text and "hr/bonus" not in text


def test_a_hidden_id_answers_as_an_unknown_one(levels, staff_user):
    factories.ingest_text("Secret text.", source_id="hr/x", groups=["hr"])
    c, a = client_for(staff_user), api(staff_user)
    for hidden, unknown in [("/documents/hr/x/v1/", "/documents/nope/v1/"), ("/documents/hr/x/", "/documents/nope/")]:
        assert c.get(hidden).status_code == c.get(unknown).status_code == 404
    for hidden, unknown in [
        ("/api/v1/documents/hr/x", "/api/v1/documents/nope"),
        ("/api/v1/chunks/hr/x:v1:0", "/api/v1/chunks/nope:v1:0"),
        ("/api/v1/documents/hr/x/versions/", "/api/v1/documents/nope/versions/"),
    ]:
        assert a.get(hidden).status_code == a.get(unknown).status_code == 404
    r1 = a.post("/api/v1/ask", {"question": "x?", "scope": {"documents": ["hr/x"]}}, format="json").json()
    r2 = a.post("/api/v1/ask", {"question": "x?", "scope": {"documents": ["nope"]}}, format="json").json()
    assert r1["fields"]["scope"][0].replace("hr/x", "ID") == r2["fields"]["scope"][0].replace("nope", "ID")


# A malformed marker keeps the model's words around it, which may quote the hidden context
@pytest.mark.parametrize("structured", ["none", "json_schema"])
def test_dropped_markers_of_a_hidden_context_answer_are_withheld(levels, settings, scripted_server, structured):
    factories.ingest_text(SECRET, source_id="hr/pay.txt", groups=["hr"])
    asker = factories.make_user("asker", groups=("staff", "hr"))
    settings.RAG = settings.RAG | {
        "OPENAI_BASE_URL": scripted_server.base_url,
        "LLM_STRUCTURED": structured,
        "LLM_TIMEOUT": 5.0,
        "LLM_RETRIES": 0,
    }
    if structured == "none":
        reply = "Bands rise as stated [S1: rises 4.5 pct grade 7]."
    else:
        reply = json.dumps({"paragraphs": [{"text": "Bands rise as stated.", "citation_ids": ["4.5 pct grade 7"]}]})
    scripted_server.queue(completion(reply))
    answer = services.ask(user=asker, question=Q_PAY, mode="llm")
    assert "hr/pay.txt" in json.dumps(answer.trace.marker_map)  # the model saw the hr chunk
    rev = factories.make_user("rev", groups=("staff", "reviewer"))
    trace = api(rev).get(f"/api/v1/answers/{answer.pk}/trace").json()
    assert trace["redacted"] is True
    assert "4.5 pct grade 7" not in json.dumps(trace), trace["dropped_markers"]


# The list's weak and insufficient flags of a paragraph the detail withholds
@pytest.mark.parametrize("flag", ["weak", "insufficient"])
def test_list_flags_weak_and_insufficient_only_for_what_the_viewer_is_shown(levels, flag):
    """The list's has_weak / has_insufficient (and ?status=) of a paragraph the detail withholds."""
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    factories.make_document(OPEN, source_id="open/canteen.txt")
    secret, open_ = factories.chunks_of("hr/pay.txt")[0], factories.chunks_of("open/canteen.txt")[0]
    asker = factories.make_user("asker", groups=("staff", "hr"))
    hidden = (
        Para("Bands go up a bit.", cites=[("S1", secret)], weak=True, support=0.1)
        if flag == "weak"
        else Para("Grade seven gets the most.", insufficient=True)
    )
    answer = make_answer(
        user=asker,
        mode=Answer.Mode.EXTRACTIVE if flag == "weak" else Answer.Mode.LLM,
        paragraphs=[Para(OPEN, cites=[("S2", open_)]), hidden],
        trace={
            "marker_map": {
                "S1": {"chunk_id": secret.chunk_id, "source_id": "hr/pay.txt"},
                "S2": {"chunk_id": open_.chunk_id, "source_id": "open/canteen.txt"},
            },
            "candidates": [],
            "settings_snapshot": {"quoted": flag == "weak"},
        },
    )
    rev = factories.make_user("rev", groups=("staff", "reviewer"))
    body = api(rev).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["paragraphs"][1]["evidence_status"] == "withheld" and body["paragraphs"][1]["support"] is None
    listed = api(rev).get("/api/v1/answers/").json()["results"][0]
    count = api(rev).get("/api/v1/answers/", {"status": flag}).json()["count"]
    page = client_for(rev).get(reverse("review_list")).content.decode()
    badge = 'class="weak-mark"' if flag == "weak" else 'class="badge insufficient"'
    assert (listed[f"has_{flag}"], count, badge in page) == (False, 0, False)


def test_a_readable_candidates_detail_does_not_name_a_hidden_title(levels):
    """answerability: "of another document than the one the question names (<titles>)" lists every candidate
    title the question names, hidden ones included; trace_for only masks hidden chunk_ids and source_ids."""
    factories.ingest_text(
        "Retention bonus payouts are nine million in March.",
        source_id="hr/zerp",
        groups=["hr"],
        title="Zanzibar Executive Retention Plan (CONFIDENTIAL draft 7)",
    )
    factories.ingest_text(
        "Executive bonus payouts in Zanzibar: under the retention plan they are paid in December.",
        source_id="open/bonus",
        title="Staff bonus guide",
    )
    asker = factories.make_user("asker", groups=("staff", "hr"))
    answer = services.ask(
        user=asker, question="What does the Zanzibar Executive Retention Plan say about bonus payouts?"
    )
    rev = factories.make_user("rev", groups=("staff", "reviewer"))
    trace = api(rev).get(f"/api/v1/answers/{answer.pk}/trace").json()
    page = client_for(rev).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert trace["withheld"] == 1  # the hr candidate itself is left out ...
    details = [c.get("detail") for c in trace["candidates"]]
    assert "CONFIDENTIAL draft 7" not in json.dumps(trace), details  # ... but its title is in the open row
    assert "CONFIDENTIAL draft 7" not in page


# --- 5. numeric: what the outsider's trace still says about the hidden candidates ------------------
def test_a_short_name_only_a_hidden_document_holds_does_not_change_the_answer(levels):
    factories.ingest_text("Parking permits cost forty euros a month for staff.", source_id="open/parking")
    asker = factories.make_user("asker", groups=("staff",))
    question = "How much do ZQXR parking permits cost a month?"
    before = services.ask(user=asker, question=question)
    factories.ingest_text("The ZQXR programme is a confidential merger project.", source_id="hr/z", groups=["hr"])
    after = services.ask(user=asker, question=question)
    assert (before.state, before.reason) == (after.state, after.reason)
