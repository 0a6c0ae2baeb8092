"""Content of a group-restricted document never reaches someone outside the group (session 25's probes).

A helper's adversarial probes; each test asserts the safe behaviour. Four failed before their fix: the old
records of a deleted hidden document whose source_id is reused for an open one (its ingest jobs, an answer's
scope, the list flags read over a model's context) and a corpus re-index job shown by the document it names.
The others pin what was checked and found safe.
"""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app import services
from rag_app.models import Answer, Document, IngestJob
from tests import factories

pytestmark = pytest.mark.django_db

# The hidden document: every marker below occurs only in it.
H_SID = "hr/zanzibar-plan.md"
H_TITLE = "Zanzibar Merger Plan"
H_SECTION = "Quetzal Bonus Pool"
H_WORD = "quetzalcoatl"
H_TEXT = (
    f"# {H_TITLE}\n\n## {H_SECTION}\n\n"
    f"The {H_WORD} bonus pool for the merger is nine million euros and is paid in March.\n"
)
OPEN_SID = "open/canteen.md"
OPEN_TEXT = "# Canteen\n\n## Opening hours\n\nThe canteen opens at eight in the morning on weekdays.\n"

MARKERS = (H_SID, H_TITLE, H_SECTION, H_WORD, "zanzibar", "Zanzibar")


def web(user: User) -> Client:
    c = Client()
    c.force_login(user)
    return c


def api(user: User) -> APIClient:
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
    return c


def leaks(body: str | bytes) -> list[str]:
    text = body.decode() if isinstance(body, bytes) else body
    return [m for m in MARKERS if m in text]


@pytest.fixture
def world(levels):
    factories.make_group("hr")
    hidden = factories.make_document(H_TEXT, source_id=H_SID, file_name="plan.md", title=H_TITLE, groups=["hr"])
    factories.make_document(OPEN_TEXT, source_id=OPEN_SID, file_name="canteen.md")
    return {
        "hidden": hidden,
        "member": factories.make_user("member", groups=("staff", "hr")),
        "staff": factories.make_user("outs_staff", groups=("staff",)),
        "reviewer": factories.make_user("outs_rev", groups=("staff", "reviewer")),
        "admin": factories.make_user("outs_admin", groups=("staff", "admin")),
    }


def test_smoke_member_gets_the_hidden_answer(world):
    a = services.ask(user=world["member"], question=f"How large is the {H_WORD} bonus pool?")
    assert a.state == "answered", (a.state, a.reason)


Q_MEMBER = "How large is the bonus pool for the merger?"


def member_answer(world) -> Answer:
    a = services.ask(user=world["member"], question=Q_MEMBER)
    assert a.state == "answered", (a.state, a.reason)
    return a


HTMX = {"HTTP_HX_REQUEST": "true"}


