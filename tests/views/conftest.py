from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from tests import factories


@pytest.fixture
def other_staff(db: None) -> User:
    """A second staff user, to check that answers stay private to their asker."""
    return factories.make_user("staff2", groups=("staff",))


@pytest.fixture
def outsider(db: None) -> User:
    """Logged in but in no role group: may use no page of the app."""
    return factories.make_user("nobody", groups=())


def client_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


HTMX = {"HTTP_HX_REQUEST": "true"}
