"""Admins add documents from the app: each file becomes an ingest job (the same ingest service as the CLI
and the API), and the page follows the jobs with htmx until they end.

Jobs are run here by tests.workers.run_queued_jobs, the function a Celery worker calls; the web upload
with a real worker process is tested in tests/ingest/test_jobs_worker.py, the polling in a real browser
in tests/browser/test_upload_jobs.py.
"""

from __future__ import annotations

import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse
from django.utils import translation

from rag_app.models import Chunk, Document, DocumentVersion, IngestJob
from rag_app.services.ingest_jobs import JobProgress, ingest_job_run, job_claim
from tests import factories, redisserver
from tests.views.conftest import HTMX, client_for
from tests.workers import run_queued_jobs

pytestmark = pytest.mark.django_db

POLICY = b"# Refunds\n\n## Deadline\n\nRefunds are paid within 14 days of the request.\n"


def _upload(client, content: bytes, name: str = "refunds.md", **fields):
    return client.post(reverse("document_upload"), {"file": SimpleUploadedFile(name, content), **fields})


def _page(client) -> str:
    return client.get(reverse("document_upload")).content.decode()


@pytest.mark.parametrize("role", ["staff_user", "reviewer_user"])
def test_only_admins_may_upload(request, role, levels):
    """Staff and reviewers get 403 on the page, its job list and a post; nothing is stored."""
    client = client_for(request.getfixturevalue(role))
    assert client.get(reverse("document_upload")).status_code == 403
    assert client.get(reverse("document_upload"), **HTMX).status_code == 403
    assert _upload(client, POLICY).status_code == 403
    assert not Document.objects.exists() and not IngestJob.objects.exists()


def test_it_queues_the_file_and_shows_the_outcome_once_a_worker_ran_it(admin_user_role, levels):
    """A new file becomes a queued job (the page says it waits for a worker); once run, version 1 with
    its level and groups, and the page shows the ingest line with a link to the version."""
    factories.make_group("hr")
    client = client_for(admin_user_role)
    page = client.get(reverse("document_upload"))
    assert page.status_code == 200 and b'enctype="multipart/form-data"' in page.content
    assert b"multiple" in page.content  # several files at once
    response = _upload(client, POLICY, source_id="policy/refunds", level="official", groups=["hr"])
    assert response.status_code == 302 and response["Location"] == reverse("document_upload")
    waiting = client.get(response["Location"]).content.decode()
    assert "1 file is queued" in waiting and "waiting for a worker" in waiting
    assert not Document.objects.exists()

    run_queued_jobs()
    doc = Document.objects.get(source_id="policy/refunds")
    assert doc.level.slug == "official" and list(doc.groups.values_list("name", flat=True)) == ["hr"]
    assert doc.title == "Refunds"  # from the Markdown H1, since none was given
    assert Chunk.objects.filter(version__document=doc, section__contains="Deadline").exists()
    done = _page(client)
    assert "policy/refunds v1 1 chunks new" in done
    assert reverse("document_version", args=["policy/refunds", 1]) in done


def test_the_same_file_again_is_unchanged_and_a_changed_one_is_a_new_version(admin_user_role, levels):
    client = client_for(admin_user_role)
    lines = []
    for content in (POLICY, POLICY, POLICY.replace(b"14 days", b"30 days")):
        _upload(client, content, source_id="refunds")
        [job] = run_queued_jobs()
        lines.append(job.results[0]["line"])
    assert lines == ["refunds v1 1 chunks new", "refunds v1 1 chunks unchanged", "refunds v2 1 chunks updated"]
    assert list(DocumentVersion.objects.order_by("version").values_list("version", "is_current")) == [
        (1, False),
        (2, True),
    ]