def test_outsider_web_and_api_surfaces_show_nothing_of_the_hidden_document(world):
    answer = member_answer(world)
    # a no-evidence answer of the member too (related passages of the hidden doc)
    ne = services.ask(user=world["member"], question="When is the merger bonus pool paid to contractors abroad?")
    results: dict[str, list[str]] = {}
    for role in ("staff", "reviewer", "admin"):
        user = world[role]
        w, a = web(user), api(user)
        pages = {
            "ask": w.get(reverse("ask")),
            "ask-htmx": w.get(reverse("ask"), **HTMX),
            "picker": w.get(reverse("ask"), {"doc_q": "merger"}, **HTMX),
            "picker-full": w.get(reverse("ask"), {"doc_q": "Zanz"}),
            "picker-sid": w.get(reverse("ask"), {"doc_q": "hr/"}, **HTMX),
            "ask-parent": w.get(reverse("ask"), {"parent": answer.pk}),
            "history": w.get(reverse("history")),
            "documents": w.get(reverse("document_list"), {"q": "hr"}),
            "documents-all": w.get(reverse("document_list")),
            "review": w.get(reverse("review_list")),
            "review-flag": w.get(reverse("review_list"), {"flag": "conflict"}),
            "prov": w.get(reverse("answer_provenance", args=[answer.pk])),
            "prov-ne": w.get(reverse("answer_provenance", args=[ne.pk])),
            "prov-replay": w.get(reverse("answer_provenance", args=[answer.pk]), {"replay": "1"}),
            "replay": w.get(reverse("answer_replay", args=[answer.pk]), **HTMX),
            "answer": w.get(reverse("answer_detail", args=[answer.pk])),
            "answer-ne": w.get(reverse("answer_detail", args=[ne.pk])),
            "levels": w.get(reverse("levels")),
            "levels-q": w.get(reverse("levels"), {"q": "zanz"}),
            "upload": w.get(reverse("document_upload")),
            "viewer": w.get(f"/documents/{H_SID}/v1/"),
            "latest": w.get(f"/documents/{H_SID}/"),
            "api-docs": a.get("/api/v1/documents/", {"q": "merger"}),
            "api-doc": a.get(f"/api/v1/documents/{H_SID}"),
            "api-versions": a.get(f"/api/v1/documents/{H_SID}/versions/"),
            "api-answers": a.get("/api/v1/answers/"),
            "api-answer": a.get(f"/api/v1/answers/{answer.pk}"),
            "api-answer-ne": a.get(f"/api/v1/answers/{ne.pk}"),
            "api-trace": a.get(f"/api/v1/answers/{answer.pk}/trace"),
            "api-trace-ne": a.get(f"/api/v1/answers/{ne.pk}/trace"),
            "api-jobs": a.get("/api/v1/ingest-jobs/"),
            "api-levels": a.get("/api/v1/levels/"),
            "api-chunk": a.get(f"/api/v1/chunks/{H_SID}:v1:0"),
        }
        for name, resp in pages.items():
            found = leaks(resp.content)
            if resp.status_code == 404:  # the 404 names the id that was asked for: the caller's own input
                found = [m for m in found if m not in (H_SID, "zanzibar")]
            if found:
                results[f"{role}:{name}:{resp.status_code}"] = found
    assert results == {}


def _outcome(answer: Answer) -> tuple[str, str, list[str]]:
    cited = sorted(
        set(answer.paragraphs.values_list("citations__chunk__version__document__source_id", flat=True)) - {None}
    )
    return answer.state, answer.reason, cited


def test_a_run_together_version_name_only_a_hidden_document_holds_does_not_change_the_answer(world):
    """Checked safe (passes): lexical.read_unheld splits "zorbexv3" into "zorbex" + "3" only when no chunk of
    the whole index holds "zorbexv3", but the scoring of made-up terms still credits the readable passage, so a
    hidden document that writes the run-together name does not flip the outsider's answer."""
    factories.make_document(
        "The Zorbex licence, version 3, allows users to copy the software without a fee.",
        source_id="open/zorbex.txt",
    )
    question = "Does Zorbexv3 allow users to copy the software?"
    before = services.ask(user=world["staff"], question=question)
    assert before.state == "answered", (before.state, before.reason)
    factories.make_document(
        "Zorbexv3 internal audit: the vendor negotiation is secret.", source_id="hr/zorbex-audit.txt", groups=["hr"]
    )
    after = services.ask(user=world["staff"], question=question)
    assert _outcome(after) == _outcome(before)


