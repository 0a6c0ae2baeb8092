"""`manage.py delete_document SOURCE_ID... [--force]`: delete documents for good.

The operator's tool (user=None): any document. Refused for a document that answers cite unless
--force, which deletes those answers too (rag_app.services.documents.document_delete says why).
Prints `<source_id> deleted: <n> versions, <m> chunks[, <k> citing answers deleted]` per id and an
error line for an unknown or refused one (the others go on); exits non-zero if any failed. The
audit log (DocumentEvent) keeps the source_id, when, and that the operator did it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from rag_app.models import Document
from rag_app.services.documents import DocumentCited, document_delete


class Command(BaseCommand):
    help = "Delete documents for good (every version); refused while answers cite them unless --force."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("source_ids", nargs="+", metavar="SOURCE_ID")
        parser.add_argument(
            "--force", action="store_true", help="also delete the answers that cite the document (else refused)"
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        source_ids: list[str] = opts["source_ids"]
        failed = 0
        for source_id in source_ids:
            document = Document.objects.filter(source_id=source_id).first() if "\x00" not in source_id else None
            if document is None:
                self.stderr.write(f"error: {source_id!r}: no such document")
                failed += 1
                continue
            try:
                result = document_delete(user=None, document=document, force=opts["force"])
            except DocumentCited as exc:
                self.stderr.write(f"error: {source_id!r}: {exc} (--force)")
                failed += 1
                continue
            line = f"{source_id} deleted: {result.versions} versions, {result.chunks} chunks"
            if result.answers_deleted:
                line += f", {len(result.answers_deleted)} citing answers deleted"
            self.stdout.write(line)
        if failed:
            raise CommandError(f"{failed} of {len(source_ids)} failed")
