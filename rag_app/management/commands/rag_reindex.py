"""`manage.py rag_reindex [--reparse] [--embeddings]`: index current chunks again in the current format.

Chunks are indexed with their document's title and section path (rag_app.search.indexing.
chunk_context) and the initialisms of the names they spell (indexing.search_tokens). A corpus indexed
before either, or whose titles changed since, is brought up to date
by this command: lexical tokens always, vectors with --embeddings (every chunk is embedded again and
replaces its vector, which takes as long as the first ingest: indexing.embed_missing(rebuild=True)).
Answers keep their citations; nothing is re-chunked in place. On PostgreSQL, when rows were rewritten, the
lexical index, the term statistics and the chunk table are vacuumed (indexing.settle: rewritten rows stay behind
dead until vacuumed and slow every lexical search that scans them); the vectors are left to autovacuum.

With --reparse, first every current plain-text version whose stored text the current parser reads
differently (hard-wrapped lines an older parser kept, a heading it missed) becomes the document's next
version (ingest.service.reparse_plain_text); other formats come up to date by ingesting their files again.

With --check, nothing is written: the command counts the searched chunks indexed in another form than this release's
(indexing.stale_index, the comparison re-indexing makes), names a few, and exits with status 1 when there are any, as
`makemigrations --check` does. `manage.py check --database default` makes the same comparison on a sample (W003).
"""

from __future__ import annotations

import sys
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError, CommandParser

from rag_app.ingest.service import reparse_plain_text
from rag_app.management.commands._options import DatabaseCommand, positive_option
from rag_app.search.indexing import REWRITTEN_BY_REINDEX, embed_missing, reindex_current, settle, stale_index
from rag_app.validation import positive_int


class Command(DatabaseCommand):
    help = (
        "Re-index current chunks with their title and section path (re-parse plain text first with --reparse,"
        " re-embed with --embeddings)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--reparse",
            action="store_true",
            help="first parse current plain-text versions again; a changed text becomes the next version",
        )
        parser.add_argument("--embeddings", action="store_true", help="also drop and re-embed every vector")
        parser.add_argument(
            "--check",
            action="store_true",
            help="write nothing: count the chunks indexed in an older form, exit 1 if there are any",
        )
        parser.add_argument("--batch", type=positive_int, default=500)

    def handle(self, *args: Any, **opts: Any) -> None:
        positive_option(opts, "batch")
        if opts["check"]:
            if opts["reparse"] or opts["embeddings"]:
                raise CommandError("--check writes nothing: give it without --reparse and --embeddings")
            found = stale_index(batch=opts["batch"])
            if not found.stale:
                self.stdout.write(f"all {found.total} searched chunks are indexed in this release's form")
                return
            self.stdout.write(
                f"{found.stale} of {found.total} searched chunks are indexed in an older form"
                f" (e.g. {', '.join(found.examples)}): run `manage.py rag_reindex`"
            )
            sys.exit(1)

        def progress(done: int, total: int) -> None:
            self.stderr.write(f"\r{done}/{total}", ending="")

        reparsed = 0
        if opts["reparse"]:
            done = reparse_plain_text(progress=progress)
            self.stderr.write("")
            for result in done.results:
                self.stdout.write(result.line())
            for source_id, message in done.failures:
                self.stderr.write(f"{source_id}: not re-parsed: {message}")
            self.stdout.write(f"re-parsed {len(done.results)} plain-text documents into a new version")
            reparsed = len(done.results)
        changed = reindex_current(batch=opts["batch"], progress=progress)
        self.stderr.write("")
        self.stdout.write(f"re-indexed {changed} chunks")
        if (changed or reparsed) and (settled := settle(REWRITTEN_BY_REINDEX)):
            self.stdout.write(settled)
        if opts["embeddings"]:
            if settings.RAG["EMBEDDER"] == "none":
                self.stdout.write("RAG_EMBEDDER is none: no vectors to rebuild")
                return
            count = embed_missing(batch=256, progress=progress, rebuild=True)
            self.stderr.write("")
            self.stdout.write(f"embedded {count} chunks")
