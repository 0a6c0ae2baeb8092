"""The per-user rate on asking (RAG_ASK_THROTTLE), one bucket for the API and the web form.

Counted in Django's cache, keyed by user (IP for the anonymous). With CACHE_URL set (Redis, Django's own
backend) every web node and every process counts in one place, so "60/min" holds for the whole site;
without it the count is per process (docs/DEPLOYMENT.md).

DRF's own throttle keeps a list of request times and writes it back (read, then write): two processes
that read the same list both let a request through. Here the count is one atomic increment per request
(Redis INCR; the local-memory cache increments under its lock), in a window that opens with the user's
first request and lasts the rate's period, so N requests per period are let through and never more,
however many processes share the cache.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle


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
        """This request's number in the current window (1 for the first), counted atomically."""
        assert self.duration is not None and self.key is not None
        start_key = f"{self.key}:window"
        # The first request of a window stores its start; everyone else reads the same start.
        self.cache.add(start_key, self.now, self.duration)
        start = self.cache.get(start_key)
        self.window_start = float(start) if start is not None else self.now
        count_key = f"{self.key}:{self.window_start:.6f}"
        self.cache.add(count_key, 0, self.duration + 1)
        try:
            return int(self.cache.incr(count_key))
        except ValueError:  # the window ended between add and incr: this request opens the next one
            self.cache.add(count_key, 1, self.duration + 1)
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
