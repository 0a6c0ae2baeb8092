"""Every page against every role: anonymous -> login, no role -> 403, and the role ladder."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests import factories
from tests.views.answers import make_answer
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db

# page -> the lowest role that may open it
PAGES = {
    "ask": "staff",
    "history": "staff",
    "document_list": "staff",
    "document_version": "staff",
    "answer_detail": "staff",  # their own answer
    "review_list": "reviewer",
    "answer_provenance": "reviewer",
    "levels": "admin",
}
LADDER = ["staff", "reviewer", "admin"]


@pytest.fixture
def users(levels):
    return {
        "staff": factories.make_user("s", groups=("staff",)),
        "reviewer": factories.make_user("r", groups=("staff", "reviewer")),
        "admin": factories.make_user("a", groups=("staff", "admin")),
        "none": factories.make_user("n", groups=()),
    }


def url_for(name: str, owner) -> str:
    if name == "document_version":
        factories.ingest_text("Open text.", source_id="open/doc")
        return reverse(name, args=["open/doc", 1])
    if name in ("answer_detail", "answer_provenance"):
        return reverse(name, args=[make_answer(user=owner).pk])
    return reverse(name)


@pytest.mark.parametrize("name", PAGES)
def test_anonymous_users_are_sent_to_log_in(client, users, name):
    """No page is shown to an anonymous visitor."""
    response = client.get(url_for(name, users["staff"]))
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


@pytest.mark.parametrize("name", PAGES)
def test_users_without_a_role_are_refused(users, name):
    """Logged in but in no role group: 403 everywhere."""
    assert client_for(users["none"]).get(url_for(name, users["none"])).status_code == 403


@pytest.mark.parametrize("role", LADDER)
@pytest.mark.parametrize("name", PAGES)
def test_each_role_reaches_exactly_its_pages(users, name, role):
    """A role opens the pages at or below it on the ladder and gets 403 above it."""
    user = users[role]
    allowed = LADDER.index(role) >= LADDER.index(PAGES[name])
    status = client_for(user).get(url_for(name, user)).status_code
    assert status == (200 if allowed else 403)
