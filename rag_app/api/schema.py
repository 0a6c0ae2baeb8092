"""How the served OpenAPI schema is generated: exact request bodies, offline docs pages."""

from __future__ import annotations

from typing import Any, cast

from django.conf import settings


def forbid_unknown_request_fields(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: request bodies reject unknown fields, and the schema says so.

    The input serializers refuse undeclared fields (400 naming them); `additionalProperties: false`
    makes the published contract match, so generated clients and fuzzers agree with the server.
    """
    components = result.get("components", {}).get("schemas", {})
    request_refs: set[str] = set()
    for path in result.get("paths", {}).values():
        for operation in path.values():
            if not isinstance(operation, dict):
                continue
            for media in operation.get("requestBody", {}).get("content", {}).values():
                ref = media.get("schema", {}).get("$ref", "")
                if ref.startswith("#/components/schemas/"):
                    request_refs.add(ref.rsplit("/", 1)[-1])
    for name in request_refs:
        component = components.get(name)
        if isinstance(component, dict) and component.get("type") == "object":
            component["additionalProperties"] = False
    return result


def schema_settings() -> dict[str, Any]:
    """SPECTACULAR_SETTINGS plus the hooks above, for the schema view only."""
    default = ["drf_spectacular.hooks.postprocess_schema_enums"]
    hooks = cast(list[str], settings.SPECTACULAR_SETTINGS.get("POSTPROCESSING_HOOKS", default))
    return {
        "POSTPROCESSING_HOOKS": [*hooks, "rag_app.api.schema.forbid_unknown_request_fields"],
        "COMPONENT_SPLIT_REQUEST": True,
    }
