from __future__ import annotations

from django.core.management import call_command
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from rag_app.models import Answer
from tests import factories


def test_drf_create_token_gives_a_working_token(staff_user, capsys):
    """`manage.py drf_create_token USER` prints a token that authenticates API calls."""
    call_command("drf_create_token", staff_user.username)
    key = Token.objects.get(user=staff_user).key
    assert key in capsys.readouterr().out
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/documents/").status_code == 200


def test_session_auth_works_and_writes_need_csrf(staff_user):
    """A signed-in browser session reads the API; a write without the CSRF token is refused."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(staff_user)
    assert client.get("/api/v1/documents/").status_code == 200
    response = client.post("/api/v1/ask", {"question": "anything?"}, format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert not Answer.objects.exists()


def test_an_inactive_user_token_is_refused(db):
    """A deactivated account's token stops working."""
    user = factories.make_user(groups=("staff",))
    key = Token.objects.create(user=user).key
    user.is_active = False
    user.save()
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/v1/documents/").status_code == 401
