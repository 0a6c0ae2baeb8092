"""Regression tests for the permission leaks of issue 11, one per reported case (each failed on the old main).

The full user x document x read-path table is tests/test_access_matrix.py; these pin the exact
scenarios that were reproduced.
"""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app.models import Answer, Document, LevelChange
from tests import factories
from tests.views.answers import Para, make_answer
from tests.views.conftest import client_for
from tests.workers import run_queued_jobs

pytestmark = pytest.mark.django_db

SECRET = "Salary bands for 2027 rise by 4.5 percent in grade seven."
OPEN = "The canteen opens at eight in the morning on weekdays."


def api(user: User) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return client


def hr_answer(*, owner: User, mode: str = Answer.Mode.EXTRACTIVE, uncited: str | None = None) -> Answer:
    """An answer that quoted an hr document (and, in model mode, an uncited paragraph)."""
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    factories.make_document(OPEN, source_id="open/canteen.txt")
    secret, open_ = factories.chunks_of("hr/pay.txt")[0], factories.chunks_of("open/canteen.txt")[0]
    paragraphs = [Para(OPEN, cites=[("S2", open_)]), Para(SECRET, cites=[("S1", secret)])]
    if uncited is not None:
        paragraphs.append(Para(uncited, insufficient=True))
    trace = {
        "marker_map": {
            "S1": {"chunk_id": secret.chunk_id, "source_id": "hr/pay.txt"},
            "S2": {"chunk_id": open_.chunk_id, "source_id": "open/canteen.txt"},
        },
        "candidates": [],
        "context": f"[S1] {SECRET}\n[S2] {OPEN}",
        "settings_snapshot": {"quoted": mode == Answer.Mode.EXTRACTIVE},
    }
    return make_answer(user=owner, paragraphs=paragraphs, mode=mode, trace=trace)


def test_case1_the_api_withholds_what_the_page_withholds(levels):
    """A reviewer outside hr: the API answer has no hr text, exactly like /answers/<id>/."""
    asker = factories.make_user("asker", groups=("staff", "hr"))
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    answer = hr_answer(owner=asker)
    body = api(reviewer).get(f"/api/v1/answers/{answer.pk}").json()
    page = client_for(reviewer).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    assert SECRET not in json.dumps(body) and SECRET not in page
    assert "hr/pay.txt" not in json.dumps(body)
    statuses = [p["evidence_status"] for p in body["paragraphs"]]
    assert statuses == ["linked", "withheld"] and body["withheld_paragraphs"] == 1
    assert body["paragraphs"][1]["text"] == "This paragraph rests on a document you cannot access."
    assert OPEN in json.dumps(body)


def test_case1_the_asker_who_left_the_group_no_longer_reads_it(levels):
    """Leaving hr takes the asker's own old answer's hr paragraph away, on every surface."""
    asker = factories.make_user("asker", groups=("staff", "hr"))
    answer = hr_answer(owner=asker)
    assert SECRET in json.dumps(api(asker).get(f"/api/v1/answers/{answer.pk}").json())
    asker.groups.remove(factories.make_group("hr"))
    asker = User.objects.get(pk=asker.pk)
    assert SECRET not in json.dumps(api(asker).get(f"/api/v1/answers/{answer.pk}").json())
    assert SECRET not in client_for(asker).get(reverse("answer_detail", args=[answer.pk])).content.decode()


def _upload_groups(client: APIClient, data: dict[str, object], *, wait: bool) -> tuple[int, list[str]]:
    """POST a file to the API and return the status and the document's groups afterwards: from the
    response with ?wait=1, else from the document once the queued job has run (as a worker runs it)."""
    response = client.post("/api/v1/documents/" + ("?wait=1" if wait else ""), data, format="multipart")
    if wait:
        return response.status_code, response.json()["document"]["groups"]
    assert response.status_code == 202, response.content
    [job] = run_queued_jobs()
    assert job.pk == response.json()["job"]["id"] and job.state == "done", job.error
    source_id = job.results[0]["source_id"]
    return response.status_code, client.get(f"/api/v1/documents/{source_id}").json()["groups"]


@pytest.mark.parametrize("wait", [False, True], ids=["queued", "wait"])
def test_case2_an_upload_without_groups_keeps_the_documents_groups(levels, admin_user_role, wait):
    """Multipart with only `file` for an existing restricted source_id: groups stay (changed or not),
    whether the upload is ingested by a worker (202) or within the request (?wait=1)."""
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    client = api(admin_user_role)
    for data in (SECRET.encode(), b"Salary bands for 2028 are frozen."):
        code, groups = _upload_groups(
            client, {"file": SimpleUploadedFile("pay.txt", data), "source_id": "hr/pay.txt"}, wait=wait
        )
        assert code in ((200, 201) if wait else (202,))
        assert groups == ["hr"]
    assert list(Document.objects.get(source_id="hr/pay.txt").groups.values_list("name", flat=True)) == ["hr"]
    assert Document.objects.get(source_id="hr/pay.txt").versions.count() == 2


