"""`manage.py rag_embed`: embed the current chunks that have no vector (after setting RAG_EMBEDDER)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandParser

from rag_app.search.indexing import embed_missing


class Command(BaseCommand):
    help = "Embed current chunks that have no vector yet, with the configured RAG_EMBEDDER."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--batch", type=int, default=256)

    def handle(self, *args: Any, **opts: Any) -> None:
        if settings.RAG["EMBEDDER"] == "none":
            self.stdout.write("RAG_EMBEDDER is none: nothing to embed")
            return

        def progress(done: int, total: int) -> None:
            self.stderr.write(f"\rembedded {done}/{total}", ending="")

        count = embed_missing(batch=opts["batch"], progress=progress)
        self.stderr.write("")
        self.stdout.write(f"embedded {count} chunks")
