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
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok", "broker": "ok"}
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


def test_without_the_database_the_node_is_unhealthy(client, monkeypatch):
    """The database is what a node cannot serve without: 503, naming it."""
    from django.db import connection

    def refuse(*args, **kwargs):
        raise ConnectionRefusedError("database away")

    monkeypatch.setattr(connection, "cursor", refuse)
    response = client.get("/healthz")
    assert response.status_code == 503
    assert response.json()["status"] == "error" and response.json()["database"] == "error: ConnectionRefusedError"


def test_it_takes_only_get(client):
    assert client.post("/healthz").status_code == 405