@pytest.mark.parametrize("wait", [False, True], ids=["queued", "wait"])
def test_case2_clearing_groups_takes_an_explicit_empty_value(levels, admin_user_role, wait):
    """`groups=` (one empty value) opens the document to all staff; that is the only way."""
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    code, groups = _upload_groups(
        api(admin_user_role),
        {"file": SimpleUploadedFile("pay.txt", SECRET.encode()), "source_id": "hr/pay.txt", "groups": ""},
        wait=wait,
    )
    assert code == (200 if wait else 202) and groups == []
    assert not Document.objects.get(source_id="hr/pay.txt").groups.exists()


def test_case2_the_web_upload_keeps_groups_and_level_unless_chosen(levels, admin_user_role):
    """The upload form's defaults change nothing: same groups, same level after a new version."""
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"], level="official")
    response = client_for(admin_user_role).post(
        reverse("document_upload"),
        {"file": SimpleUploadedFile("pay.txt", b"Salary bands for 2028 are frozen."), "source_id": "hr/pay.txt"},
    )
    assert response.status_code == 302
    [job] = run_queued_jobs()
    assert job.state == "done", job.error
    doc = Document.objects.get(source_id="hr/pay.txt")
    assert list(doc.groups.values_list("name", flat=True)) == ["hr"] and doc.level.slug == "official"
    assert doc.versions.count() == 2


def test_a_level_set_by_an_upload_records_the_uploader(levels, admin_user_role):
    """The change log's "who" of a level chosen on the upload form is the admin, not "—"."""
    factories.make_document(OPEN, source_id="open/canteen.txt", level="note")
    client_for(admin_user_role).post(
        reverse("document_upload"),
        {"file": SimpleUploadedFile("c.txt", OPEN.encode()), "source_id": "open/canteen.txt", "level": "official"},
    )
    run_queued_jobs()  # the worker applies the level, as the uploader
    change = LevelChange.objects.get(document__source_id="open/canteen.txt")
    assert (change.user, change.old_value, change.new_value) == (admin_user_role, "note", "official")


def test_case2_the_cli_keeps_groups_unless_told(levels, tmp_path: Path):
    """`ingest` without --group keeps them; --no-groups clears them explicitly."""
    factories.make_document(SECRET, source_id="pay.txt", groups=["hr"])
    file = tmp_path / "pay.txt"
    file.write_text("Salary bands for 2028 are frozen.")
    call_command("ingest", str(file), stdout=StringIO())
    assert list(Document.objects.get(source_id="pay.txt").groups.values_list("name", flat=True)) == ["hr"]
    call_command("ingest", str(file), "--no-groups", stdout=StringIO())
    assert not Document.objects.get(source_id="pay.txt").groups.exists()


@pytest.mark.parametrize("path", ["answer_detail", "answer_provenance"])
def test_case3_an_uncited_model_paragraph_is_withheld_when_the_model_saw_hidden_text(levels, path):
    """Model mode: a paragraph may carry any context chunk's text, cited or not."""
    asker = factories.make_user("asker", groups=("staff", "hr"))
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    answer = hr_answer(owner=asker, mode=Answer.Mode.LLM, uncited="Pay rises 4.5 percent in grade seven.")
    html = client_for(reviewer).get(reverse(path, args=[answer.pk])).content.decode()
    assert "4.5 percent" not in html
    body = json.dumps(api(reviewer).get(f"/api/v1/answers/{answer.pk}").json())
    assert "4.5 percent" not in body and OPEN not in body  # every paragraph: the model saw hr text
    assert SECRET in json.dumps(api(asker).get(f"/api/v1/answers/{answer.pk}").json())


def test_case3_an_extractive_quotation_of_visible_text_stays_visible(levels):
    """Extractive paragraphs are their citations' own words: the open one is still shown."""
    asker = factories.make_user("asker", groups=("staff", "hr"))
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    answer = hr_answer(owner=asker)
    html = client_for(reviewer).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    assert OPEN in html and "[1]" in html and SECRET not in html


