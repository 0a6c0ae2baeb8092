from __future__ import annotations

import pytest
from django.conf import settings


def pytest_configure(config: pytest.Config) -> None:
    # Fast hashing in tests (cookiecutter-django habit); real hashers stay in settings.py.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