def test_several_files_at_once_each_get_a_job_and_fail_or_succeed_alone(admin_user_role, levels):
    """Three files in one post: three jobs; the good ones are ingested, the bad one fails with its reason."""
    client = client_for(admin_user_role)
    files = [
        SimpleUploadedFile("leave.md", b"# Leave\n\nStaff get 25 days of annual leave.\n"),
        SimpleUploadedFile("tool.exe", b"MZ\x90\x00binary"),
        SimpleUploadedFile("canteen.txt", b"The canteen opens at eight."),
    ]
    response = client.post(reverse("document_upload"), {"file": files, "level": "note"})
    assert response.status_code == 302
    said = client.get(response["Location"]).content.decode()
    assert "2 files are queued" in said and "1 file was refused" in said  # the .exe is refused before queueing
    run_queued_jobs()
    states = dict(IngestJob.objects.values_list("file_name", "state"))
    assert states == {"leave.md": "done", "tool.exe": "failed", "canteen.txt": "done"}
    assert sorted(Document.objects.values_list("source_id", flat=True)) == ["canteen.txt", "leave.md"]
    page = _page(client)
    assert "leave.md v1 1 chunks new" in page and "canteen.txt v1 1 chunks new" in page
    assert "This type of file cannot be read. Supported types: <code>.txt," in page


def test_the_form_offers_access_groups_never_the_role_groups(admin_user_role, levels, staff_user, reviewer_user):
    """A user report: the access groups offered on the upload form were the role groups (staff, reviewer, admin). It
    offers the access groups only (access.access_groups), and a role group sent all the same is refused."""
    factories.make_group("hr-comp")
    factories.make_group("board")
    client = client_for(admin_user_role)
    page = _page(client)
    offered = re.findall(r'<option value="([^"]*)"', page.split('name="groups"', 1)[1].split("</select>", 1)[0])
    assert offered == ["board", "hr-comp"]
    response = _upload(client, POLICY, groups=["admin"])
    assert response.status_code == 400
    assert not IngestJob.objects.exists() and not Document.objects.exists()


def test_a_source_id_or_title_with_several_files_is_refused(admin_user_role, levels):
    """Several files are each named by their file name: a source_id for all of them is a form error."""
    files = [SimpleUploadedFile("a.txt", b"A."), SimpleUploadedFile("b.txt", b"B.")]
    response = client_for(admin_user_role).post(reverse("document_upload"), {"file": files, "source_id": "one"})
    assert response.status_code == 400
    assert "Only with a single file" in response.content.decode()
    assert not IngestJob.objects.exists()


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("tool.exe", b"MZ\x90\x00binary", "This type of file cannot be read."),
        ("empty.txt", b"   \n", "The file holds no text."),
        # the reason in the reader's language, the parser's own words as the detail
        ("broken.pdf", b"%PDF-1.4 not really a pdf", "could not be read as the type its name says.</p>"),
    ],
)
def test_a_bad_file_fails_its_job_with_the_reason_and_nothing_is_stored(
    admin_user_role, levels, name, content, message
):
    client = client_for(admin_user_role)
    assert _upload(client, content, name=name).status_code == 302
    run_queued_jobs()
    job = IngestJob.objects.get()
    assert job.state == "failed"
    page = _page(client)
    assert message in page
    assert ('<p class="job-detail muted">' in page) == (name == "broken.pdf")
    assert name != "broken.pdf" or "PDF" in page.split('class="job-detail muted"')[1]
    assert not Document.objects.exists() and not Chunk.objects.exists()


@pytest.mark.parametrize(
    ("name", "content", "english", "chinese"),
    [
        ("broken.pdf", b"%PDF-1.4 not really a pdf", "the PDF is damaged or unreadable", "PDF 文件已损坏或无法读取"),
        ("noise.txt", bytes(range(128, 256)) * 40, "the text encoding could not be recognised", "无法识别文本编码"),
        ("cut.docx", b"PK\x03\x04 cut short", "the Word file is damaged or truncated", "Word 文件已损坏或不完整"),
    ],
    ids=["malformed", "encoding", "truncated"],
)
def test_a_failed_jobs_detail_is_in_each_readers_language(admin_user_role, levels, name, content, english, chinese):
    """A user report: on the Chinese page a failed upload's detail was the parser's English sentence. The job keeps
    the sentence and its values, so the one stored job reads in Chinese on the Chinese page and in English on the
    English one; a library's own words inside it (PdfStreamError: ...) stay as they are."""
    client = client_for(admin_user_role)
    _upload(client, content, name=name)
    run_queued_jobs()
    zh = client.get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    detail = zh.split('class="job-detail muted"', 1)[1].split("</p>", 1)[0]
    assert chinese in detail
    assert english not in zh
    en = client.get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert english in en.split('class="job-detail muted"', 1)[1].split("</p>", 1)[0]


