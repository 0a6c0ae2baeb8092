from __future__ import annotations

from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.core.cache import cache
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def _fresh_throttle_counts() -> None:
    """Throttle counters live in the cache; each test starts from zero."""
    cache.clear()


@pytest.fixture
def api_as(db: None) -> Callable[[User | None], APIClient]:
    """A client that authenticates as `user` with a real DRF token (None: no credentials)."""

    def make(user: User | None) -> APIClient:
        client = APIClient()
        if user is not None:
            token, _ = Token.objects.get_or_create(user=user)
            client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return client

    return make
