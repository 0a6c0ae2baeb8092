"""`manage.py retire SOURCE_ID...`: take documents out of retrieval; they stay readable.

Prints `<source_id> retired` (or `already retired`) per id; see _documents.py for the rest. The audit
log (DocumentEvent) records the operator, when and the source_id.
"""

from __future__ import annotations

from typing import Any

from rag_app.models import Document
from rag_app.services.documents import document_retire

from ._documents import DocumentsCommand


class Command(DocumentsCommand):
    help = "Retire documents: no longer used for new answers; versions and citing answers stay readable."

    def act(self, document: Document, opts: dict[str, Any]) -> str:
        if document.retired_at is not None:
            return f"{document.source_id} already retired"
        document_retire(user=None, document=document)
        return f"{document.source_id} retired"