def test_an_old_word_file_is_refused_saying_to_save_it_as_docx_in_each_language(admin_user_role, levels):
    """A user report: a legacy .doc upload said only "This type of file cannot be read" and listed extensions. The
    page says what it is and to save it as .docx or PDF, in the reader's language; nothing is stored."""
    client = client_for(admin_user_role)
    assert _upload(client, b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600, name="memo.doc").status_code == 302
    assert IngestJob.objects.get().error_code == "legacy_format"
    en = client.get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "This is an old binary Word file (.doc), which cannot be read." in en
    assert "save it as .docx (or as PDF), and upload that." in en
    zh = client.get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    assert "这是旧版二进制 Word 文件（.doc），无法读取。" in zh and "另存为 .docx（或 PDF）" in zh
    assert "cannot be read" not in zh
    assert not Document.objects.exists()


def test_a_file_over_the_limit_fails_before_it_is_read(admin_user_role, levels, settings):
    settings.RAG = {**settings.RAG, "MAX_UPLOAD_BYTES": 1024}
    client = client_for(admin_user_role)
    _upload(client, b"x" * 2048, name="big.txt")
    job = IngestJob.objects.get()
    assert job.state == "failed" and job.error_code == "too_large" and job.payload is None and job.size_bytes == 2048
    assert "limit is 1,024 bytes" in _page(client)
    assert not Document.objects.exists()


def test_a_hostile_file_name_is_escaped_in_the_job_list(admin_user_role, levels):
    """A hostile file name comes back escaped, never as markup."""
    client = client_for(admin_user_role)
    _upload(client, b"x", name="<script>alert(1)</script>.exe")
    page = client.get(reverse("document_upload")).content
    # Django keeps the name's last path part ("script>.exe"): shown, escaped.
    assert b"<script>alert(1)</script>" not in page and b"script&gt;.exe" in page


def test_the_job_list_polls_while_a_job_runs_and_stops_when_all_ended(admin_user_role, levels):
    """The htmx partial carries hx-trigger="every 1s" while a job is queued or running, with a progress bar
    of done/total chunks; once every job ended it has no trigger (polling stops)."""
    client = client_for(admin_user_role)
    _upload(client, POLICY)
    job = IngestJob.objects.get()
    queued = client.get(reverse("document_upload"), **HTMX)
    assert queued.status_code == 200 and "<form" not in queued.content.decode()
    assert 'hx-trigger="every 1s"' in queued.content.decode()

    job_claim(job)  # what a worker does first, then reports progress as it embeds
    JobProgress(job.pk)(3, 10)
    running = client.get(reverse("document_upload"), **HTMX).content.decode()
    assert 'max="10" value="3"' in running and "3 of 10 chunks" in running

    ingest_job_run(job_id=job.pk)  # the running job goes on to its end, as in the worker
    finished = client.get(reverse("document_upload"), **HTMX).content.decode()
    assert "hx-trigger" not in finished and "refunds.md v1 1 chunks new" in finished


def test_each_admin_sees_their_own_uploads(admin_user_role, levels):
    """The list on the page is the viewer's own jobs, not another admin's."""
    _upload(client_for(admin_user_role), POLICY, name="mine.md")
    other = factories.make_user("admin2", groups=("staff", "admin"))
    assert "mine.md" not in _page(client_for(other))


def test_a_source_id_the_admin_may_not_see_is_refused_before_it_is_queued(levels):
    factories.make_document("Pay bands.", source_id="hr/pay.txt", groups=["hr"])
    outsider = factories.make_user("outsider", groups=("staff", "admin"))
    response = _upload(client_for(outsider), b"New bands.", name="pay.txt", source_id="hr/pay.txt")
    assert response.status_code == 404
    assert not IngestJob.objects.exists()


