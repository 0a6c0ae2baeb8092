"""The ask throttle with Django's Redis cache (CACHE_URL): one limit for every process and node.

The session's redis-server (tests/redisserver.py) is the cache, as in production. Two separate
Python processes, started together, each try to ask 12 times for the same user under a limit of
7/min: the throttle must let exactly 7 through in all, not 7 per process, and not more when their
requests interleave (each count is one atomic Redis INCR).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache

from tests import redisserver
from tests.workers import ROOT, wait_for

pytestmark = pytest.mark.skipif(redisserver.SERVER is None, reason="needs redis-server (scripts/system-deps.sh)")

# One process of the test: wait for the start file, then try N asks for user 4242 and print how many passed.
CHILD = """
import os, sys, time, types
from pathlib import Path
import django
django.setup()
from rag_app.throttling import ask_wait
start = Path(sys.argv[1])
Path(sys.argv[2]).touch()  # ready
while not start.exists():
    time.sleep(0.001)
request = types.SimpleNamespace(user=types.SimpleNamespace(is_authenticated=True, pk=4242), META={})
print(sum(ask_wait(request) is None for _ in range(int(sys.argv[3]))))
"""


def test_the_session_cache_is_django_redis_backend():
    """CACHE_URL set: Django's own Redis backend, a database apart from the broker's."""
    assert settings.CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert settings.CACHE_URL != settings.CELERY_BROKER_URL
    cache.set("probe", "seen", 5)
    assert cache.get("probe") == "seen"


def test_the_ask_limit_holds_across_two_processes(tmp_path: Path):
    cache.clear()
    start, tries = tmp_path / "start", 12
    env = {**os.environ, "RAG_ASK_THROTTLE": "7/min", "DJANGO_SETTINGS_MODULE": "config.settings"}
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(start), str(tmp_path / f"ready-{n}"), str(tries)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=redisserver.die_with_parent,
        )
        for n in range(2)
    ]
    try:
        wait_for(lambda: all((tmp_path / f"ready-{n}").exists() for n in range(2)), 120, "both processes")
        time.sleep(0.05)
        start.touch()  # both go at once
        results = [child.communicate(timeout=120) for child in children]
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
    passed = [int(out.strip()) for out, err in results]
    assert sum(passed) == 7, (passed, [err[-2000:] for _, err in results])
    assert all(count < tries for count in passed)  # each process was refused some
    cache.clear()


def _asker(pk: int):
    import types

    return types.SimpleNamespace(user=types.SimpleNamespace(is_authenticated=True, pk=pk), META={})


def test_with_redis_down_the_limit_holds_in_each_process_and_the_outage_is_logged_once(settings, caplog):
    """The shared cache away: asking goes on (the question is not lost to the throttle), each process counts for
    itself, and the log says so once, not once per request."""
    from rag_app.throttling import ask_wait

    assert redisserver.SERVER is not None
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"ask": "3/min"}}
    redisserver.SERVER.stop()
    try:
        with caplog.at_level("INFO", logger="rag_app.throttling"):
            waits = [ask_wait(_asker(4343)) for _ in range(5)]
    finally:
        redisserver.SERVER.start()
    assert waits[:3] == [None, None, None] and all(wait is not None and wait > 0 for wait in waits[3:])
    [record] = caplog.records
    assert record.levelname == "ERROR" and "counts in each web process" in record.getMessage()


def test_once_redis_is_back_the_count_is_site_wide_again(settings, caplog, monkeypatch):
    """The next try after the outage finds the cache (here at once: RETRY_SECONDS 0), counts there again, and says
    so once."""
    from rag_app import throttling

    assert redisserver.SERVER is not None
    cache.clear()
    monkeypatch.setattr(throttling.SharedCacheState, "RETRY_SECONDS", 0.0)
    redisserver.SERVER.stop()
    try:
        assert throttling.ask_wait(_asker(4444)) is None
    finally:
        redisserver.SERVER.start()
    assert cache.get("throttle_ask_4444:window") is None  # counted in the process
    caplog.clear()
    with caplog.at_level("INFO", logger="rag_app.throttling"):
        assert throttling.ask_wait(_asker(4444)) is None
        assert throttling.ask_wait(_asker(4444)) is None
    assert cache.get("throttle_ask_4444:window") is not None
    assert [r.getMessage().split(" after")[0] for r in caplog.records] == ["the shared cache (CACHE_URL) answers again"]
    cache.clear()


def test_during_an_outage_the_cache_is_tried_again_only_now_and_then(monkeypatch):
    """One request every RETRY_SECONDS tries the shared cache; the others count in the process without waiting on
    it (a Redis that does not answer costs a connection timeout per try)."""
    from rag_app import throttling

    state = throttling.SharedCacheState()
    assert state.worth_trying()
    state.failed(ConnectionError("refused"))
    assert not state.worth_trying()
    monkeypatch.setattr(throttling.SharedCacheState, "RETRY_SECONDS", 0.0)
    state.failed(ConnectionError("refused"))
    assert state.worth_trying()
