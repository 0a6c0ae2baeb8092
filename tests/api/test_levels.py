from __future__ import annotations

from rag_app.models import LevelChange, SourceLevel
from tests import factories


def test_admin_lists_levels_by_weight(api_as, admin_user_role, levels):
    """Levels come highest weight first."""
    body = api_as(admin_user_role).get("/api/v1/levels/").json()
    assert [level["slug"] for level in body] == ["official", "reviewed", "note"]


def test_levels_are_admin_only(api_as, staff_user, reviewer_user, levels):
    """Staff and reviewers get 403 on every levels operation."""
    for user in (staff_user, reviewer_user):
        client = api_as(user)
        assert client.get("/api/v1/levels/").status_code == 403
        assert (
            client.post("/api/v1/levels/", {"slug": "x", "label": "X", "weight": 1}, format="json").status_code == 403
        )
        assert client.patch("/api/v1/levels/note", {"weight": 9}, format="json").status_code == 403
    assert SourceLevel.objects.get(slug="note").weight == 1.0


def test_admin_creates_a_level_and_it_is_audited(api_as, admin_user_role, levels):
    """POST creates the level (201) and records level.created."""
    response = api_as(admin_user_role).post(
        "/api/v1/levels/", {"slug": "vendor", "label": "Vendor", "weight": 0.5}, format="json"
    )
    assert response.status_code == 201
    assert response.json() == {"slug": "vendor", "label": "Vendor", "weight": 0.5, "description": ""}
    assert LevelChange.objects.filter(field="level.created", level__slug="vendor", user=admin_user_role).exists()


def test_create_rejects_duplicates_and_bad_values(api_as, admin_user_role, levels):
    """A taken slug, a non-slug, a non-number weight and an unknown field: each 400 naming the field."""
    client = api_as(admin_user_role)
    cases = {
        "slug": {"slug": "note", "label": "Again", "weight": 1},
        "weight": {"slug": "new", "label": "New", "weight": "heavy"},
        "colour": {"slug": "new", "label": "New", "weight": 1, "colour": "red"},
    }
    for field, body in cases.items():
        response = client.post("/api/v1/levels/", body, format="json")
        assert response.status_code == 400, field
        assert field in response.json()["fields"], field
    assert client.post("/api/v1/levels/", {"slug": "a b", "label": "x", "weight": 1}, format="json").status_code == 400
    assert SourceLevel.objects.count() == 3


def test_admin_reweights_a_level(api_as, admin_user_role, levels):
    """PATCH changes the weight and the label, each change audited."""
    response = api_as(admin_user_role).patch("/api/v1/levels/note", {"weight": 2.5, "label": "Notes"}, format="json")
    assert response.status_code == 200
    assert (response.json()["weight"], response.json()["label"]) == (2.5, "Notes")
    assert set(LevelChange.objects.filter(level__slug="note").values_list("field", flat=True)) == {
        "level.weight",
        "level.label",
    }


def test_unknown_level_is_404(api_as, admin_user_role):
    """GET or PATCH of a level that does not exist: 404."""
    client = api_as(admin_user_role)
    assert client.get("/api/v1/levels/gospel").status_code == 404
    assert client.patch("/api/v1/levels/gospel", {"weight": 1}, format="json").status_code == 404


def test_a_superuser_without_the_group_is_an_admin(api_as, levels):
    """A superuser counts as admin even outside the admin group."""
    root = factories.make_user("root", groups=(), is_superuser=True)
    assert api_as(root).get("/api/v1/levels/").status_code == 200
