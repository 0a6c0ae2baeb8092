"""GET /healthz: what a load balancer asks a web node (docs/DEPLOYMENT.md).

200 when the database answers and has every migration this code needs, 503 otherwise (a node whose code is ahead
of the database ends every question in an error: "migrate first", docs/DEPLOYMENT.md). The shared cache (CACHE_URL)
and the broker are reported but do not fail the check: a web node without them still serves answers and pages (the
ask throttle counts in each process while the cache is away, rag_app/throttling.py; uploads answer 503 on their own),
and both are shared by every node, so failing on them would take every node out of the load balancer at once. No
login: the answer names no data.
"""

from __future__ import annotations

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    return "ok"


def _migrations() -> str:
    """ "ok", or "pending: N (app.name, ...)" when migrations this code has are not applied (a few ms: the migration
    modules are imported once per process, the applied ones read from the database each time)."""
    from django.db.migrations.executor import MigrationExecutor

    try:
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    if not plan:
        return "ok"
    names = ", ".join(f"{migration.app_label}.{migration.name}" for migration, _backwards in plan[:3])
    return f"pending: {len(plan)} ({names}{', ...' if len(plan) > 3 else ''})"


def _cache() -> str:
    if not settings.CACHE_URL:
        return "local"  # per process: nothing shared to check
    try:
        cache.set("healthz", "1", 5)
        return "ok" if cache.get("healthz") == "1" else "error: read back nothing"
    except Exception as exc:
        return f"error: {type(exc).__name__}"


def _broker() -> str:
    from config.celery import app

    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=settings.CELERY_BROKER_CONNECTION_TIMEOUT)
    except Exception as exc:
        return f"unreachable: {type(exc).__name__}"
    return "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    database = _database()
    checks = {
        "database": database,
        "migrations": _migrations() if database == "ok" else "unknown",
        "cache": _cache(),
        "broker": _broker(),
    }
    healthy = database == "ok" and checks["migrations"] == "ok"
    return JsonResponse({"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503)
