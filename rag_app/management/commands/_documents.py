"""What `retire`, `restore` and `delete_document` share: one line per source_id, the others go on.

The operator's tools (user=None): any document. An unknown id (or one with a NUL byte, which no id can
hold) gets an error line; the command exits non-zero if any id failed.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from rag_app import selectors
from rag_app.management.commands._options import DatabaseCommand
from rag_app.models import Document


class DocumentsCommand(DatabaseCommand):
    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source_ids", nargs="+", metavar="SOURCE_ID")

    def act(self, document: Document, opts: dict[str, Any]) -> str:
        """Do the command's work on one document; return its output line, or raise CommandError."""
        raise NotImplementedError

    def handle(self, *args: Any, **opts: Any) -> None:
        source_ids: list[str] = opts["source_ids"]
        failed = 0
        for source_id in source_ids:
            document = selectors.document_for_operator(source_id=source_id)
            try:
                if document is None:
                    raise CommandError(f"{source_id!r}: no such document")
                self.stdout.write(self.act(document, opts))
            except CommandError as exc:
                self.stderr.write(f"error: {exc}")
                failed += 1
        if failed:
            raise CommandError(f"{failed} of {len(source_ids)} failed")
