"""`manage.py restore SOURCE_ID...`: bring retired documents back into retrieval.

The operator's tool (user=None): any document. Prints `<source_id> restored` (or `not retired`)
per id and an error line for an unknown one (the others go on); exits non-zero if any failed.
The audit log (DocumentEvent) records the operator, when and the source_id.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rag_app.models import Document
from rag_app.services.documents import document_restore


class Command(BaseCommand):
    help = "Restore retired documents: used for new answers again."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source_ids", nargs="+", metavar="SOURCE_ID")

    def handle(self, *args: Any, **opts: Any) -> None:
        source_ids: list[str] = opts["source_ids"]
        failed = 0
        for source_id in source_ids:
            document = Document.objects.filter(source_id=source_id).first() if "\x00" not in source_id else None
            if document is None:
                self.stderr.write(f"error: {source_id!r}: no such document")
                failed += 1
            elif document.retired_at is None:
                self.stdout.write(f"{source_id} not retired")
            else:
                document_restore(user=None, document=document)
                self.stdout.write(f"{source_id} restored")
        if failed:
            raise CommandError(f"{failed} of {len(source_ids)} failed")
