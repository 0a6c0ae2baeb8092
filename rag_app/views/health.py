"""GET /healthz: what a load balancer asks a web node (docs/DEPLOYMENT.md).

200 when the database answers and has every migration this code needs, 503 otherwise (a node whose code is ahead
of the database ends every question in an error: "migrate first", docs/DEPLOYMENT.md). The shared cache (CACHE_URL),
the broker, the model server and the embedder (stored vectors of another model; an embeddings server that does not
answer) are reported but do not fail the check: a web node without them still serves answers and pages (the
ask throttle counts in each process while the cache is away, rag_app/throttling.py; uploads answer 503 on their own),
and all are shared by every node, so failing on them would take every node out of the load balancer at once. No
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


# Seconds a model or embeddings server may take to list its models before /healthz calls it unreachable.
PROBE_TIMEOUT = 3.0


def _probe(base_url: str, api_key: str) -> str:
    """GET {base_url}/models on an OpenAI-compatible server: what a question would meet, without asking one."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=PROBE_TIMEOUT)
    except httpx.HTTPError as exc:
        return f"unreachable: {type(exc).__name__}"
    return "ok" if response.is_success else f"error: HTTP {response.status_code}"


def _model_server() -> str:
    """The chat model server: a question in model mode (RAG_GENERATOR=openai, --mode llm) ends as `error` without it."""
    rag = settings.RAG
    if not rag["OPENAI_BASE_URL"]:
        return "not configured: set OPENAI_BASE_URL" if rag["GENERATOR"] == "openai" else "not used"
    return _probe(str(rag["OPENAI_BASE_URL"]), str(rag["OPENAI_API_KEY"]))


def _embedder() -> str:
    """Whether a question can be embedded: the stored vectors are the configured embedder's (else every ask ends as
    embedder_mismatch until `rag_embed --rebuild`), and an embeddings server (RAG_EMBEDDER=openai) answers."""
    from rag_app.search import dense

    configured = dense.identity()
    if configured is None:
        return "none"
    try:
        stored = [found for found in dense.stored_identities() if found != configured]
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    if stored:
        return f"mismatch: vectors by {'/'.join(stored[0])}, configured {'/'.join(configured)}; run rag_embed --rebuild"
    rag = settings.RAG
    if configured[0] == "openai":
        # No base URL: the client's own default, OpenAI's (dense.OpenAICompatible).
        base_url = str(rag["EMBEDDING_BASE_URL"] or rag["OPENAI_BASE_URL"]) or "https://api.openai.com/v1"
        return _probe(base_url, str(rag["EMBEDDING_API_KEY"] or rag["OPENAI_API_KEY"]))
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
        "model_server": _model_server(),
        "embedder": _embedder() if database == "ok" else "unknown",
    }
    healthy = database == "ok" and checks["migrations"] == "ok"
    return JsonResponse({"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503)
