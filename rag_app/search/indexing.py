"""Keeps the search indexes in step with the chunk table, inside the ingest transaction.

Owned by the retrieval layer; the ingest service calls exactly these three functions. Embedding
(slow) happens in embed_for_ingest, before the transaction opens; index_chunks / unindex_version
only write rows, so a failed ingest rolls the index back with everything else.
"""

from __future__ import annotations

from collections.abc import Sequence

from rag_app.models import Chunk, DocumentVersion

from . import dense, lexical


def embed_for_ingest(texts: Sequence[str]) -> object:
    """Embed chunk texts before the transaction opens (None when no embedder is configured)."""
    return dense.embed_passages(texts)


def index_chunks(version: DocumentVersion, chunks: Sequence[Chunk], embeddings: object) -> None:
    """Add a new current version's chunks to the lexical (and dense) index."""
    lexical.index_rows([(c.pk, c.search_text) for c in chunks])
    if embeddings is not None:
        dense.store_vectors([c.pk for c in chunks], embeddings)


def unindex_version(version: DocumentVersion) -> None:
    """Remove a superseded version's chunks from the indexes (its rows stay for old answers)."""
    rows = list(Chunk.objects.filter(version=version).values_list("pk", "search_text"))
    lexical.unindex_rows(rows)
    dense.delete_vectors([pk for pk, _ in rows])
