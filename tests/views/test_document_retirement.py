"""Web: retire / restore / delete buttons, the retired labels, and who may press them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rag_app.models import Answer, Document, DocumentEvent
from tests import factories
from tests.views.answers import Para, make_answer
from tests.views.conftest import client_for

pytestmark = pytest.mark.django_db

SOURCE = "hr/travel/rules"


@pytest.fixture
def document(levels) -> Document:
    return factories.make_document("Travel costs are refunded within 30 days.", source_id=SOURCE, title="Travel")


def viewer(user, source_id: str = SOURCE) -> str:
    response = client_for(user).get(reverse("document_version", args=[source_id, 1]))
    assert response.status_code == 200
    return response.content.decode()


def test_an_admin_retires_and_restores_from_the_viewer(admin_user_role, document):
    client = client_for(admin_user_role)
    html = viewer(admin_user_role)
    assert f'action="{reverse("document_retire", args=[SOURCE])}"' in html
    assert 'class="banner retired"' not in html

    response = client.post(reverse("document_retire", args=[SOURCE]), follow=True)
    assert response.redirect_chain[0] == ("/documents/hr/travel/rules/v1/", 302)
    html = response.content.decode()
    assert "Travel is retired: it is no longer used for new answers." in html
    assert 'class="banner retired"' in html
    assert "This document is retired: it is no longer used for new answers" in html
    assert f'action="{reverse("document_restore", args=[SOURCE])}"' in html
    assert f'action="{reverse("document_delete", args=[SOURCE])}"' in html
    assert Document.objects.get(pk=document.pk).retired_at is not None

    response = client.post(reverse("document_restore", args=[SOURCE]), follow=True)
    assert 'class="banner retired"' not in response.content.decode()
    assert Document.objects.get(pk=document.pk).retired_at is None
    assert list(DocumentEvent.objects.order_by("id").values_list("action", flat=True)) == ["retired", "restored"]


def test_staff_see_the_banner_without_buttons(staff_user, document):
    Document.objects.filter(pk=document.pk).update(retired_at="2026-01-02T03:04:05Z")
    html = viewer(staff_user)
    assert 'class="banner retired"' in html
    assert reverse("document_restore", args=[SOURCE]) not in html
    assert reverse("document_delete", args=[SOURCE]) not in html
    assert reverse("document_retire", args=[SOURCE]) not in html


def test_the_library_labels_retired_documents(staff_user, document, levels):
    factories.ingest_text("Badges open the door.", source_id="it/badges", title="Badges")
    Document.objects.filter(pk=document.pk).update(retired_at="2026-01-02T03:04:05Z")
    html = client_for(staff_user).get(reverse("document_list")).content.decode()
    assert html.count('class="badge retired"') == 1
    row = html[html.index("Travel</a>") :][:400]
    assert "retired" in row


def test_answers_citing_a_retired_document_show_the_badge(staff_user, document):
    chunk = factories.chunks_of(document)[0]
    answer = make_answer(user=staff_user, paragraphs=[Para("Refunded within 30 days.", cites=[("S1", chunk)])])
    client = client_for(staff_user)
    assert 'class="badge retired"' not in client.get(answer.get_absolute_url()).content.decode()
    Document.objects.filter(pk=document.pk).update(retired_at="2026-01-02T03:04:05Z")
    html = client.get(answer.get_absolute_url()).content.decode()
    assert html.count('class="badge retired"') == 2  # the hover card and the source panel
    assert "Refunded within 30 days." in html  # still readable


def test_delete_needs_the_confirm_box(admin_user_role, document):
    client = client_for(admin_user_role)
    response = client.post(reverse("document_delete", args=[SOURCE]), follow=True)
    assert "Tick the confirmation box to delete the document." in response.content.decode()
    assert Document.objects.filter(pk=document.pk).exists()

    response = client.post(reverse("document_delete", args=[SOURCE]), {"confirm": "1"}, follow=True)
    assert response.redirect_chain[-1] == (reverse("document_list"), 302)
    assert "Travel (hr/travel/rules) is deleted." in response.content.decode()
    assert not Document.objects.filter(source_id=SOURCE).exists()
    assert DocumentEvent.objects.get(action="deleted").username == "admin1"


def test_delete_is_refused_while_answers_cite_it_unless_forced(admin_user_role, staff_user, document):
    chunk = factories.chunks_of(document)[0]
    answer = make_answer(user=staff_user, paragraphs=[Para("Refunded within 30 days.", cites=[("S1", chunk)])])
    client = client_for(admin_user_role)
    html = viewer(admin_user_role)
    assert "1 answer cites this document." in html and 'name="force"' in html

    response = client.post(reverse("document_delete", args=[SOURCE]), {"confirm": "1"}, follow=True)
    assert "1 answer cites this document, so it was not deleted." in response.content.decode()
    assert Document.objects.filter(pk=document.pk).exists() and Answer.objects.filter(pk=answer.pk).exists()

    response = client.post(reverse("document_delete", args=[SOURCE]), {"confirm": "1", "force": "1"}, follow=True)
    assert "1 answer citing it was deleted." in response.content.decode()
    assert not Document.objects.filter(pk=document.pk).exists() and not Answer.objects.filter(pk=answer.pk).exists()


@pytest.mark.parametrize("name", ["document_retire", "document_restore", "document_delete"])
def test_an_admin_outside_the_documents_group_gets_404(name, levels):
    factories.make_document("Board pay rises.", source_id="board/pay", groups=["board"])
    outsider_admin = factories.make_user("admin-b", groups=("staff", "admin"))
    response = client_for(outsider_admin).post(reverse(name, args=["board/pay"]), {"confirm": "1", "force": "1"})
    assert response.status_code == 404
    assert client_for(outsider_admin).post(reverse(name, args=["no/such/doc"]), {"confirm": "1"}).status_code == 404
    document = Document.objects.get(source_id="board/pay")
    assert document.retired_at is None and not DocumentEvent.objects.exists()
    member_admin = factories.make_user("admin-board", groups=("staff", "admin", "board"))
    assert client_for(member_admin).post(reverse(name, args=["board/pay"]), {"confirm": "1"}).status_code == 302


@pytest.mark.parametrize("name", ["document_retire", "document_restore", "document_delete"])
def test_staff_get_403_and_nothing_changes(name, staff_user, reviewer_user, document):
    for user in (staff_user, reviewer_user):
        response = client_for(user).post(reverse(name, args=[SOURCE]), {"confirm": "1", "force": "1"})
        assert response.status_code == 403
    assert Document.objects.get(pk=document.pk).retired_at is None


@pytest.mark.parametrize("name", ["document_retire", "document_restore", "document_delete"])
def test_the_actions_are_post_only_and_need_csrf(name, admin_user_role, document):
    assert client_for(admin_user_role).get(reverse(name, args=[SOURCE])).status_code == 405
    strict = client_for(admin_user_role)
    strict.handler.enforce_csrf_checks = True
    assert strict.post(reverse(name, args=[SOURCE]), {"confirm": "1"}).status_code == 403
    assert Document.objects.filter(pk=document.pk, retired_at__isnull=True).exists()


def test_anonymous_visitors_are_sent_to_log_in(client, document):
    response = client.post(reverse("document_retire", args=[SOURCE]))
    assert response.status_code == 302 and "/login" in response["Location"]
