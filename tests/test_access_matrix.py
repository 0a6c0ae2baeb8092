"""The visibility matrix: every kind of user x every kind of document x every read path.

One rule (rag_app.access) decides who reads which document. Its ORM form and its SQL form (used
inside search) must agree with each other and with the expected table below, and every surface
that can show document text, a title or a source_id must follow it: the answer page (paragraphs,
hover cards, source panel), the API answer, the answer list and its filters, the trace, the
provenance page, the replay, the chunk endpoint, the document list, the viewer, the levels page
and its change log, uploads (web and API), and `manage.py ask --user`.
"""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.contrib.auth.models import AnonymousUser, User
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app.access import sql_condition, visible_documents
from rag_app.models import Answer, Chunk, Document
from rag_app.search.hybrid import search
from rag_app.services.levels import document_set_level
from tests import factories
from tests.views.answers import Para, make_answer
from tests.workers import run_queued_jobs

pytestmark = pytest.mark.django_db

# document -> (access groups, a word only it contains)
DOCUMENTS = {
    "open": ((), "aardvark"),
    "a-only": (("grp-a",), "bison"),
    "b-only": (("grp-b",), "camel"),
    "a-and-b": (("grp-a", "grp-b"), "dingo"),
}
# user -> documents they may read
EXPECTED = {
    "anonymous": set(),
    "inactive": set(),
    "no-role": set(),
    "staff-no-group": {"open"},
    "staff-in-a": {"open", "a-only", "a-and-b"},
    "reviewer-in-b": {"open", "b-only", "a-and-b"},
    "admin-no-group": {"open"},
    "superuser": set(DOCUMENTS),
}
ROLE = {  # the lowest role each user holds (None: none)
    "anonymous": None,
    "inactive": None,
    "no-role": None,
    "staff-no-group": "staff",
    "staff-in-a": "staff",
    "reviewer-in-b": "reviewer",
    "admin-no-group": "admin",
    "superuser": "admin",
}
LADDER = ["staff", "reviewer", "admin"]


def holds(name: str, role: str) -> bool:
    have = ROLE[name]
    return have is not None and LADDER.index(have) >= LADDER.index(role)


def make_users() -> dict[str, User | AnonymousUser]:
    inactive = factories.make_user("inactive", groups=("staff", "grp-a"))
    inactive.is_active = False
    inactive.save()
    return {
        "anonymous": AnonymousUser(),
        "inactive": inactive,
        "no-role": factories.make_user("norole", groups=()),
        "staff-no-group": factories.make_user("staff0", groups=("staff",)),
        "staff-in-a": factories.make_user("staffa", groups=("staff", "grp-a")),
        "reviewer-in-b": factories.make_user("reviewerb", groups=("staff", "reviewer", "grp-b")),
        "admin-no-group": factories.make_user("admin0", groups=("staff", "admin")),
        "superuser": factories.make_user("root", groups=(), is_staff=True, is_superuser=True),
    }


def text_of(name: str) -> str:
    word = DOCUMENTS[name][1]
    return f"The quokka handbook for {word} says the {word} allowance is paid every quarter."


@pytest.fixture
def world(levels):
    factories.make_group("grp-a")
    factories.make_group("grp-b")
    users = make_users()
    docs: dict[str, Document] = {}
    answers: dict[str, Answer] = {}
    for name, (groups, _word) in DOCUMENTS.items():
        docs[name] = factories.make_document(text_of(name), source_id=f"m/{name}", title=f"Title {name}", groups=groups)
        document_set_level(user=users["superuser"], document=docs[name], level=levels["note"])
    return {"users": users, "docs": docs, "answers": answers}


