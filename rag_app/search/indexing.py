"""Keeps the search indexes in step with the chunk table, inside the ingest transaction.

Owned by the retrieval layer; the ingest service calls exactly these three functions.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.models import Chunk, DocumentVersion


def embed_for_ingest(texts: Sequence[str]) -> object:
    """Embed chunk texts before the transaction opens (None when no embedder is configured)."""
    return None


def index_chunks(version: DocumentVersion, chunks: Sequence[Chunk], embeddings: object) -> None:
    """Add a new current version's chunks to the lexical (and dense) index."""


def unindex_version(version: DocumentVersion) -> None:
    """Remove a superseded version's chunks from the indexes (its rows stay for old answers)."""
