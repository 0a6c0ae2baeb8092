"""`manage.py rag_embed [--rebuild]`: embed the current chunks that have no vector (after setting
RAG_EMBEDDER), or, with --rebuild, every current chunk again with the configured embedder (after
changing RAG_EMBEDDER or RAG_EMBEDDING_MODEL: vectors of two models cannot be compared, so asking
and ingesting refuse until the rebuild is done)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from rag_app.management.commands._options import DatabaseCommand, positive_option
from rag_app.search.dense import EmbedderMismatch, EmbeddingError, identity
from rag_app.search.indexing import embed_missing
from rag_app.validation import positive_int


class Command(DatabaseCommand):
    help = (
        "Embed current chunks that have no vector yet with the configured RAG_EMBEDDER; --rebuild re-embeds"
        " every current chunk and replaces all stored vectors."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=positive_int, default=256, help="chunks stored per transaction")
        parser.add_argument(
            "--rebuild",
            action="store_true",
            help="re-embed every current chunk with the configured embedder and model, replacing every stored vector",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        positive_option(opts, "batch")
        if settings.RAG["EMBEDDER"] == "none":
            self.stdout.write("RAG_EMBEDDER is none: nothing to embed")
            return

        def progress(done: int, total: int) -> None:
            self.stderr.write(f"\rembedded {done}/{total}", ending="")

        try:
            count = embed_missing(batch=opts["batch"], progress=progress, rebuild=opts["rebuild"])
        except (EmbedderMismatch, EmbeddingError) as exc:
            self.stderr.write("")
            raise CommandError(str(exc)) from None
        self.stderr.write("")
        made_by = identity()
        assert made_by is not None
        self.stdout.write(f"embedded {count} chunks with {made_by[0]} ({made_by[1]})")