def answer_citing(name: str, *, owner: User | None, mode: str = Answer.Mode.EXTRACTIVE) -> Answer:
    chunk = factories.chunks_of(f"m/{name}")[0]
    trace = {
        "candidates": [
            {"chunk_id": chunk.chunk_id, "source_id": f"m/{name}", "kept": True, "marker": "S1", "relevance": 0.9}
        ],
        "marker_map": {"S1": {"chunk_id": chunk.chunk_id, "source_id": f"m/{name}", "snippet": chunk.text}},
        "context": f"[S1] {chunk.text}",
        "prompt": f"PROMPT {chunk.text}",
        "raw_output": chunk.text,
        "settings_snapshot": {"quoted": mode == Answer.Mode.EXTRACTIVE},
    }
    return make_answer(
        user=owner,
        question=f"What does the quokka handbook say about {DOCUMENTS[name][1]}?",
        paragraphs=[Para(chunk.text, cites=[("S1", chunk)])],
        mode=mode,
        trace=trace,
    )


def web(user: User | AnonymousUser) -> Client:
    client = Client()
    if user.is_authenticated:
        client.force_login(user)
    return client


def api(user: User | AnonymousUser) -> APIClient:
    client = APIClient()
    if user.is_authenticated:
        token, _ = Token.objects.get_or_create(user=user)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    return client


def fresh(user: User | AnonymousUser) -> User | AnonymousUser:
    return user if not user.is_authenticated else User.objects.get(pk=user.pk)


@pytest.mark.parametrize("who", EXPECTED)
def test_the_orm_form_and_the_sql_form_agree_with_the_table(world, who):
    """visible_documents (ORM) and sql_condition (inside search) give exactly the expected documents."""
    user = fresh(world["users"][who])
    expected = {f"m/{n}" for n in EXPECTED[who]}
    assert set(visible_documents(user).values_list("source_id", flat=True)) == expected
    condition, params = sql_condition(user, document_alias="d")
    with connection.cursor() as cur:
        cur.execute(f"SELECT d.source_id FROM rag_app_document d WHERE {condition}", params)
        assert {row[0] for row in cur.fetchall()} == expected
    found = {r.source_id for r in search(user=user, question="quokka handbook allowance", limit=50)}
    assert found == expected


def test_the_system_reads_the_open_documents_only(world):
    """user=None (commands without --user, evaluation): the open documents, in both forms."""
    assert set(visible_documents(None).values_list("source_id", flat=True)) == {"m/open"}
    assert {r.source_id for r in search(user=None, question="quokka handbook allowance", limit=50)} == {"m/open"}