@pytest.mark.parametrize(
    "bad", ["a\nb", "tab\there", "nul\x00x", " lead", "trail ", "../up", "a/./b", "x\u202eevil", "z\u200bw"]
)
def test_case5_a_control_character_in_a_source_id_is_refused_everywhere(levels, admin_user_role, bad):
    """API 400, web form error, CLI error line: each names the rule; nothing is stored."""
    response = api(admin_user_role).post(
        "/api/v1/documents/",
        {"file": SimpleUploadedFile("x.txt", b"Some text."), "source_id": bad},
        format="multipart",
    )
    assert response.status_code == 400, bad
    assert "source_id" in response.json()["fields"]
    form = client_for(admin_user_role).post(
        reverse("document_upload"), {"file": SimpleUploadedFile("x.txt", b"Some text."), "source_id": bad}
    )
    assert form.status_code == 400 and "source_id must not" in form.content.decode()
    assert not Document.objects.exists()


def test_case5_folder_ingest_reports_a_bad_file_name_and_goes_on(levels, tmp_path: Path):
    """A file named `a\\nb.txt` gets an error line; its neighbours are ingested."""
    (tmp_path / "a\nb.txt").write_text("Bad name.")
    (tmp_path / "good.txt").write_text("Good name.")
    err = StringIO()
    with pytest.raises(CommandError, match="1 of 2 files failed"):
        call_command("ingest", str(tmp_path), stdout=StringIO(), stderr=err)
    assert "control or invisible characters" in err.getvalue()
    assert list(Document.objects.values_list("source_id", flat=True)) == ["good.txt"]


def test_case5_the_check_command_names_stored_bad_ids(levels):
    """Rows from before the rule are reported by `check --database default`."""
    Document.objects.create(source_id="old\nrow")
    out = StringIO()
    call_command("check", "--database", "default", stdout=out, stderr=out)
    assert "rag_app.W001" in out.getvalue() and "'old\\nrow'" in out.getvalue()


def test_case6_a_filter_by_a_hidden_document_counts_nothing(levels):
    """?source_id= / ?document= naming a hidden document behave like an unknown id."""
    asker = factories.make_user("asker", groups=("staff", "hr"))
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    hr_answer(owner=asker)
    assert api(reviewer).get("/api/v1/answers/", {"source_id": "hr/pay.txt"}).json()["count"] == 0
    page = client_for(reviewer).get(reverse("review_list"), {"document": "hr/pay.txt"}).content.decode()
    assert "How long is the refund deadline?" not in page
    insider = factories.make_user("insider", groups=("staff", "reviewer", "hr"))
    assert api(insider).get("/api/v1/answers/", {"source_id": "hr/pay.txt"}).json()["count"] == 1


# --- found by an adversarial review of this change ------------------------------------------


def test_a_scope_naming_a_hidden_document_or_group_is_not_shown_to_outsiders(levels):
    """The stored scope is shown less what the viewer may not know of (answer, page, trace)."""
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    asker = factories.make_user("asker", groups=("staff", "hr"))
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    body = (
        api(asker)
        .post(
            "/api/v1/ask",
            {"question": "How much do salary bands rise?", "scope": {"documents": ["hr/pay.txt"], "groups": ["hr"]}},
            format="json",
        )
        .json()
    )
    assert body["scope"] == {"groups": ["hr"], "documents": ["hr/pay.txt"]}
    seen = api(reviewer).get(f"/api/v1/answers/{body['id']}").json()
    trace = api(reviewer).get(f"/api/v1/answers/{body['id']}/trace").json()
    page = client_for(reviewer).get(reverse("answer_detail", args=[body["id"]])).content.decode()
    for text in (json.dumps(seen), json.dumps(trace), page):
        assert "hr/pay.txt" not in text and '"hr"' not in text and "<code>hr</code>" not in text


def test_one_visible_side_of_a_conflict_shows_no_banner(levels):
    """ "Sources disagree" with a single visible source would say that a hidden document disagrees."""
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    factories.make_document(OPEN, source_id="open/canteen.txt")
    secret, open_ = factories.chunks_of("hr/pay.txt")[0], factories.chunks_of("open/canteen.txt")[0]
    answer = make_answer(
        user=factories.make_user("asker", groups=("staff", "hr")),
        paragraphs=[Para(OPEN, cites=[("S1", open_)]), Para(SECRET, cites=[("S2", secret)])],
        conflict=True,
        trace={"settings_snapshot": {"quoted": True, "conflicting_markers": ["S1", "S2"]}, "marker_map": {}},
    )
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    assert (
        "Sources disagree" not in client_for(reviewer).get(reverse("answer_detail", args=[answer.pk])).content.decode()
    )
    assert api(reviewer).get(f"/api/v1/answers/{answer.pk}").json()["conflict"] is False
    insider = factories.make_user("insider", groups=("staff", "reviewer", "hr"))
    assert "Sources disagree" in client_for(insider).get(reverse("answer_detail", args=[answer.pk])).content.decode()


