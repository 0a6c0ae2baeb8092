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
def test_without_redis_the_node_is_unhealthy_and_says_why(client):
    """Redis down: the shared cache fails the check (503); the broker is reported unreachable."""
    assert redisserver.SERVER is not None
    redisserver.SERVER.stop()
    try:
        response = client.get("/healthz")
    finally:
        redisserver.SERVER.start()
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["database"] == "ok"
    assert body["cache"].startswith("error") and body["broker"].startswith("unreachable")


def test_it_takes_only_get(client):
    assert client.post("/healthz").status_code == 405
