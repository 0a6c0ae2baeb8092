"""Options the management commands share the rule of."""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import CommandError

from rag_app.validation import positive_int


def positive_option(opts: dict[str, Any], name: str) -> None:
    """Check `opts[name]` (a count or a batch size; None when not given) by positive_int, in place: the parser
    checks it on the command line, but call_command passes its keyword arguments through untyped."""
    if opts.get(name) is None:
        return
    try:
        opts[name] = positive_int(str(opts[name]))
    except argparse.ArgumentTypeError as exc:
        raise CommandError(f"--{name} {exc}") from None
