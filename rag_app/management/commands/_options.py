"""Options the management commands share the rule of."""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from rag_app import database
from rag_app.validation import positive_int


class DatabaseCommand(BaseCommand):
    """A command that reads or writes the app's tables: on a database missing migrations this code needs (a fresh
    file before `migrate`, a deploy whose code is ahead of its database) it stops with one line saying to migrate,
    not a traceback ending in "no such table"; on one that is unavailable, with the line the pages and the API give."""

    def execute(self, *args: Any, **options: Any) -> Any:
        try:
            pending = database.pending_migrations()
        except Exception as exc:
            if not database.unavailable(exc):
                raise
            raise CommandError(f"{database.message()} ({type(exc).__name__}: {exc})") from None
        if pending:
            raise CommandError(
                f"the database lacks {len(pending)} migration(s) this code needs ({database.first_pending(pending)}): "
                "run `python manage.py migrate` first"
            )
        return super().execute(*args, **options)


def positive_option(opts: dict[str, Any], name: str) -> None:
    """Check `opts[name]` (a count or a batch size; None when not given) by positive_int, in place: the parser
    checks it on the command line, but call_command passes its keyword arguments through untyped."""
    if opts.get(name) is None:
        return
    try:
        opts[name] = positive_int(str(opts[name]))
    except argparse.ArgumentTypeError as exc:
        raise CommandError(f"--{name} {exc}") from None