def test_ingest_jobs_of_a_deleted_hidden_document_stay_hidden_when_its_source_id_is_reused(world):
    """access.ingest_job_q lets an admin follow the jobs of the documents they may read, matched by source_id
    string: once a hidden document is deleted and its id reused for an open one, the old jobs (file names,
    results, who, when) of the hidden document become readable to every admin who reads the new one."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.workers import run_queued_jobs

    hr_admin = factories.make_user("hr_admin", groups=("staff", "admin", "hr"))
    sid = "hr/plan.md"
    secret_file = "zanzibar-merger-bonus-nine-million.md"
    up = api(hr_admin).post(
        "/api/v1/documents/",
        {
            "file": SimpleUploadedFile(secret_file, b"# Plan\n\nThe bonus pool is nine million."),
            "source_id": sid,
            "groups": ["hr"],
        },
        format="multipart",
    )
    assert up.status_code == 202, up.content
    assert [j.state for j in run_queued_jobs()] == ["done"]
    assert api(hr_admin).delete(f"/api/v1/documents/{sid}").status_code == 200
    # Later, someone outside hr adds an unrelated open document under the now free id.
    outsider = world["admin"]
    up2 = api(outsider).post(
        "/api/v1/documents/",
        {"file": SimpleUploadedFile("notes.md", b"# Notes\n\nNothing here."), "source_id": sid},
        format="multipart",
    )
    assert up2.status_code == 202, up2.content
    run_queued_jobs()
    listed = api(outsider).get("/api/v1/ingest-jobs/")
    assert listed.status_code == 200
    one = api(outsider).get(f"/api/v1/ingest-jobs/{up.json()['job']['id']}")
    assert secret_file not in json.dumps(listed.json()), listed.json()
    assert one.status_code == 404, one.json()


M_SID = "pol/moving.md"
M_TITLE = "Walrus Relocation Memo"
M_SECTION = "Narwhal Budget"
M_TEXT = f"# {M_TITLE}\n\n## {M_SECTION}\n\nThe narwhal relocation budget is seven hundred thousand euros.\n"
M_MARKERS = (M_TITLE, M_SECTION, "narwhal", "Narwhal", "Walrus", "seven hundred")


def test_a_document_moved_from_open_to_restricted_disappears_for_outsiders_everywhere(world):
    """Everything outsiders made while the document was open (answers, a flag with a comment, a remembered
    scope, a level change, a retire/restore, their own upload) must follow its groups once it is restricted."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.workers import run_queued_jobs

    factories.make_document(M_TEXT, source_id=M_SID, file_name="moving.md", title=M_TITLE)
    staff, rev, adm = world["staff"], world["reviewer"], world["admin"]
    q = "How large is the relocation budget?"
    a_staff = services.ask(user=staff, question=q)
    a_rev = services.ask(user=rev, question=q)
    assert a_staff.state == "answered", a_staff.reason
    # a remembered scope naming it, a flag with a comment, an admin's level change, retire + restore, an upload
    w = web(staff)
    w.post(reverse("ask"), {"question": q, "scope_documents": [M_SID]})
    cit = a_staff.paragraphs.first().citations.first()
    api(staff).post(
        f"/api/v1/answers/{a_staff.pk}/feedback",
        {"kind": "citation_wrong", "citation_id": cit.pk, "comment": "the narwhal figure is outdated"},
        format="json",
    )
    wa = web(adm)
    assert (
        wa.post(
            reverse("document_levels"), {"documents": [Document.objects.get(source_id=M_SID).pk], "level": "note"}
        ).status_code
        == 302
    )
    assert api(adm).post(f"/api/v1/documents/{M_SID}/retire").status_code == 200
    assert api(adm).post(f"/api/v1/documents/{M_SID}/restore").status_code == 200
    up = api(adm).post(
        "/api/v1/documents/",
        {"file": SimpleUploadedFile("moving-v2.md", M_TEXT.encode() + b"\nMore.\n"), "source_id": M_SID},
        format="multipart",
    )
    assert up.status_code == 202
    run_queued_jobs()
    # the hr admin restricts it
    hr_admin = factories.make_user("hr_admin", groups=("staff", "admin", "hr"))
    assert api(hr_admin).patch(f"/api/v1/documents/{M_SID}", {"groups": ["hr"]}, format="json").status_code == 200

    found: dict[str, list[str]] = {}
    for role, user, own in (("staff", staff, a_staff), ("reviewer", rev, a_rev), ("admin", adm, None)):
        w, a = web(user), api(user)
        pages = {
            "ask": w.get(reverse("ask")),
            "picker": w.get(reverse("ask"), {"doc_q": "walrus"}, **HTMX),
            "documents": w.get(reverse("document_list")),
            "api-docs": a.get("/api/v1/documents/"),
            "levels": w.get(reverse("levels")),
            "upload": w.get(reverse("document_upload")),
            "api-jobs": a.get("/api/v1/ingest-jobs/"),
        }
        if own is not None:
            pages |= {
                "answer": w.get(reverse("answer_detail", args=[own.pk])),
                "api-answer": a.get(f"/api/v1/answers/{own.pk}"),
                "ask-followup": w.get(reverse("ask"), {"parent": own.pk}),
            }
        if role == "reviewer":
            pages |= {
                "prov-staff": w.get(reverse("answer_provenance", args=[a_staff.pk])),
                "trace-staff": a.get(f"/api/v1/answers/{a_staff.pk}/trace"),
                "replay-staff": w.get(reverse("answer_replay", args=[a_staff.pk]), **HTMX),
                "review": w.get(reverse("review_list")),
                "api-answers": a.get("/api/v1/answers/", {"source_id": M_SID}),
            }
        for name, resp in pages.items():
            text = resp.content.decode()
            hits = [m for m in M_MARKERS if m in text]
            if hits:
                found[f"{role}:{name}:{resp.status_code}"] = hits
    assert found == {}


