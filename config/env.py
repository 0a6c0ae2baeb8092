"""Typed environment readers that fail loudly on bad values (healthchecks style)."""

from __future__ import annotations

import math
import os
import re

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def envstr(name: str, default: str) -> str:
    return os.environ.get(name, default)


def envbool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name}={raw!r} is not a boolean (use 1/0, true/false, yes/no)")


def envint(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not an integer") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name}={value} must be >= {minimum}")
    return value


def envfloat(name: str, default: float, *, lo: float | None = None, hi: float | None = None) -> float:
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name}={raw!r} is not a number") from None
    if not math.isfinite(value):  # nan passes every range check (each comparison is false); inf disables a timeout
        raise ImproperlyConfigured(f"{name}={raw!r} is not a finite number")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ImproperlyConfigured(f"{name}={value} must be within [{lo}, {hi}]")
    return value


def envlist(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def envchoice(name: str, default: str, choices: set[str]) -> str:
    value = os.environ.get(name, default).strip().lower()
    if value not in choices:
        raise ImproperlyConfigured(f"{name}={value!r} must be one of {sorted(choices)}")
    return value


# DRF's rate grammar (rest_framework.throttling.SimpleRateThrottle.parse_rate reads the period's first letter).
_RATE_RE = re.compile(r"(\d+)/(s|sec|second|m|min|minute|h|hr|hour|d|day)s?", re.IGNORECASE)


def envrate(name: str, default: str) -> str:
    """A request rate such as `60/min` (N per second, minute, hour or day). Checked here, at start-up: DRF reads it
    only when the first request is throttled, so a typo would make every ask fail instead."""
    value = os.environ.get(name, default).strip()
    if not _RATE_RE.fullmatch(value):
        raise ImproperlyConfigured(f"{name}={value!r} is not a rate (N/second, N/min, N/hour or N/day, e.g. 60/min)")
    return value.lower()
