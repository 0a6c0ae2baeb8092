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

import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait

from django.conf import settings
from django.core.cache import cache
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from rag_app.database import first_pending, pending_migrations


def _database() -> str:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    return "ok"


def _migrations() -> str:
    """ "ok", or "pending: N (app.name, ...)" when migrations this code has are not applied."""
    try:
        plan = pending_migrations()
    except Exception as exc:
        return f"error: {type(exc).__name__}"
    if not plan:
        return "ok"
    return f"pending: {len(plan)} ({first_pending(plan)})"


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


# The model and embeddings servers are probed at once, both within PROBE_DEADLINE seconds (a server that accepts the
# connection and never answers must not hold a load balancer's check past its own timeout), and a probe's outcome is
# reused for PROBE_TTL seconds: a load balancer asking every second does not call a shared server (with its API key)
# for every node each time.
PROBE_DEADLINE = 1.5
PROBE_TTL = 15.0
_probed: dict[tuple[str, str], tuple[float, str]] = {}
_probed_lock = threading.Lock()


def _probe(base_url: str, api_key: str) -> str:
    """GET {base_url}/models on an OpenAI-compatible server: what a question would meet, without asking one."""
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        response = httpx.get(f"{base_url.rstrip('/')}/models", headers=headers, timeout=PROBE_DEADLINE)
    except httpx.HTTPError as exc:
        return f"unreachable: {type(exc).__name__}"
    return "ok" if response.is_success else f"error: HTTP {response.status_code}"


def _probe_all(targets: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Each named (base_url, api_key) probed, at the same time; an answer younger than PROBE_TTL is reused."""
    now = time.monotonic()
    results: dict[str, str] = {}
    with _probed_lock:
        for name, target in targets.items():
            fresh = _probed.get(target)
            if fresh is not None and now - fresh[0] < PROBE_TTL:
                results[name] = fresh[1]
    todo = {name: target for name, target in targets.items() if name not in results}
    if not todo:
        return results
    pool = ThreadPoolExecutor(max_workers=len(todo), thread_name_prefix="healthz")
    futures = {name: pool.submit(_probe, *target) for name, target in todo.items()}
    wait(futures.values(), timeout=PROBE_DEADLINE + 0.5)
    pool.shutdown(wait=False, cancel_futures=True)  # a probe still reading ends at its own timeout
    for name, future in futures.items():
        result = future.result() if future.done() else f"unreachable: no answer within {PROBE_DEADLINE:g} s"
        results[name] = result
        with _probed_lock:
            _probed[todo[name]] = (time.monotonic(), result)
    return results


def _model_server() -> str | tuple[str, str]:
    """The chat model server: a question in model mode (RAG_GENERATOR=openai, --mode llm) ends as `error` without it.
    Its (base_url, api_key) to probe, or what to report without probing."""
    rag = settings.RAG
    if not rag["OPENAI_BASE_URL"]:
        return "not configured: set OPENAI_BASE_URL" if rag["GENERATOR"] == "openai" else "not used"
    return (str(rag["OPENAI_BASE_URL"]), str(rag["OPENAI_API_KEY"]))


def _embedder() -> str | tuple[str, str]:
    """Whether a question can be embedded: the stored vectors are the configured embedder's (else every ask ends as
    embedder_mismatch until `rag_embed --rebuild`), and an embeddings server (RAG_EMBEDDER=openai) answers: its
    (base_url, api_key) to probe, or what to report without probing."""
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
    if configured[0] == "openai":
        base_url, api_key = dense.OpenAICompatible.endpoint()
        return (base_url, api_key) if base_url else "ok (the OpenAI API: not probed)"
    return "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    database = _database()
    checks: dict[str, str] = {
        "database": database,
        "migrations": _migrations() if database == "ok" else "unknown",
        "cache": _cache(),
        "broker": _broker(),
    }
    servers = {"model_server": _model_server(), "embedder": _embedder() if database == "ok" else "unknown"}
    checks.update({name: found for name, found in servers.items() if isinstance(found, str)})
    checks.update(_probe_all({name: found for name, found in servers.items() if isinstance(found, tuple)}))
    healthy = database == "ok" and checks["migrations"] == "ok"
    return JsonResponse({"status": "ok" if healthy else "error", **checks}, status=200 if healthy else 503)
