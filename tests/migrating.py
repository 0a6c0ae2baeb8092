"""Migrating the test database to a given state, for the tests of one migration (tests/test_migrations*.py)."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate_to(target: list[tuple[str, str]]) -> Any:
    """Migrate the test database to `target`; the historical apps of that state, for making rows as they were."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(target)
    return MigrationExecutor(connection).loader.project_state(target).apps
