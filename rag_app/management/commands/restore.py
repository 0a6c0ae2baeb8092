"""`manage.py restore SOURCE_ID...`: bring retired documents back into retrieval.

Prints `<source_id> restored` (or `not retired`) per id; see _documents.py for the rest.
"""

from __future__ import annotations

from typing import Any

from rag_app.models import Document
from rag_app.services.documents import document_restore

from ._documents import DocumentsCommand


class Command(DocumentsCommand):
    help = "Restore retired documents: used for new answers again."

    def act(self, document: Document, opts: dict[str, Any]) -> str:
        if document.retired_at is None:
            return f"{document.source_id} not retired"
        document_restore(user=None, document=document)
        return f"{document.source_id} restored"