@pytest.mark.skipif(redisserver.SERVER is None, reason="needs redis-server (scripts/system-deps.sh)")
def test_a_broker_that_is_down_is_a_503_with_a_clear_message(admin_user_role, levels):
    assert redisserver.SERVER is not None
    redisserver.SERVER.stop()
    try:
        response = _upload(client_for(admin_user_role), POLICY)
    finally:
        redisserver.SERVER.start()
    assert response.status_code == 503
    assert "The ingest queue is not reachable, so nothing was added" in response.content.decode()
    assert not IngestJob.objects.exists() and not Document.objects.exists()


@pytest.mark.parametrize("code", ["embedder_unavailable", "embedding_failed", "embedder_mismatch"])
def test_a_job_the_embedder_failed_says_why_in_the_readers_language(admin_user_role, levels, code):
    """The embedding server's failures are the job's reason in Chinese on a Chinese page, the server's English
    words beside it as the detail."""
    from rag_app.services.ingest_jobs import ingest_job_create, ingest_job_fail

    job = ingest_job_create(user=admin_user_role, file_name="refunds.md", size=len(POLICY), read=lambda: POLICY)
    ingest_job_fail(job_id=job.pk, code=code, message="the embedding server at http://gpu.internal/v1 said no")
    page = client_for(admin_user_role).get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9")
    reason = page.content.decode().split("refunds.md", 1)[1]
    assert "向量" in reason.split('class="job-detail muted"', 1)[0]
    assert "http://gpu.internal/v1 said no" in reason


def test_a_reembedding_job_names_its_document_once_and_says_what_it_counts(admin_user_role, levels):
    """A rename's re-embedding has no file: its document is named once (it was the file name's place and the
    source_id's both), and its progress counts chunks embedded again, not chunks indexed from a file."""
    from rag_app.models import IngestJob
    from rag_app.services.embedding import reindex_job_create

    job = reindex_job_create(user=admin_user_role, kind=IngestJob.Kind.REEMBED, source_id="rules/parking")
    IngestJob.objects.filter(pk=job.pk).update(state=IngestJob.State.RUNNING, progress_total=12, progress_done=4)
    html = client_for(admin_user_role).get(reverse("document_upload")).content.decode()
    item = html.split(f'id="job-{job.pk}"', 1)[1].split("</li>", 1)[0]
    assert item.count("rules/parking") == 1, item
    assert 'aria-label="Chunks embedded again"' in item and "4 of 12 chunks" in item
    IngestJob.objects.filter(pk=job.pk).update(progress_total=0, progress_done=0)
    item = client_for(admin_user_role).get(reverse("document_upload")).content.decode()
    assert "reading the file" not in item.split(f'id="job-{job.pk}"', 1)[1].split("</li>", 1)[0]


@pytest.mark.parametrize(
    ("queued_groups", "english", "chinese"),
    [
        (["research"], "no access group named 'research'", "没有名为"),
        (["reviewer"], "a role group gives its members a role", "角色组"),
    ],
    ids=["deleted-group", "role-group"],
)
def test_an_access_group_refused_at_worker_time_is_in_each_readers_language(
    admin_user_role, levels, queued_groups, english, chinese
):
    """A review finding: a job queued with the access group `research`, the group deleted before the worker ran (the
    worker speaks English), showed its refusal in English on the Chinese page; a job queued with a role group before
    the rule was the same. The job keeps the sentence and its values; the API's `message` stays English."""
    research = factories.make_group("research")
    client = client_for(admin_user_role)
    assert _upload(client, POLICY, source_id="policy/refunds", groups=["research"]).status_code == 302
    job = IngestJob.objects.get()
    job.options = {**(job.options or {}), "groups": queued_groups}
    job.save(update_fields=["options"])
    research.delete()
    with translation.override("en"):  # the worker's language
        run_queued_jobs()
    job.refresh_from_db()
    assert job.state == "failed" and english in job.results[0]["message"]
    zh = client.get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="zh-CN,zh;q=0.9").content.decode()
    shown = zh.split('class="job-result job-error"', 1)[1].split("</p>", 1)[0]
    assert chinese in shown and english not in zh
    en = client.get(reverse("document_upload"), HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert english in en.split('class="job-result job-error"', 1)[1].split("</p>", 1)[0].replace("&#x27;", "'")
    assert not Document.objects.exists()
