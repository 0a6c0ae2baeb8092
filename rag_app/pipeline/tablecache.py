"""The cache of tables parsed from packaged data (CC-CEDICT, WordNet) and of SQLite's HNSW graphs. Pure.

`RAG_CACHE_DIR`, else $XDG_CACHE_HOME/rag_app, else ~/.cache/rag_app. A table is written atomically (a
concurrent reader sees the old file or the whole new one) by the user's own process, so it is read back
with marshal, as trusted as this code; a cache that cannot be written is no error: the table is parsed
again by the next process.
"""

from __future__ import annotations

import contextlib
import marshal
import os
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    """RAG_CACHE_DIR, else $XDG_CACHE_HOME/rag_app, else ~/.cache/rag_app."""
    explicit = os.environ.get("RAG_CACHE_DIR")
    if explicit:
        return Path(explicit)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "rag_app"


def load(name: str) -> Any:
    """The table saved under `name` in the cache, or None when there is none (or it cannot be read)."""
    try:
        # Written by save() below into the user's own cache directory: as trusted as this code.
        return marshal.loads((cache_dir() / name).read_bytes())  # noqa: S302
    except (OSError, ValueError, EOFError, TypeError):
        return None


def save(name: str, value: Any, *, replaces: str | None = None) -> None:
    """Save `value` under `name` (atomically); with `replaces`, a glob of the files this one supersedes
    (tables of an earlier package or code), which are removed. Never raises."""
    cache = cache_dir() / name
    tmp = cache.with_suffix(f".{os.getpid()}.tmp")
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(marshal.dumps(value))
        tmp.replace(cache)
        for old in cache.parent.glob(replaces) if replaces else ():
            if old != cache:
                old.unlink(missing_ok=True)
    except OSError:  # a read-only home: parsed again next time
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
