from __future__ import annotations

import re

import yaml


def test_the_schema_is_openapi_3_with_every_endpoint(client, db):
    """GET schema/ serves OpenAPI 3 listing each operation of the API."""
    response = client.get("/api/v1/schema/")
    assert response.status_code == 200
    schema = yaml.safe_load(response.content)
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    assert "post" in paths["/api/v1/ask"]
    assert "get" in paths["/api/v1/answers/"]
    assert "get" in paths["/api/v1/answers/{answer_id}"]
    assert "get" in paths["/api/v1/answers/{answer_id}/trace"]
    assert set(paths["/api/v1/documents/"]) >= {"get", "post"}
    assert set(paths["/api/v1/documents/{source_id}"]) >= {"get", "patch"}
    assert "get" in paths["/api/v1/documents/{source_id}/versions/"]
    assert "get" in paths["/api/v1/chunks/{chunk_id}"]
    assert set(paths["/api/v1/levels/"]) >= {"get", "post"}
    assert set(paths["/api/v1/levels/{slug}"]) >= {"get", "patch"}


def test_request_bodies_forbid_unknown_fields_in_the_schema(client, db):
    """The schema says what the server does: request objects allow no additional properties."""
    schema = yaml.safe_load(client.get("/api/v1/schema/").content)
    components = schema["components"]["schemas"]
    for name in ("AskInputRequest", "LevelCreateInputRequest", "DocumentCreateInputRequest"):
        assert components[name]["additionalProperties"] is False


def test_a_source_and_a_related_passage_say_whether_their_version_is_current(client, db):
    """An old answer's sources[] and related[] declare is_current and current_version, as the answer JSON gives
    them (presentation.CardView.as_source, RelatedView.as_dict)."""
    components = yaml.safe_load(client.get("/api/v1/schema/").content)["components"]["schemas"]
    for name in ("SourceOutput", "RelatedOutput"):
        properties = components[name]["properties"]
        assert properties["is_current"]["type"] == "boolean"
        assert properties["current_version"] == {**properties["current_version"], "type": "integer", "nullable": True}
        assert {"is_current", "current_version"} <= set(components[name]["required"])


def test_error_responses_are_documented(client, db):
    """Every error status an operation can return is in the schema with the error body."""
    schema = yaml.safe_load(client.get("/api/v1/schema/").content)
    upload = schema["paths"]["/api/v1/documents/"]["post"]["responses"]
    assert {"400", "401", "403", "413", "415"} <= set(upload)
    assert upload["413"]["content"]["application/json"]["schema"]["$ref"].endswith("/ErrorOutput")


def test_the_docs_page_loads_nothing_from_outside(client, db):
    """Swagger UI comes from our own static files (sidecar), no CDN, and no inline script (CSP)."""
    html = client.get("/api/v1/docs/").content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any("swagger-ui-bundle.js" in s for s in sources)
    assert all(not s.startswith(("http://", "https://", "//")) for s in sources), sources
    assert re.findall(r"<script(?![^>]*\ssrc=)[^>]*>", html) == []


def test_the_docs_script_is_served(client, db):
    """The docs page's init script is a real JavaScript response pointing at our schema."""
    html = client.get("/api/v1/docs/").content.decode()
    script_url = next(s for s in re.findall(r'<script src="([^"]+)"', html) if "script=" in s or "docs" in s)
    script = client.get(script_url)
    assert script.status_code == 200
    assert "/api/v1/schema/" in script.content.decode()
