"""`manage.py delete_document SOURCE_ID... [--force]`: delete documents for good.

Refused for a document that answers cite unless --force, which deletes those answers too
(rag_app.services.documents.document_delete says why). Prints `<source_id> deleted: <n> versions,
<m> chunks[, <k> citing answers deleted]` per id; see _documents.py for the rest. The audit log
(DocumentEvent) keeps the source_id, when, and that the operator did it.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from rag_app.models import Document
from rag_app.services.documents import DocumentCited, document_delete

from ._documents import DocumentsCommand


class Command(DocumentsCommand):
    help = "Delete documents for good (every version); refused while answers cite them unless --force."

    def add_arguments(self, parser: CommandParser) -> None:
        super().add_arguments(parser)
        parser.add_argument(
            "--force", action="store_true", help="also delete the answers that cite the document (else refused)"
        )

    def act(self, document: Document, opts: dict[str, Any]) -> str:
        try:
            result = document_delete(user=None, document=document, force=opts["force"])
        except DocumentCited as exc:
            raise CommandError(f"{document.source_id!r}: {exc} (--force)") from None
        line = f"{document.source_id} deleted: {result.versions} versions, {result.chunks} chunks"
        if result.answers_deleted:
            line += f", {len(result.answers_deleted)} citing answers deleted"
        return line