@pytest.mark.parametrize("who", EXPECTED)
def test_every_read_path_follows_the_rule(world, who):
    """For each document: shown where the user may read it, absent (or 404) everywhere else."""
    cache.clear()
    user = fresh(world["users"][who])
    is_user = isinstance(user, User)
    w, a = web(user), api(user)
    doc_list = w.get(reverse("document_list"))
    api_docs = a.get("/api/v1/documents/?limit=200")
    levels_page = w.get(reverse("levels"))
    for name, doc in world["docs"].items():
        sees = name in EXPECTED[who]
        word = DOCUMENTS[name][1]
        sid = doc.source_id
        owner = user if is_user and user.is_active else None
        answer = answer_citing(name, owner=owner)
        chunk = Chunk.objects.filter(version__document=doc).first()
        assert chunk is not None

        # answer page, hover card and source panel: one HTML page
        page = w.get(reverse("answer_detail", args=[answer.pk]))
        if holds(who, "staff") and owner is not None:
            html = page.content.decode()
            assert page.status_code == 200
            assert (f"{word} allowance" in html) is sees, (who, name, "answer page")
            assert (sid in html) is sees, (who, name, "hover card / source panel")
            assert ("rests on a document you cannot access" in html) is (not sees)
        else:
            assert page.status_code in (302, 403, 404)

        # API answer
        body = a.get(f"/api/v1/answers/{answer.pk}")
        if holds(who, "staff") and owner is not None:
            assert body.status_code == 200
            assert body["Cache-Control"] == "no-store"
            text = json.dumps(body.json())
            assert (f"{word} allowance" in text) is sees, (who, name, "API answer")
            assert (sid in text) is sees
        else:
            assert body.status_code in (401, 403, 404)

        # answer list filtered by document, web and API (reviewers)
        listed = a.get("/api/v1/answers/", {"source_id": sid})
        review = w.get(reverse("review_list"), {"document": sid})
        if holds(who, "reviewer"):
            assert listed.json()["count"] == (1 if sees else 0), (who, name, "answer filter")
            assert (f"about {word}" in review.content.decode()) is sees, (who, name, "review filter")
        else:
            assert listed.status_code in (401, 403) and review.status_code in (302, 403)

        # trace, provenance, replay (reviewers)
        trace = a.get(f"/api/v1/answers/{answer.pk}/trace")
        prov = w.get(reverse("answer_provenance", args=[answer.pk]))
        replay = w.get(reverse("answer_replay", args=[answer.pk]), HTTP_HX_REQUEST="true")
        if holds(who, "reviewer"):
            data = trace.json()
            assert (sid in json.dumps(data)) is sees, (who, name, "trace")
            assert data["redacted"] is (not sees) and data["withheld"] == (0 if sees else 1)
            assert ("PROMPT" in data["prompt"]) is sees
            prov_html = prov.content.decode()
            assert (sid in prov_html) is sees and (f"{word} allowance" in prov_html) is sees, (who, name, "provenance")
            assert (sid in replay.content.decode()) is sees, (who, name, "replay")
        else:
            assert trace.status_code in (401, 403) and prov.status_code in (302, 403)
            assert replay.status_code in (204, 403)  # htmx without a session: HX-Redirect to log in

        # chunk endpoint, viewer
        got = a.get(f"/api/v1/chunks/{chunk.chunk_id}")
        viewer = w.get(reverse("document_version", args=[sid, 1]))
        if holds(who, "staff"):
            assert got.status_code == (200 if sees else 404), (who, name, "chunk")
            assert viewer.status_code == (200 if sees else 404), (who, name, "viewer")
            assert (sid in doc_list.content.decode()) is sees, (who, name, "document list")
            assert (sid in json.dumps(api_docs.json())) is sees, (who, name, "API document list")
        else:
            assert got.status_code in (401, 403) and viewer.status_code in (302, 403)

        # levels page with its change log, level change, uploads (admins)
        if holds(who, "admin"):
            html = levels_page.content.decode()
            assert (sid in html) is sees, (who, name, "levels page / change log")
            changed = w.post(reverse("document_levels"), {"documents": [doc.pk], "level": "official"}, follow=False)
            doc.refresh_from_db()
            assert (doc.level.slug == "official") is sees, (who, name, "level change")
            assert changed.status_code == (302 if sees else 400)
            upload = a.post(
                "/api/v1/documents/",
                {"file": SimpleUploadedFile("x.txt", b"Overwritten text."), "source_id": sid},
                format="multipart",
            )
            assert upload.status_code == (202 if sees else 404), (who, name, "API upload")
            form = w.post(
                reverse("document_upload"),
                {"file": SimpleUploadedFile("y.txt", b"Overwritten again."), "source_id": sid},
            )
            assert form.status_code == (302 if sees else 404), (who, name, "web upload")
            # refused uploads were never queued; accepted ones run as their uploader, as a worker runs them
            assert all(job.state == "done" for job in run_queued_jobs()), (who, name, "ingest jobs")
            assert (Document.objects.get(pk=doc.pk).versions.count() == 1) is (not sees)
            assert set(doc.groups.values_list("name", flat=True)) == set(DOCUMENTS[name][0])
        else:
            assert levels_page.status_code in (302, 403)


@pytest.mark.parametrize("who", ["staff-no-group", "staff-in-a", "reviewer-in-b", "admin-no-group", "superuser"])
def test_cli_ask_as_a_user_shows_only_what_they_may_read(world, who):
    """`manage.py ask --user NAME --json` retrieves and presents as that user."""
    user = world["users"][who]
    for name in DOCUMENTS:
        out = StringIO()
        word = DOCUMENTS[name][1]
        call_command(
            "ask",
            f"What does the quokka handbook say about the {word} allowance?",
            "--user",
            user.username,
            "--json",
            stdout=out,
        )
        payload = json.loads(out.getvalue())
        cited = {s["source_id"] for s in payload["sources"]}
        assert cited <= {f"m/{n}" for n in EXPECTED[who]}, (who, name)
        assert (f"m/{name}" in cited) is (name in EXPECTED[who]), (who, name)
