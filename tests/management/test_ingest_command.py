"""`manage.py ingest`: folders of mixed files report new, then unchanged, then updated; errors per file;
`--queue` hands the files to the workers as jobs."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import override_settings

from rag_app.models import Chunk, Document, DocumentVersion, IngestJob, SourceLevel
from tests import factories, redisserver
from tests.workers import run_queued_jobs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _run(*args: str) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command("ingest", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    (root / "zh").mkdir(parents=True)
    (root / ".git").mkdir()
    shutil.copy(FIXTURES / "apache_excerpt.md", root / "apache.md")
    shutil.copy(FIXTURES / "page.html", root / "zh" / "page.html")
    shutil.copy(FIXTURES / "zh_gb18030.txt", root / "zh" / "baobab.txt")
    shutil.copy(FIXTURES / "cc0_3pages.pdf", root / "cc0.pdf")
    (root / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (root / "notes.odt").write_bytes(b"PK\x03\x04")
    return root


@pytest.mark.django_db
def test_folder_new_unchanged_updated(corpus: Path, levels: dict[str, SourceLevel]) -> None:
    """Mixed folder: all new; again all unchanged; after one file changes only it is updated (v2)."""
    out, err = _run(str(corpus), "--level", "official")
    lines = sorted(out.splitlines())
    assert [line.split(" ")[0] for line in lines] == ["apache.md", "cc0.pdf", "zh/baobab.txt", "zh/page.html"]
    assert all(line.endswith(" new") and " v1 " in line for line in lines)
    assert "skipped notes.odt: unsupported file type" in err and "HEAD" not in err

    out, _ = _run(str(corpus))
    assert all(line.endswith(" unchanged") for line in out.splitlines()) and len(out.splitlines()) == 4

    path = corpus / "apache.md"
    path.write_text(path.read_text("utf-8").replace("January 2004", "January 2005"), "utf-8")
    out, _ = _run(str(corpus))
    status = {line.split(" ")[0]: line for line in out.splitlines()}
    assert status["apache.md"].startswith("apache.md v2 ") and status["apache.md"].endswith(" updated")
    assert all(line.endswith(" unchanged") for key, line in status.items() if key != "apache.md")
    # Old chunks still readable, with v1 ids and the old text.
    old = Chunk.objects.filter(version__document__source_id="apache.md", version__version=1)
    assert old.exists() and any("January 2004" in c.text for c in old)
    assert Document.objects.get(source_id="apache.md").level.slug == "official"  # type: ignore[union-attr]


@pytest.mark.django_db
def test_line_format(corpus: Path, levels: dict[str, SourceLevel]) -> None:
    """One line per file: '<source_id> v<version> <n> chunks <status>' with the real chunk count."""
    out, _ = _run(str(corpus / "zh" / "baobab.txt"))
    source_id, version, n, word, status = out.strip().split(" ")
    assert (source_id, version, word, status) == ("baobab.txt", "v1", "chunks", "new")
    assert int(n) == Chunk.objects.filter(version__document__source_id="baobab.txt").count()


@pytest.mark.django_db
def test_json_output_one_object_per_file(corpus: Path, levels: dict[str, SourceLevel]) -> None:
    """--json prints one JSON object per file, errors included, and still fails the run on an error."""
    (corpus / "empty.txt").write_bytes(b"")
    out = StringIO()
    with pytest.raises(CommandError, match="1 of 5 files failed"):
        call_command("ingest", str(corpus), "--json", stdout=out, stderr=StringIO())
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    by_id = {row["source_id"]: row for row in rows}
    assert by_id["empty.txt"]["status"] == "error" and by_id["empty.txt"]["error"] == "empty"
    assert by_id["apache.md"] == {
        "source_id": "apache.md",
        "version": 1,
        "chunks": by_id["apache.md"]["chunks"],
        "status": "new",
    }


@pytest.mark.django_db
def test_bad_file_reports_error_and_others_continue(corpus: Path, levels: dict[str, SourceLevel]) -> None:
    """A broken PDF gets an error line; the other files are ingested; exit status is non-zero."""
    shutil.copy(FIXTURES / "broken.pdf", corpus / "broken.pdf")
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError):
        call_command("ingest", str(corpus), stdout=out, stderr=err)
    assert "broken.pdf error parse_error: the PDF is damaged or unreadable" in err.getvalue()
    assert len(out.getvalue().splitlines()) == 4
    assert not Document.objects.filter(source_id="broken.pdf").exists()


@pytest.mark.django_db
def test_an_old_word_file_is_refused_saying_to_save_it_as_docx(tmp_path: Path, levels: dict[str, SourceLevel]) -> None:
    """The upload's rule (parsers.file_type_problem): named on the command line, queued, or met in a folder, a .doc
    is refused saying what it is and what to save it as, not merely "unsupported"."""
    doc = tmp_path / "memo.doc"
    doc.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600)
    said = (
        "this is an old binary Word file (.doc), which is not supported; open it in Word, save it as .docx (or as PDF)"
    )
    for args in ([str(doc)], [str(doc), "--queue"]):
        err = StringIO()
        with pytest.raises(CommandError, match="1 of 1 files failed"):
            call_command("ingest", *args, stdout=StringIO(), stderr=err)
        assert f"memo.doc error legacy_format: {said}" in err.getvalue()
    (tmp_path / "ok.txt").write_text("Fine text.")
    err = StringIO()
    call_command("ingest", str(tmp_path), stdout=StringIO(), stderr=err)
    assert f"skipped memo.doc: {said}" in err.getvalue()
    assert not Document.objects.filter(source_id="memo.doc").exists()


@pytest.mark.django_db
def test_a_role_group_is_refused_as_an_access_group(tmp_path: Path, levels: dict[str, SourceLevel]) -> None:
    """--group names access groups: a role group (staff, reviewer, admin) is refused with the pages' and the API's
    message (access.check_access_groups), in the command and queued alike, and nothing is stored."""
    path = tmp_path / "a.txt"
    path.write_text("Refunds take thirty days.")
    factories.make_group("reviewer")
    for queue in ([], ["--queue"]):
        err = StringIO()
        with pytest.raises(CommandError, match="1 of 1 files failed"):
            call_command("ingest", str(path), "--group", "reviewer", *queue, stdout=StringIO(), stderr=err)
        assert "a.txt error role_group: 'reviewer': a role group gives its members a role, not access" in err.getvalue()
    assert not Document.objects.exists() and not IngestJob.objects.exists()


@pytest.mark.django_db
@override_settings(RAG={"MAX_UPLOAD_BYTES": 1024 * 1024, "CHUNK_TARGET": 350, "CHUNK_MAX": 600})
def test_too_large_file_is_refused_without_reading(tmp_path: Path, levels: dict[str, SourceLevel]) -> None:
    """A file over RAG_MAX_UPLOAD_BYTES is an error line (too_large) and leaves no rows."""
    big = tmp_path / "big.txt"
    with big.open("wb") as fh:
        fh.truncate(2 * 1024 * 1024)
    _, err = StringIO(), StringIO()
    with pytest.raises(CommandError):
        call_command("ingest", str(big), stdout=StringIO(), stderr=err)
    assert "big.txt error too_large" in err.getvalue()
    assert not DocumentVersion.objects.exists()


@pytest.mark.django_db
def test_single_file_options(tmp_path: Path, levels: dict[str, SourceLevel]) -> None:
    """--source-id/--title/--url/--group/--effective-* apply to a single file."""
    path = tmp_path / "a.txt"
    shutil.copy(FIXTURES / "zh_utf8.txt", path)
    factories.make_group("hr")
    factories.make_group("board")
    out, _ = _run(
        str(path), "--source-id", "wiki/baobab", "--title", "猴面包树", "--url", "https://zh.wikipedia.org/wiki/猴面包树",
        "--group", "hr", "--group", "board", "--level", "reviewed",
        "--effective-from", "2024-01-01", "--effective-until", "2030-12-31",
    )  # fmt: skip
    assert out.startswith("wiki/baobab v1 ")
    doc = Document.objects.get(source_id="wiki/baobab")
    assert (doc.title, doc.level.slug) == ("猴面包树", "reviewed")  # type: ignore[union-attr]
    assert sorted(doc.groups.values_list("name", flat=True)) == ["board", "hr"]
    assert str(doc.current_version().effective_until) == "2030-12-31"  # type: ignore[union-attr]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--source-id", "x"], "only valid with a single file"),
        (["--title", "x"], "only valid with a single file"),
        (["--level", "secret"], "unknown level 'secret'"),
        (["--effective-from", "2024-13-01"], "is not a date"),
        (["--effective-from", "2024-02-01", "--effective-until", "2024-01-01"], "before"),
    ],
)
def test_invalid_options_fail_before_ingesting(
    corpus: Path, levels: dict[str, SourceLevel], extra: list[str], message: str
) -> None:
    """Bad options are a CommandError and nothing is ingested."""
    with pytest.raises(CommandError, match=message):
        _run(str(corpus), *extra)
    assert not Document.objects.exists()


@pytest.mark.django_db
def test_missing_path_is_an_error(tmp_path: Path) -> None:
    """A path that does not exist is a CommandError naming it."""
    with pytest.raises(CommandError, match="no such file"):
        _run(str(tmp_path / "nope"))


# --- --queue: jobs for the workers ------------------------------------------------------------------


@pytest.mark.django_db
def test_queue_prints_each_job_and_returns(corpus: Path, levels: dict[str, SourceLevel]) -> None:
    """One queued job per file, `<source_id> job <id> queued` each, nothing ingested by the command; the
    jobs carry the options, and run as a worker runs them."""
    out, err = _run(str(corpus), "--queue", "--level", "official")
    jobs = {job.source_id: job for job in IngestJob.objects.all()}
    assert sorted(jobs) == ["apache.md", "cc0.pdf", "zh/baobab.txt", "zh/page.html"]
    assert sorted(out.splitlines()) == sorted(f"{sid} job {job.pk} queued" for sid, job in jobs.items())
    assert err == "skipped notes.odt: unsupported file type\n" and not Document.objects.exists()
    assert all(job.user is None and job.options["level"] == "official" for job in jobs.values())
    assert [job.state for job in run_queued_jobs()] == ["done"] * 4
    assert set(Document.objects.values_list("level__slug", flat=True)) == {"official"}


@pytest.mark.django_db
def test_queue_reports_a_file_that_cannot_be_ingested_as_a_failed_job(
    tmp_path: Path, levels: dict[str, SourceLevel]
) -> None:
    (tmp_path / "empty.txt").write_text("  \n")
    (tmp_path / "ok.txt").write_text("Fine text.")
    out, err = StringIO(), StringIO()
    with pytest.raises(CommandError, match="1 of 2 files failed"):
        call_command("ingest", str(tmp_path), "--queue", stdout=out, stderr=err)
    assert out.getvalue().startswith("ok.txt job ") and "empty.txt error empty" in err.getvalue()


@pytest.mark.django_db
def test_queue_with_the_broker_down_stops_with_a_clear_error(tmp_path: Path) -> None:
    if redisserver.SERVER is None:
        pytest.skip("needs redis-server (scripts/system-deps.sh)")
    (tmp_path / "ok.txt").write_text("Fine text.")
    redisserver.SERVER.stop()
    try:
        with pytest.raises(CommandError, match="ingest queue is not reachable"):
            _run(str(tmp_path), "--queue")
    finally:
        redisserver.SERVER.start()
    assert not IngestJob.objects.exists()
