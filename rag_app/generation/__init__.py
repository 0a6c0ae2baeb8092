"""Answer writers behind one protocol: extractive quotations (default) or an OpenAI-compatible model."""

from __future__ import annotations

from .base import GenerationError, Generator
from .factory import get_generator, resolve_mode

__all__ = ["GenerationError", "Generator", "get_generator", "resolve_mode"]
