"""Trial 31g: a reviewer and an admin at work for a day, in English and Chinese.

The reviewer works the queue, opens provenance pages and replays answers after documents changed; the admin
changes levels, renames, retires and deletes documents and reads the audit trail. Each test is a defect found by
driving the running app (`make run`, the pages, the API), pinned as a strict xfail until it was fixed; every one is
fixed, and the tests after each pin the edges its fix made (a verdict clears the queue's mark, a deleted restricted
document's changes, a rename by upload or in the Django admin, migration 0019).
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import translation

from rag_app.models import Citation, IngestJob, LevelChange
from rag_app.presentation import job_outcome
from rag_app.services.embedding import reindex_job_create, reindex_job_run
from rag_app.services.feedback import feedback_add
from tests import factories
from tests.views.answers import Para, make_answer

pytestmark = pytest.mark.django_db

QUESTION = "When are parking permits renewed?"
PARKING = "Parking permits are renewed every March at the front desk.\n"


api_for = factories.token_client


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _flagged_answer(staff_user) -> int:
    factories.make_document(PARKING, source_id="rules/parking", level="official")
    staff = api_for(staff_user)
    asked = staff.post("/api/v1/ask", {"question": QUESTION}, format="json").json()
    assert asked["state"] == "answered", asked
    flag = {"kind": "citation_wrong", "citation_id": asked["sources"][0]["citation_id"], "comment": "not March"}
    assert staff.post(f"/api/v1/answers/{asked['id']}/feedback", flag, format="json").status_code == 201
    return int(asked["id"])


def test_the_queue_marks_an_answer_readers_flagged(staff_user, reviewer_user, levels):
    answer_id = _flagged_answer(staff_user)
    html = client_for(reviewer_user).get(reverse("review_list")).content.decode()
    row = re.search(rf"<tr>(?:(?!</tr>).)*review/answers/{answer_id}/(?:(?!</tr>).)*</tr>", html, re.S)
    assert row is not None, html
    assert "flagged by readers" in row.group(0), row.group(0)
    listed = api_for(reviewer_user).get("/api/v1/answers/").json()["results"][0]
    assert listed["id"] == answer_id
    assert listed["flagged"] is True, listed


def test_the_queues_flag_mark_goes_with_the_verdict(staff_user, reviewer_user, levels):
    answer_id = _flagged_answer(staff_user)
    reviewer = api_for(reviewer_user)
    verdict = {"verdict": "ok", "note": "March is right"}
    assert reviewer.post(f"/api/v1/answers/{answer_id}/review", verdict, format="json").status_code == 201
    assert reviewer.get("/api/v1/answers/").json()["results"][0]["flagged"] is False
    html = client_for(reviewer_user).get(reverse("review_list")).content.decode()
    assert f"review/answers/{answer_id}/" in html
    assert "flagged by readers<" not in html


def test_a_deleted_documents_level_changes_stay_in_the_change_log(admin_user_role, levels):
    factories.make_document(PARKING, source_id="rules/parking", level="official")
    admin = api_for(admin_user_role)
    assert admin.patch("/api/v1/documents/rules/parking", {"level": "note"}, format="json").status_code == 200
    assert admin.delete("/api/v1/documents/rules/parking").status_code == 200
    html = client_for(admin_user_role).get(reverse("levels")).content.decode()
    log = html[html.index("Change log") :]
    assert "rules/parking" in log, log
    assert "No changes yet." not in log


def test_a_rename_is_in_the_change_log(admin_user_role, levels):
    factories.make_document(PARKING, source_id="rules/parking", title="Parking rules", level="official")
    admin = api_for(admin_user_role)
    assert admin.patch("/api/v1/documents/rules/parking", {"title": "Car park rules"}, format="json").status_code == 200
    html = client_for(admin_user_role).get(reverse("levels")).content.decode()
    log = html[html.index("Change log") :]
    assert "Parking rules" in log and "Car park rules" in log, log


def test_a_replay_shows_first_that_the_cited_source_was_retired(staff_user, reviewer_user, admin_user_role, levels):
    factories.make_document(PARKING, source_id="rules/parking", level="official")
    # Many passages on the topic that do not answer: a replay lists them all as candidates now.
    for i in range(16):
        text = f"Parking permit note {i}: the permit for bay {i} is kept at the front desk of building {i}.\n"
        factories.make_document(text, source_id=f"notes/parking-bay-{i}", level="note")
    asked = api_for(staff_user).post("/api/v1/ask", {"question": QUESTION}, format="json").json()
    cited = asked["sources"][0]["chunk_id"]
    assert cited.startswith("rules/parking:"), asked
    assert api_for(admin_user_role).post("/api/v1/documents/rules/parking/retire").status_code == 200
    url = reverse("answer_replay", args=[asked["id"]])
    replay = client_for(reviewer_user).get(url, HTTP_HX_REQUEST="true").content.decode()
    rows = re.findall(r'<tr class="[^"]*">.*?</tr>', replay, re.S)
    assert len(rows) > 12, replay  # more than the rows shown before the rest folds
    assert cited in rows[0], rows[0]


def test_a_reindex_jobs_outcome_is_in_the_readers_language(admin_user_role, levels):
    factories.make_document(PARKING, source_id="rules/parking", level="official")
    job = reindex_job_create(user=admin_user_role, kind=IngestJob.Kind.REINDEX, source_id="rules/parking")
    assert reindex_job_run(job_id=job.pk).state == IngestJob.State.DONE
    html = client_for(admin_user_role).get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="zh-CN").content.decode()
    assert "re-indexed" not in html
    assert re.search(r"job-result\">[^<]*重建", html), html[html.find("job-list") :]


def test_a_reembedding_jobs_outcome_is_in_the_readers_language():
    result = {"source_id": "rules/parking", "status": "done", "chunks": 3, "line": "rules/parking 3 chunks re-embedded"}
    assert (
        job_outcome(result, kind=IngestJob.Kind.REEMBED) == "rules/parking: 3 chunks embedded again with the new title"
    )
    reindexed = {"source_id": "rules/parking", "status": "done", "chunks": 1, "line": "1 chunks re-indexed"}
    assert job_outcome(reindexed, kind=IngestJob.Kind.REINDEX) == "1 chunk re-indexed"
    with translation.override("zh-hans"):
        shown = job_outcome(result, kind=IngestJob.Kind.REEMBED)
    assert "re-embedded" not in shown and "rules/parking" in shown and "3" in shown, shown
    # An ingest job's failure or an older row without a count keeps its stored line.
    assert job_outcome({"status": "done", "line": "kept"}, kind=IngestJob.Kind.REEMBED) == "kept"


def test_a_deleted_restricted_documents_changes_are_for_those_who_read_everything(admin_user_role, levels):
    """Who could read a deleted document is no longer known: its changes are read as its passages are."""
    factories.make_document(PARKING, source_id="legal/parking", level="official", groups=["legal"])
    superuser = api_for(admin_user_role)
    assert superuser.patch("/api/v1/documents/legal/parking", {"level": "note"}, format="json").status_code == 200
    assert superuser.delete("/api/v1/documents/legal/parking").status_code == 200
    html = client_for(admin_user_role).get(reverse("levels")).content.decode()
    assert "legal/parking" in html and "deleted since" in html
    admin = factories.make_user("admin2", groups=("staff", "admin", "legal"))  # an admin, not a superuser
    assert "legal/parking" not in client_for(admin).get(reverse("levels")).content.decode()


def test_an_upload_that_retitles_a_document_is_in_the_change_log(admin_user_role, levels):
    factories.make_document(PARKING, source_id="rules/parking", title="Parking rules", level="official")
    factories.ingest_text(PARKING, source_id="rules/parking", title="Car park rules", level="official")
    change = LevelChange.objects.get(field="document.title")
    assert (change.source_id, change.old_value, change.new_value, change.user) == (
        "rules/parking",
        "Parking rules",
        "Car park rules",
        None,  # the command line
    )


def test_a_rename_in_the_django_admin_is_in_the_change_log(admin_user_role, levels):
    document = factories.make_document(PARKING, source_id="rules/parking", title="Parking rules", level="official")
    response = client_for(admin_user_role).post(
        reverse("admin:rag_app_document_change", args=[document.pk]),
        {"title": "Car park rules", "url": "", "level": levels["official"].pk, "versions-TOTAL_FORMS": "0",
         "versions-INITIAL_FORMS": "0", "versions-MIN_NUM_FORMS": "0", "versions-MAX_NUM_FORMS": "1000"},
    )  # fmt: skip
    assert response.status_code == 302, response.content[:2000]
    document.refresh_from_db()
    assert document.title == "Car park rules"
    change = LevelChange.objects.get(field="document.title")
    assert (change.old_value, change.new_value, change.user) == ("Parking rules", "Car park rules", admin_user_role)
    assert not LevelChange.objects.exclude(field="document.title").exists()  # the level did not change


@pytest.mark.django_db(transaction=True)
def test_0019_gives_each_documents_change_its_source_id() -> None:
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    from tests.migrating import migrate_to

    latest = MigrationExecutor(connection).loader.graph.leaf_nodes("rag_app")
    apps = migrate_to([("rag_app", "0018_source_ids_one_unicode_form")])
    try:
        Document, LevelChange = apps.get_model("rag_app", "Document"), apps.get_model("rag_app", "LevelChange")
        doc = Document.objects.create(source_id="refunds")
        LevelChange.objects.create(document=doc, field="document.level", old_value="note", new_value="official")
        LevelChange.objects.create(field="level.label", old_value="Note", new_value="Notes")
        LevelChange = migrate_to(latest).get_model("rag_app", "LevelChange")
        assert sorted(LevelChange.objects.values_list("field", "source_id")) == [
            ("document.level", "refunds"),
            ("level.label", ""),
        ]
        LevelChange.objects.filter(field="document.level").get().document.delete()
        assert LevelChange.objects.filter(field="document.level", document=None, source_id="refunds").exists()
    finally:
        migrate_to(latest)
        apps = MigrationExecutor(connection).loader.project_state(latest).apps
        apps.get_model("rag_app", "LevelChange").objects.all().delete()
        apps.get_model("rag_app", "Document").objects.filter(source_id="refunds").delete()


def test_the_provenance_page_names_a_flagged_source_as_the_reader_saw_it(staff_user, reviewer_user, levels):
    """The reader flagged "source [1]"; the answer on the same page shows it as [1]: its marker S2 was all the
    feedback table said."""
    factories.make_document(PARKING, source_id="rules/parking", level="official")
    chunk = factories.chunks_of("rules/parking")[0]
    answer = make_answer(user=staff_user, question=QUESTION, paragraphs=[Para(PARKING.strip(), cites=[("S2", chunk)])])
    citation = Citation.objects.get(paragraph__answer=answer)
    feedback_add(user=staff_user, answer=answer, kind="citation_unsupported", citation_id=citation.pk, comment="no")
    html = client_for(reviewer_user).get(reverse("answer_provenance", args=[answer.pk])).content.decode()
    assert "Flag source [1]" in html  # what the reader pressed
    row = re.search(r'<tr class="feedback-citation_unsupported">.*?</tr>', html, re.S)
    assert row is not None, html
    assert "[1]" in row.group(0) and "S2" in row.group(0), row.group(0)


def test_a_replay_after_a_new_version_matches_the_passages_it_carried_over(staff_user, reviewer_user, levels):
    """A new version that adds a paragraph carries the cited passage over word for word: the replay says the same
    passage is kept as it was, not that the old one was replaced and a new one appeared (two changes per passage)."""
    before = f"# Parking\n\n{PARKING}"
    factories.make_document(before, source_id="rules/parking", file_name="parking.md", level="official")
    asked = api_for(staff_user).post("/api/v1/ask", {"question": QUESTION}, format="json").json()
    assert asked["sources"][0]["chunk_id"] == "rules/parking:v1:0", asked
    after = before + "\n# Visitors\n\nVisitors sign in at the gate and wear a badge.\n"
    factories.ingest_text(after, source_id="rules/parking", file_name="parking.md", level="official")
    carried = factories.chunks_of("rules/parking", 2)[0]
    assert carried.text == factories.chunks_of("rules/parking", 1)[0].text  # the passage did not change
    url = reverse("answer_replay", args=[asked["id"]])
    replay = client_for(reviewer_user).get(url, HTTP_HX_REQUEST="true").content.decode()
    chunk_id = re.escape(carried.chunk_id)
    row = re.search(rf'<tr class="[^"]*">(?:(?!</tr>).)*{chunk_id}<(?:(?!</tr>).)*</tr>', replay, re.S)
    assert row is not None, replay
    assert "changed" not in row.group(0) and "not a candidate" not in row.group(0), row.group(0)
    assert "rules/parking:v1:0, the same text in the version before" in row.group(0), row.group(0)
    assert "rules/parking:v1:0<" not in replay  # not listed again as replaced


def test_the_queues_filter_error_writes_the_readers_colon(reviewer_user):
    query = {"date_from": "2026-12-06", "date_to": "2026-12-05"}
    response = client_for(reviewer_user).get(reverse("review_list"), query, HTTP_ACCEPT_LANGUAGE="zh-CN")
    assert response.status_code == 400
    html = response.content.decode()
    assert "<li>到：" in html, html[html.find('role="alert"') :][:600]


def test_a_bulk_level_changes_rows_keep_their_documents_source_id_after_deletion(admin_user_role, levels):
    """The bulk change (one batched insert) records each document as a single change does, so its rows outlive the
    documents under their source_ids, never as changes to a level itself."""
    from rag_app.services.levels import documents_set_level

    docs = [factories.make_document(PARKING, source_id=f"rules/parking-{n}", level="official") for n in range(3)]
    assert documents_set_level(user=admin_user_role, documents=docs, level=levels["note"]) == 3
    for document in docs:
        assert api_for(admin_user_role).delete(f"/api/v1/documents/{document.source_id}").status_code == 200
    rows = LevelChange.objects.filter(field="document.level").order_by("source_id")
    assert [(r.source_id, r.document_id, r.old_value, r.new_value) for r in rows] == [
        (f"rules/parking-{n}", None, "official", "note") for n in range(3)
    ]
