"""The one Generator protocol every answer writer follows, and its typed failure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from rag_app.pipeline.records import Assembly, Draft


class GenerationError(Exception):
    """The generator could not produce a usable draft. `reason` is a stable code stored on the answer.

    Codes: llm_not_configured, llm_timeout, llm_unreachable, llm_http_error, llm_bad_output,
    llm_empty_output, llm_refused.
    """

    def __init__(self, reason: str, message: str, *, prompt: str = "", raw_output: str = "", model: str = "") -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.prompt = prompt
        self.raw_output = raw_output
        self.model = model


class Generator(Protocol):
    #: Answer.mode value: "extractive" or "llm".
    mode: str

    def generate(self, *, question: str, assembly: Assembly, language: str, history: Sequence[str] = ()) -> Draft:
        """Write a draft that cites only markers of `assembly`; raise GenerationError on failure.

        `history`: the earlier questions of a follow-up thread, oldest first (context for a model;
        never a source: only `assembly` may be cited)."""
        ...