def _delete_and_reuse(world, sid: str) -> User:
    """The hr admin deletes the hidden document `sid`; an admin outside hr then adds an open one under the id."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    hr_admin = factories.make_user("hr_admin2", groups=("staff", "admin", "hr"))
    assert api(hr_admin).delete(f"/api/v1/documents/{sid}").status_code == 200, "deleted"
    up = api(world["admin"]).post(
        "/api/v1/documents/?wait=1",
        {"file": SimpleUploadedFile("notes.md", b"# Notes\n\nNothing to see."), "source_id": sid},
        format="multipart",
    )
    assert up.status_code == 201, up.content
    return hr_admin


def test_the_scope_of_an_old_answer_does_not_name_a_deleted_hidden_document_once_its_id_is_reused(world):
    """presentation.visible_scope asks access.visible_source_ids without `existing_at`: an answer asked within
    a hidden document shows that document's id (so: that it existed, and was asked about) to outsiders as soon
    as the id names another, readable document. SECURITY.md: an id counts for an answer only if its document
    existed when the answer was made."""
    from rag_app.pipeline.records import Scope

    scoped = services.ask(
        user=world["member"], question="What is the parking fee for bicycles?", scope=Scope(documents=(H_SID,))
    )
    assert scoped.state == "no_evidence"  # cites nothing: survives the deletion below
    rev = world["reviewer"]
    before = api(rev).get(f"/api/v1/answers/{scoped.pk}").json()
    assert before["scope"] == {}
    _delete_and_reuse(world, H_SID)
    after = api(rev).get(f"/api/v1/answers/{scoped.pk}").json()
    trace = api(rev).get(f"/api/v1/answers/{scoped.pk}/trace").json()
    page = web(rev).get(reverse("answer_provenance", args=[scoped.pk])).content.decode()
    assert after["scope"] == {}, after["scope"]
    assert trace["settings_snapshot"].get("scope") == {}, trace["settings_snapshot"].get("scope")
    assert "Asked within" not in page
    # The replay searches within the documents asked about as the reviewer may read them then: none is left, so
    # it searches nothing (neither the document now under that id nor, unscoped, every document).
    from rag_app.services.answers import answer_replay

    factories.ingest_text("The parking fee for bicycles is two euros a month.", source_id=H_SID)  # the new one's
    rows, _ = answer_replay(answer=scoped, user=rev, then={})
    assert rows == []


def test_list_flags_do_not_read_a_deleted_hidden_context_as_readable_when_its_id_is_reused(world):
    """selectors._context_readable compares the trace's marker-map source_ids with today's readable ids (no
    `existing_at`): a model answer whose context held a hidden document, deleted since and its id reused,
    has every paragraph withheld in its detail but is flagged insufficient in the answers list (the rule
    pinned by test_list_flags_weak_and_insufficient_only_for_what_the_viewer_is_shown)."""
    from tests.views.answers import Para, make_answer

    hidden_chunk = factories.chunks_of(H_SID)[0]
    open_chunk = factories.chunks_of(OPEN_SID)[0]
    answer = make_answer(
        user=world["member"],
        question="When does the canteen open?",
        mode=Answer.Mode.LLM,
        paragraphs=[
            Para(open_chunk.text, cites=[("S2", open_chunk)]),
            Para("The bonus pool is nine million euros.", insufficient=True),
        ],
        trace={
            "marker_map": {
                "S1": {"chunk_id": hidden_chunk.chunk_id, "source_id": H_SID},
                "S2": {"chunk_id": open_chunk.chunk_id, "source_id": OPEN_SID},
            },
            "candidates": [],
            "context": f"[S1] {hidden_chunk.text}\n[S2] {open_chunk.text}",
            "settings_snapshot": {"quoted": False},
        },
    )
    rev = world["reviewer"]

    def listed() -> dict:
        rows = api(rev).get("/api/v1/answers/").json()["results"]
        return next(r for r in rows if r["id"] == answer.pk)

    assert listed()["has_insufficient"] is False  # hidden context: not shown (as pinned)
    _delete_and_reuse(world, H_SID)
    detail = api(rev).get(f"/api/v1/answers/{answer.pk}").json()
    assert detail["withheld_paragraphs"] == 2  # the detail still withholds everything ...
    assert listed()["has_insufficient"] is False  # ... so the list must not flag it either


def test_checked_safe_actions_counts_threads_and_cli(world):
    """Outsiders: admin actions on the hidden document answer 404 and change nothing; the empty ask page counts
    only readable documents; a reviewer's follow-up to a member's answer and the CLI retrieve nothing hidden."""
    from io import StringIO

    from django.core.management import call_command

    answer = member_answer(world)
    adm = world["admin"]
    w, a = web(adm), api(adm)
    for path in ("document_retire", "document_restore", "document_delete"):
        assert w.post(reverse(path, args=[H_SID]), {"confirm": "1", "force": "1"}).status_code == 404, path
    assert a.post(f"/api/v1/documents/{H_SID}/retire").status_code == 404
    assert a.post(f"/api/v1/documents/{H_SID}/restore").status_code == 404
    assert a.delete(f"/api/v1/documents/{H_SID}?force=true").status_code == 404
    assert a.patch(f"/api/v1/documents/{H_SID}", {"groups": []}, format="json").status_code == 404
    hidden = Document.objects.get(source_id=H_SID)
    assert hidden.retired_at is None and list(hidden.groups.values_list("name", flat=True)) == ["hr"]
    # overview: one readable document, whatever hr holds
    page = web(world["staff"]).get(reverse("ask")).content.decode()
    assert "1 document is open to you" in page, page[page.find("welcome") :][:600]
    # a reviewer outside hr follows up on the member's answer: the thread's topic joins retrieval, not its reach
    rev = world["reviewer"]
    r = api(rev).post("/api/v1/ask", {"question": "And when is it paid?", "parent_id": answer.pk}, format="json")
    assert r.status_code == 201 and not leaks(json.dumps(r.json())), r.json()
    r2 = web(rev).post(reverse("ask"), {"question": "And when is it paid?", "parent": answer.pk}, follow=True)
    assert not leaks(r2.content), leaks(r2.content)
    # the CLI as an outsider
    out = StringIO()
    call_command("ask", Q_MEMBER, "--user", world["staff"].username, "--json", stdout=out)
    assert not leaks(out.getvalue())
    out = StringIO()
    call_command("ask", Q_MEMBER, stdout=out)  # the system: open documents only
    assert not leaks(out.getvalue())
    # a staff outsider cannot follow up (nor open) the member's answer: same answer as an unknown id
    s = api(world["staff"]).post("/api/v1/ask", {"question": "And then?", "parent_id": answer.pk}, format="json")
    u = api(world["staff"]).post("/api/v1/ask", {"question": "And then?", "parent_id": 999999}, format="json")
    assert (s.status_code, s.json()) == (u.status_code, u.json())


def test_checked_safe_a_reviewer_flag_queue_and_replay_within_a_hidden_scope(world):
    """The member asks within the hidden document and flags its citation with a comment; an outsider reviewer
    sees neither the comment nor the document in the provenance page, the queue or the replay."""
    from rag_app.pipeline.records import Scope

    a = services.ask(user=world["member"], question=Q_MEMBER, scope=Scope(documents=(H_SID,)))
    assert a.state == "answered"
    cit = a.paragraphs.first().citations.first()
    r = api(world["member"]).post(
        f"/api/v1/answers/{a.pk}/feedback",
        {"kind": "citation_unsupported", "citation_id": cit.pk, "comment": f"the {H_WORD} figure is nine million"},
        format="json",
    )
    assert r.status_code == 201
    rev = web(world["reviewer"])
    bodies = [
        rev.get(reverse("answer_provenance", args=[a.pk]), {"replay": "1"}).content,
        rev.get(reverse("answer_replay", args=[a.pk]), **HTMX).content,
        rev.get(reverse("review_list"), {"flag": "flagged"}).content,
        json.dumps(api(world["reviewer"]).get(f"/api/v1/answers/{a.pk}").json()).encode(),
    ]
    assert [leaks(b) for b in bodies] == [[], [], [], []]


def test_a_corpus_reindex_job_named_after_a_readable_document_does_not_count_hidden_chunks(world):
    """Celery path: a REINDEX job (services.embedding.reindex_job_create, run by the `reindex_document` task)
    re-indexes the whole corpus and records its progress (done / total = every current chunk of the corpus) and
    "<n> chunks re-indexed";
    ingest_job_q shows it to every admin who may read the document named as its source_id, so these count the
    chunks of documents they cannot read."""
    from rag_app.models import Chunk, IngestJob
    from rag_app.services.embedding import reindex_job_create, reindex_job_run

    job = reindex_job_create(user=None, kind=IngestJob.Kind.REINDEX, source_id=OPEN_SID)
    reindex_job_run(job_id=job.pk)
    readable = Chunk.objects.filter(version__is_current=True, version__document__source_id=OPEN_SID).count()
    total = Chunk.objects.filter(version__is_current=True).count()
    assert total > readable
    rows = api(world["admin"]).get("/api/v1/ingest-jobs/").json()["results"]
    shown = [r for r in rows if r["id"] == job.pk]
    counts = [res.get("chunks") for r in shown for res in r["results"]]
    counts += [r["progress"]["total"] for r in shown] + [r["progress"]["done"] for r in shown]
    assert all(c is None or c <= readable for c in counts), (counts, readable, total, shown)


def test_an_admin_follows_the_jobs_of_a_document_they_may_read_whoever_queued_them(world):
    """The rule above keeps the legitimate case: another admin who may read the document sees the job that made
    its version, and a later failed upload of a new version (which made none), but not a job queued before the
    document existed that made nothing."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.workers import run_queued_jobs

    author = factories.make_user("author_admin", groups=("staff", "admin"))
    made = api(author).post(
        "/api/v1/documents/",
        {"file": SimpleUploadedFile("menu.md", b"# Menu\n\nSoup on Mondays."), "source_id": "open/menu.md"},
        format="multipart",
    )
    assert made.status_code == 202 and [j.state for j in run_queued_jobs()] == ["done"]
    failed = api(author).post(
        "/api/v1/documents/",
        {"file": SimpleUploadedFile("menu.md", b"\x00\x01binary"), "source_id": "open/menu.md"},
        format="multipart",
    )
    assert failed.status_code == 202, failed.content  # refused by the worker, which reads the file
    assert [j.state for j in run_queued_jobs()] == ["failed"]
    shown = {r["id"] for r in api(world["admin"]).get("/api/v1/ingest-jobs/").json()["results"]}
    assert {made.json()["job"]["id"], failed.json()["job"]["id"]} <= shown
    # queued by someone else before any document of its source_id existed, and made nothing: not shown
    early = IngestJob.objects.create(user=author, username="author_admin", source_id="open/later.md", file_name="x")
    factories.make_document("Later text.", source_id="open/later.md")
    assert early.pk not in {r["id"] for r in api(world["admin"]).get("/api/v1/ingest-jobs/").json()["results"]}
