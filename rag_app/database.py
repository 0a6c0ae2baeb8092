"""A database that cannot be reached or written (down, locked past SQLITE_TIMEOUT, its disk full or read-only).

One rule for every surface: such a request answers 503 `database_unavailable`, saying nothing it sent was saved and
to try again, with one warning line in the log instead of a stack trace (an outage is expected, not a bug). The API
maps it in rag_app.api.errors, the pages in DatabaseUnavailableMiddleware (a standalone page: the database cannot
help render it), and `services.ask` raises DatabaseUnavailable instead of storing the failure as an answer, which the
same database would refuse again (each try waiting SQLITE_TIMEOUT). The log line of the ask keeps its redacted
summary, the one record of that question.
"""

from __future__ import annotations

import logging
from typing import Any

from django.db import DatabaseError, InterfaceError, OperationalError, connection
from django.http import HttpRequest, HttpResponse

log = logging.getLogger(__name__)

# SQLite raises OperationalError for outages and for SQL it cannot run (a table or column a pending migration would
# add): only these are the database being unavailable.
_SQLITE_OUTAGES = ("locked", "busy", "readonly", "read-only", "disk", "unable to open", "i/o error")
# PostgreSQL, by SQLSTATE: a connection failure (08), too little disk, memory or connections (53), an administrator's
# shutdown or a server starting (57P), a read-only transaction (25006: a standby after a failover), a lock or statement
# timeout (55P03, 57014), a serialization failure or deadlock (40001, 40P01).
_PG_OUTAGES = ("08", "53", "57P", "25006", "55P03", "57014", "40001", "40P01")
RETRY_AFTER_SECONDS = 5


class DatabaseUnavailable(Exception):
    code = "database_unavailable"


def unavailable(exc: BaseException) -> bool:
    """True when `exc` means the database cannot be reached or written now (worth trying again later)."""
    if isinstance(exc, DatabaseUnavailable | InterfaceError):
        return True
    if not isinstance(exc, DatabaseError):
        return False
    if connection.vendor == "sqlite":
        return isinstance(exc, OperationalError) and any(word in str(exc).lower() for word in _SQLITE_OUTAGES)
    state = getattr(exc.__cause__, "sqlstate", None)
    if state is None:  # no answer from the server at all: refused, lost, timed out
        return isinstance(exc, OperationalError)
    return str(state).startswith(_PG_OUTAGES)


def pending_migrations() -> list[str]:
    """The migrations this code has that the database has not applied ("app.name", in the order they would run);
    raises what reading the applied ones raises (an outage, a database that cannot be opened). A few ms: the
    migration modules are imported once per process, the applied ones read from the database each time."""
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    return [f"{migration.app_label}.{migration.name}" for migration, _backwards in plan]


def first_pending(pending: list[str]) -> str:
    """pending_migrations()' names as the health check and the commands show them: the first three, then "..."."""
    return ", ".join(pending[:3]) + (", ..." if len(pending) > 3 else "")


def log_outage(exc: BaseException, where: str) -> None:
    """One warning line, no stack trace; a DatabaseUnavailable was logged where it was raised (with what it knew)."""
    if isinstance(exc, DatabaseUnavailable):
        return
    log.warning("%s: the database is unavailable (%s: %s); answered 503", where, type(exc).__name__, exc)


def message() -> str:
    from django.utils.translation import gettext

    return gettext("The database is busy or unavailable, so nothing was saved. Try again in a moment.")


class DatabaseUnavailableMiddleware:
    """Pages: a database outage is a 503 page that says so, not the 500 page and a stack trace."""

    def __init__(self, get_response: Any) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response: HttpResponse = self.get_response(request)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not unavailable(exception):
            return None
        log_outage(exception, request.path)
        from rag_app.views.errors import database_unavailable_page

        return database_unavailable_page(request)