def test_comments_on_an_answer_resting_on_hidden_text_are_withheld(levels):
    """A reader's comment and a reviewer's note may quote the hidden text: withheld with the paragraph."""
    from rag_app.services.feedback import answer_review, feedback_add

    asker = factories.make_user("asker", groups=("staff", "hr"))
    answer = hr_answer(owner=asker)
    feedback_add(user=asker, answer=answer, kind="not_helpful", comment="bands rise 4.5 percent, keep quiet")
    answer_review(reviewer=factories.make_admin("root"), answer=answer, verdict="ok", note="4.5 percent confirmed")
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    prov = client_for(reviewer).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert "keep quiet" not in prov and "4.5 percent confirmed" not in prov
    assert api(reviewer).get(f"/api/v1/answers/{answer.pk}").json()["review"]["note"] is None
    assert api(asker).get(f"/api/v1/answers/{answer.pk}").json()["review"]["note"] == "4.5 percent confirmed"


def test_no_evidence_does_not_tell_an_empty_index_from_hidden_documents(levels, staff_user):
    """A user who may read nothing gets empty_index whether or not hidden documents exist."""
    from rag_app import services

    assert services.ask(user=staff_user, question="What is the pay rise?").reason == "empty_index"
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    assert services.ask(user=staff_user, question="What is the pay rise?").reason == "empty_index"


def test_a_patch_that_moves_a_document_out_of_reach_answers_with_what_was_set(levels):
    """An admin restricting a document to a group they are not in gets its new data back; the change is audited."""
    admin = factories.make_user("admin0", groups=("staff", "admin"))
    factories.make_group("board")
    factories.make_document(OPEN, source_id="open/canteen.txt")
    response = api(admin).patch("/api/v1/documents/open/canteen.txt", {"groups": ["board"]}, format="json")
    assert response.status_code == 200 and response.json()["source_id"] == "open/canteen.txt"
    assert response.json()["groups"] == ["board"]
    change = LevelChange.objects.get(field="document.groups")
    assert (change.user, change.old_value, change.new_value) == (admin, "", "board")


@pytest.mark.parametrize("question", ["pay \u202erise", "pay \u2066rise\u2069"])
def test_bidi_overrides_in_a_question_are_refused(levels, staff_user, question):
    """They would reorder what reviewers read in the queue; nothing is stored."""
    response = api(staff_user).post("/api/v1/ask", {"question": question}, format="json")
    assert response.status_code == 400 and not Answer.objects.exists()


def test_a_nul_in_a_scope_is_a_clean_400(levels, staff_user):
    """API and web form alike: refused like an unknown document, never a database error."""
    response = api(staff_user).post(
        "/api/v1/ask", {"question": "Pay?", "scope": {"documents": ["a\x00b"]}}, format="json"
    )
    assert response.status_code == 400 and any(name.startswith("scope") for name in response.json()["fields"])
    form = client_for(staff_user).post(reverse("ask"), {"question": "Pay?", "scope_documents": ["a\x00b"]})
    assert form.status_code == 400 and not Answer.objects.exists()


def test_a_reused_source_id_does_not_unlock_an_old_trace(levels):
    """A restricted document the model saw (uncited) is deleted; an open document later takes its id:
    the old answer's trace and model paragraphs stay withheld from outsiders."""
    from rag_app.services.documents import document_delete

    asker = factories.make_user("asker", groups=("staff", "hr"))
    factories.make_document(SECRET, source_id="hr/pay.txt", groups=["hr"])
    factories.make_document(OPEN, source_id="open/canteen.txt")
    secret, open_ = factories.chunks_of("hr/pay.txt")[0], factories.chunks_of("open/canteen.txt")[0]
    answer = make_answer(
        user=asker,
        mode=Answer.Mode.LLM,
        paragraphs=[Para("The canteen opens at eight.", cites=[("S2", open_)])],
        trace={
            "marker_map": {
                "S1": {"chunk_id": secret.chunk_id, "source_id": "hr/pay.txt"},
                "S2": {"chunk_id": open_.chunk_id, "source_id": "open/canteen.txt"},
            },
            "candidates": [{"chunk_id": secret.chunk_id, "source_id": "hr/pay.txt", "kept": True}],
            "context": f"[S1] {SECRET}",
            "settings_snapshot": {"quoted": False},
        },
    )
    Answer.objects.filter(pk=answer.pk).update(created_at=answer.created_at.replace(year=answer.created_at.year - 1))
    document_delete(user=None, document=Document.objects.get(source_id="hr/pay.txt"))
    factories.make_document("Unrelated open text.", source_id="hr/pay.txt")  # the id, reused
    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    trace = api(reviewer).get(f"/api/v1/answers/{answer.pk}/trace").json()
    assert trace["redacted"] is True and SECRET not in json.dumps(trace)
    body = api(reviewer).get(f"/api/v1/answers/{answer.pk}").json()
    assert body["paragraphs"][0]["evidence_status"] == "withheld"


