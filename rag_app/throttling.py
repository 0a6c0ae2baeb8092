"""The per-user rate on asking (RAG_ASK_THROTTLE), one bucket for the API and the web form.

DRF's UserRateThrottle keyed by user (IP for the anonymous), in Django's cache: with Redis as the
cache (several web nodes) the limit holds across processes.
"""

from __future__ import annotations

from django.http import HttpRequest
from rest_framework.settings import api_settings
from rest_framework.throttling import UserRateThrottle


class AskThrottle(UserRateThrottle):
    """Per-user rate on ask; the rate is read per request so settings changes apply."""

    scope = "ask"

    def get_rate(self) -> str | None:
        rate = api_settings.DEFAULT_THROTTLE_RATES.get(self.scope or "ask")
        return None if rate is None else str(rate)


def ask_wait(request: HttpRequest) -> float | None:
    """None when this user may ask now (and counts the ask), else the seconds until they may."""
    throttle = AskThrottle()
    if throttle.allow_request(request, None):  # type: ignore[arg-type]  # reads only .user and .META
        return None
    return throttle.wait() or 1.0
