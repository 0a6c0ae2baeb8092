"""GET /healthz: what a load balancer asks a web node (docs/DEPLOYMENT.md)."""

from __future__ import annotations

import pytest

from tests import redisserver

pytestmark = pytest.mark.django_db

needs_redis = pytest.mark.skipif(redisserver.SERVER is None, reason="needs redis-server (scripts/system-deps.sh)")


@needs_redis
def test_it_is_ok_with_the_database_the_cache_and_the_broker(client):
    """No login needed; the answer names only the checks, never data."""
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {
        "status": "ok",
        "database": "ok",
        "migrations": "ok",
        "cache": "ok",
        "broker": "ok",
        "model_server": "not used",  # the suite's settings: extractive, no OPENAI_BASE_URL, RAG_EMBEDDER=none
        "embedder": "none",
    }
    assert "no-cache" in response["Cache-Control"]


@needs_redis
def test_without_redis_the_node_still_serves_and_says_what_is_missing(client):
    """Redis down: the node still answers questions (the ask throttle counts per process meanwhile), so it stays in
    the load balancer (200); the shared cache and the broker are reported as failing. Every node shares Redis: a 503
    here would take the whole site out."""
    assert redisserver.SERVER is not None
    redisserver.SERVER.stop()
    try:
        response = client.get("/healthz")
    finally:
        redisserver.SERVER.start()
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and body["database"] == "ok"
    assert body["cache"].startswith("error") and body["broker"].startswith("unreachable")


@pytest.mark.django_db(transaction=True)
def test_without_the_database_the_node_is_unhealthy(client):
    """The database is what a node cannot serve without: 503, naming it. The connection is pointed at a port where
    no PostgreSQL listens, so the check meets the driver's own error (the test database on SQLite is in memory:
    closing it would lose it for the rest of the run, so this runs on PostgreSQL, RAG_TEST_DB=postgres)."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("the SQLite test database lives in memory and cannot be taken away")
    saved = dict(connection.settings_dict)
    connection.close()
    connection.settings_dict.update(HOST="127.0.0.1", PORT="1")
    try:
        response = client.get("/healthz")
    finally:
        connection.close()
        connection.settings_dict.clear()
        connection.settings_dict.update(saved)
    assert response.status_code == 503
    assert response.json()["status"] == "error" and response.json()["database"] == "error: OperationalError"


def test_it_takes_only_get(client):
    assert client.post("/healthz").status_code == 405


@pytest.fixture
def silent_server():
    """A server that accepts connections and never answers (a model server hung mid-request); counts connections."""
    import socket
    import threading

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    accepted: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            accepted.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}/v1", accepted
    listener.close()
    for conn in accepted:
        conn.close()


def test_a_server_that_never_answers_is_reported_unreachable_once_per_window(client, settings, silent_server):
    """Both servers probed at once under one deadline, not one after the other each with its own; the outcome is
    reused for a while, so a load balancer asking every second does not open a connection to it every time."""
    from rag_app.views import health

    url, accepted = silent_server
    health._probed.clear()
    settings.RAG = settings.RAG | {
        "GENERATOR": "openai",
        "OPENAI_BASE_URL": url,
        "EMBEDDER": "openai",
        "EMBEDDING_BASE_URL": url.replace("/v1", "/embeddings-v1"),
        "EMBEDDING_MODEL": "m",
    }
    body = client.get("/healthz").json()
    assert body["status"] == "ok"  # shared servers: reported, never failed
    assert body["model_server"].startswith("unreachable") and body["embedder"].startswith("unreachable"), body
    assert len(accepted) == 2
    again = client.get("/healthz").json()
    assert (again["model_server"], again["embedder"]) == (body["model_server"], body["embedder"])
    assert len(accepted) == 2  # the window's outcome, no new connection
    health._probed.clear()