@pytest.mark.parametrize(
    ("question", "readable", "hidden", "word", "lacked"),
    [
        # "GPLv3" is read as "gpl" + "3" only while no chunk holds "gplv3": the passage holds both parts
        (
            "How much do GPLv3 scooter permits cost?",
            "Parking permits are issued under GPL version 3 terms.",
            "Scooter permits under the GPLv3 plan.",
            "GPLv3",
            False,
        ),
        # an untranslatable Chinese word joins the translated reading only while some chunk holds it
        (
            "鑫诺的退款需要发票吗？",
            "Refunds need the original receipt within 30 days.",
            "鑫诺公司的退款规定。",
            "鑫诺",
            True,
        ),
    ],
    ids=["version-run-together", "untranslated-word"],
)
def test_what_a_related_passage_lacks_does_not_reveal_hidden_documents(
    levels, question, readable, hidden, word, lacked
):
    """The words a readable passage "does not mention" are read from it and the question alone: a document
    the asker cannot read, holding the word, does not change them (the search's corpus statistics, which count
    it, never decide them). Whether the passage is listed as related at all moves with its score, which those
    statistics do weigh: the known limitation in docs/SECURITY.md."""
    from rag_app.services import ask

    asker = factories.make_user("asker", groups=("staff",))
    factories.make_document(readable, source_id="open")

    def lacks() -> tuple[list[str], list[list[str] | None]]:
        answer = ask(user=asker, question=question)
        body = api(asker).get(f"/api/v1/answers/{answer.pk}").json()
        [row] = [c for c in answer.trace.candidates if c["source_id"] == "open"]
        return row["missing"], [r["lacks"] for r in body["related"] if r["source_id"] == "open"]

    before = lacks()
    factories.make_document(hidden, source_id="hr/secret", groups=["hr"])
    after = lacks()
    # The trace row's terms are what a related passage "does not mention" in words (presentation._related).
    assert after[0] == before[0]
    if before[1] and after[1]:  # listed both times: the same words
        assert after[1] == before[1]
    assert (word in before[0]) is lacked  # the trace keeps the question's own terms ("gplv3", "鑫诺")


def test_a_trace_row_naming_a_readable_document_does_not_read_a_hidden_chunk(levels):
    """The reviewer's trace writes a candidate's words from its own chunk, read through the reviewer's access
    rule and only when the chunk is of the candidate's document: a row whose chunk_id points elsewhere
    (a malformed or altered trace) reveals nothing of that chunk."""
    from rag_app.presentation import trace_for

    reviewer = factories.make_user("rev", groups=("staff", "reviewer"))
    factories.make_document("Pay SCALES are public.", source_id="open")
    factories.make_document("Salary BANDS rise in grade seven.", source_id="hr/secret", groups=["hr"])
    row = {"kept": False, "reason": "below_threshold", "relevance": 0.3, "missing": []}
    answer = make_answer(
        user=reviewer,
        question="What are the pay grades?",
        state=Answer.State.NO_EVIDENCE,
        reason="below_threshold",
        trace={
            "candidates": [
                row | {"chunk_id": "hr/secret:v1:0", "source_id": "open",
                       "held": [{"term": "grade", "how": "synonym", "as": "band"}]},
                row | {"chunk_id": "open:v1:0", "source_id": "open",
                       "held": [{"term": "grade", "how": "synonym", "as": "scale"}]},
            ]
        },
    )  # fmt: skip
    trace = trace_for(answer, viewer=reviewer)
    assert [h["as"] for c in trace["candidates"] for h in c["held"]] == ["band", "SCALES"]
    assert "BANDS" not in json.dumps(trace)
    # a reviewer who may read both documents still gets the row's words from its own document only
    insider = factories.make_user("rev-hr", groups=("staff", "reviewer", "hr"))
    trace = trace_for(answer, viewer=insider)
    assert [h["as"] for c in trace["candidates"] for h in c["held"]] == ["band", "SCALES"]
