"""How the API picks what it answers in: JSON, the only content type its schema documents."""

from __future__ import annotations

from typing import Any

from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation


class JsonOnly(DefaultContentNegotiation):
    """DRF's negotiation over the API's one renderer (JSON), but `?format=` naming another (api, html, xml) is a
    406 in the one error shape, as an Accept header asking for one is, not DRF's bare 404."""

    def filter_renderers(self, renderers: Any, format: str) -> Any:
        chosen = [renderer for renderer in renderers if renderer.format == format]
        if not chosen:
            raise NotAcceptable(f"This API answers in JSON only; format={format[:50]!r} is not available.")
        return chosen
