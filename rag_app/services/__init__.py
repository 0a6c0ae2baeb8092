"""Writes and use cases, typed and keyword-only, one module per entity.

- ask.py: question -> retrieval -> assembly -> generation -> alignment -> support -> stored answer
- answers.py: storing an answer with its trace, reads about stored answers
- documents.py: document metadata and access groups (ingest itself: rag_app.ingest.service)
- levels.py: source levels and document levels, every change audited

Reads with permissions live in rag_app.selectors; input rules in rag_app.validation.
"""

from rag_app.services.answers import newer_versions
from rag_app.services.ask import (
    BELOW_THRESHOLD,
    EMPTY_ANSWER,
    EMPTY_INDEX,
    INTERNAL_ERROR,
    NO_ANSWERING_PASSAGE,
    NO_CITABLE_SOURCES,
    NO_EVIDENCE_MESSAGES,
    NO_MATCH,
    NOTHING_STATED,
    ask,
)
from rag_app.validation import MAX_QUESTION_CHARS, InvalidQuestion, clean_question

__all__ = [
    "BELOW_THRESHOLD",
    "EMPTY_ANSWER",
    "EMPTY_INDEX",
    "INTERNAL_ERROR",
    "MAX_QUESTION_CHARS",
    "NOTHING_STATED",
    "NO_ANSWERING_PASSAGE",
    "NO_CITABLE_SOURCES",
    "NO_EVIDENCE_MESSAGES",
    "NO_MATCH",
    "InvalidQuestion",
    "ask",
    "clean_question",
    "newer_versions",
]
