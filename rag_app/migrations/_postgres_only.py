"""Raw SQL run by a migration on PostgreSQL only (SQLite's FTS5 index needs none of it). Not a migration itself:
Django's loader skips modules whose names start with "_"."""

from collections.abc import Callable, Sequence
from typing import Any


def run_on_postgres(statements: Sequence[str]) -> Callable[[Any, Any], None]:
    """A RunPython function that runs `statements` in order on PostgreSQL. No "%" in them: the schema editor
    passes parameters, so the driver would read one as a placeholder."""

    def run(apps: Any, schema_editor: Any) -> None:
        if schema_editor.connection.vendor == "postgresql":
            for sql in statements:
                schema_editor.execute(sql)

    return run
