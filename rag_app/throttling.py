"""The per-user rate on asking (RAG_ASK_THROTTLE), one bucket for the API and the web form.

Counted in Django's cache, keyed by user (IP for the anonymous). With CACHE_URL set (Redis, Django's own
backend) every web node and every process counts in one place, so "60/min" holds for the whole site;
without it the count is per process (docs/DEPLOYMENT.md).

DRF's own throttle keeps a list of request times and writes it back (read, then write): two processes
that read the same list both let a request through. Here the count is one atomic increment per request
(Redis INCR; the local-memory cache increments under its lock), in a window that opens with the user's
first request and lasts the rate's period, so N requests per period are let through and never more,
however many processes share the cache.

When the shared cache does not answer (Redis down or unreachable), the count moves to this process, as if CACHE_URL
were unset, instead of failing the ask: a question is never lost to the throttle, and a user is still held to N per
period per web process rather than let through without limit (docs/SECURITY.md, "Input rules"). The outage is logged
once, when it starts, and once when it ends; meanwhile one request every RETRY_SECONDS tries the shared cache again,
so the others do not each wait on a connection timeout.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle

log = logging.getLogger(__name__)


def _cache_errors() -> tuple[type[Exception], ...]:
    """What a cache that does not answer raises: socket errors, and redis-py's own (Django's backend passes them on)."""
    kinds: list[type[Exception]] = [OSError]
    try:
        from redis.exceptions import RedisError
    except ImportError:  # pragma: no cover - redis comes with celery[redis]
        return tuple(kinds)
    return (*kinds, RedisError)


CACHE_ERRORS = _cache_errors()


class SharedCacheState:
    """Whether the shared cache answers, as this process last found it."""

    RETRY_SECONDS = 10.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.down_since: float | None = None
        self._next_try = 0.0

    def worth_trying(self) -> bool:
        """True while the cache answers; during an outage, for one caller every RETRY_SECONDS."""
        with self._lock:
            if self.down_since is None:
                return True
            now = time.monotonic()
            if now < self._next_try:
                return False
            self._next_try = now + self.RETRY_SECONDS
            return True

    def failed(self, exc: Exception) -> None:
        with self._lock:
            self._next_try = time.monotonic() + self.RETRY_SECONDS
            if self.down_since is not None:
                return
            self.down_since = time.monotonic()
        log.error(
            "the shared cache (CACHE_URL) does not answer (%s: %s): the ask throttle counts in each web process"
            " until it does",
            type(exc).__name__,
            exc,
        )

    def answered(self) -> None:
        with self._lock:
            if self.down_since is None:
                return
            seconds = time.monotonic() - self.down_since
            self.down_since = None
        log.warning("the shared cache (CACHE_URL) answers again after %.0f s: the ask throttle is site-wide", seconds)


SHARED_CACHE = SharedCacheState()
# Where a process counts while the shared cache is away (its counts are left behind when the cache is back).
LOCAL_COUNTS: BaseCache = LocMemCache("rag-ask-throttle", {"OPTIONS": {"MAX_ENTRIES": 10_000}})


class AskThrottle(UserRateThrottle):
    """Per-user rate on ask; the rate is read per request so settings changes apply."""

    scope = "ask"
    window_start = 0.0
    num_requests: int | None  # set by SimpleRateThrottle.__init__ from the rate
    duration: int | None

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope or "ask")
        return None if rate is None else str(rate)

    def allow_request(self, request: Any, view: Any) -> bool:
        if self.rate is None or self.num_requests is None or self.duration is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        self.now = self.timer()
        return self._count() <= self.num_requests

    def _count(self) -> int:
        """This request's number in the current window: in the shared cache, or in this process while it is away."""
        if SHARED_CACHE.worth_trying():
            try:
                count = self._count_in(self.cache)
            except CACHE_ERRORS as exc:
                SHARED_CACHE.failed(exc)
            else:
                SHARED_CACHE.answered()
                return count
        return self._count_in(LOCAL_COUNTS)

    def _count_in(self, cache: BaseCache) -> int:
        """This request's number in the current window (1 for the first), counted atomically in `cache`."""
        assert self.duration is not None and self.key is not None
        start_key = f"{self.key}:window"
        # The first request of a window stores its start; everyone else reads the same start.
        cache.add(start_key, self.now, self.duration)
        start = cache.get(start_key)
        self.window_start = float(start) if start is not None else self.now
        count_key = f"{self.key}:{self.window_start:.6f}"
        cache.add(count_key, 0, self.duration + 1)
        try:
            return int(cache.incr(count_key))
        except ValueError:  # the window ended between add and incr: this request opens the next one
            cache.add(count_key, 1, self.duration + 1)
            return 1

    def wait(self) -> float | None:
        if self.duration is None:
            return None
        return max(self.window_start + self.duration - self.now, 1.0)


def ask_wait(request: HttpRequest) -> float | None:
    """None when this user may ask now (and counts the ask), else the seconds until they may."""
    throttle = AskThrottle()
    if throttle.allow_request(request, None):
        return None
    return throttle.wait() or 1.0
