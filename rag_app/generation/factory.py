"""Pick the generator from the request's mode or settings.RAG["GENERATOR"]."""

from __future__ import annotations

from django.conf import settings

from .base import GenerationError, Generator
from .extractive import ExtractiveGenerator
from .openai_compat import OpenAICompatGenerator

MODES = ("extractive", "llm")
_SETTING_TO_MODE = {"extractive": "extractive", "openai": "llm"}


def resolve_mode(mode: str | None) -> str:
    """'extractive' | 'llm' (also accepts 'openai'); None = the configured default. ValueError otherwise."""
    if mode is None or mode == "":
        return _SETTING_TO_MODE[str(settings.RAG["GENERATOR"])]
    mode = mode.strip().lower()
    if mode == "openai":
        return "llm"
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; use one of: {', '.join(MODES)}")
    return mode


def get_generator(mode: str | None = None) -> Generator:
    """A ready generator. An unconfigured model raises GenerationError('llm_not_configured')."""
    resolved = resolve_mode(mode)
    if resolved == "extractive":
        return ExtractiveGenerator()
    rag = settings.RAG
    if not rag["OPENAI_BASE_URL"]:
        raise GenerationError(
            "llm_not_configured",
            "No model server is configured (set OPENAI_BASE_URL, and RAG_LLM_MODEL if the server needs a model name).",
            model=rag["LLM_MODEL"],
        )
    return OpenAICompatGenerator(
        base_url=rag["OPENAI_BASE_URL"],
        api_key=rag["OPENAI_API_KEY"],
        model=rag["LLM_MODEL"],
        timeout=rag["LLM_TIMEOUT"],
        retries=rag["LLM_RETRIES"],
        deadline=rag["LLM_DEADLINE"],
        structured=rag["LLM_STRUCTURED"],
        max_tokens=rag["LLM_MAX_TOKENS"],
    )
