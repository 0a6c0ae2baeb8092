"""Dense retrieval (RAG_EMBEDDER). Placeholder API while the lexical path is measured."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings


def enabled() -> bool:
    return settings.RAG["EMBEDDER"] != "none"


def embed_passages(texts: Sequence[str]) -> Any:
    return None


def store_vectors(pks: Sequence[int], embeddings: Any) -> None:
    return None


def delete_vectors(pks: Sequence[int]) -> None:
    return None


def search(*, question: str, user: Any, limit: int) -> list[tuple[int, float]]:
    return []


def calibrate(cosine: float) -> float:
    return cosine
