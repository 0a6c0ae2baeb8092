"""`manage.py loaddemo`: ingest the bundled demo corpus (demo/manifest.json) and create demo users.

Idempotent and fast on re-run: unchanged files are recognised by their content hash before any
chunking, and an existing document keeps the level, title and groups an admin gave it (the
manifest only seeds them), except that a document still restricted by a role group (the demo's old `reviewer`) gets
the manifest's access groups, and the demo users listed with a group this run created get it. A document an admin
deleted is not loaded again, nor a role an admin took from a demo user given back (`make run` runs this on every
start). Users: `admin` (Django admin + admin role), `staff`, `reviewer`.
Passwords are random on first creation, kept in a git-ignored .demo-credentials.json (mode 600),
and printed on every run while they still work.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import secrets
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import Group, User
from django.core.management.base import CommandError, CommandParser

from rag_app import access
from rag_app.ingest.parsers import ParseError
from rag_app.ingest.service import IngestError, document_ingest
from rag_app.management.commands._options import DatabaseCommand
from rag_app.models import Document, DocumentEvent
from rag_app.services.levels import document_set_groups

DEMO_DIR = Path(settings.BASE_DIR) / "demo"
CREDENTIALS = Path(settings.BASE_DIR) / ".demo-credentials.json"
DEMO_USERS: dict[str, dict[str, Any]] = {
    "admin": {"groups": ["staff", "admin"], "is_staff": True, "is_superuser": True},
    "staff": {"groups": ["staff"], "is_staff": False, "is_superuser": False},
    # `research`: the access group of the demo's one restricted document (a role group is never an access group).
    "reviewer": {"groups": ["staff", "reviewer", "research"], "is_staff": False, "is_superuser": False},
}


class Command(DatabaseCommand):
    help = "Load the bundled demo corpus and create the demo users (admin, staff, reviewer)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--manifest", type=Path, default=DEMO_DIR / "manifest.json")
        parser.add_argument("--no-users", action="store_true", help="only ingest the corpus")
        parser.add_argument("--credentials", type=Path, default=CREDENTIALS, help="where generated passwords are kept")

    def handle(self, *args: Any, **opts: Any) -> None:
        if opts["verbosity"] < 2:
            logging.getLogger("rag_app.ingest").setLevel(logging.WARNING)
        manifest_path: Path = opts["manifest"]
        try:
            manifest = json.loads(manifest_path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"cannot read demo manifest {manifest_path}: {exc}") from exc
        failed = 0
        self._new_groups: set[str] = set()  # the groups this run created
        for entry in manifest["documents"]:
            try:
                self.stdout.write(self._ingest(manifest_path.parent, entry))
            except (ParseError, IngestError, OSError) as exc:
                failed += 1
                self.stderr.write(f"{entry.get('source_id', entry.get('file'))} error: {exc}")
        if not opts["no_users"]:
            self._users(opts["credentials"])
        if failed:
            raise CommandError(f"{failed} demo documents failed to load")

    def _ingest(self, base: Path, entry: dict[str, Any]) -> str:
        path = base / entry["file"]
        source_id = entry.get("source_id") or entry["file"]
        kwargs: dict[str, Any] = {}
        if not Document.objects.filter(source_id=source_id).exists():
            # Deleted by an admin since it was loaded: for good, as the README says; `make run` runs this on every
            # start and must not bring it back (ingest the file by hand to have it again).
            if DocumentEvent.objects.filter(source_id=source_id, action=DocumentEvent.Action.DELETED).exists():
                return f"{source_id} skipped: deleted since it was loaded (ingest it by hand to have it again)"
            # Seed metadata only on first load; later an admin's edits win.
            kwargs = {
                "title": entry.get("title") or None,
                "url": entry.get("url") or None,
                "level": entry.get("level") or None,
                "groups": entry.get("groups") or None,
            }
            # The demo's access groups are its own to create: an ingest names existing ones.
            for name in kwargs["groups"] or ():
                self._group(name)
        else:
            self._leave_role_groups(source_id, entry.get("groups") or [])
        for name in ("effective_from", "effective_until"):
            if entry.get(name):
                kwargs[name] = dt.date.fromisoformat(entry[name])
        result = document_ingest(data=path.read_bytes(), file_name=path.name, source_id=source_id, **kwargs)
        return result.line()

    def _group(self, name: str) -> Group:
        group, created = Group.objects.get_or_create(name=name)
        if created:
            self._new_groups.add(name)
        return group

    def _leave_role_groups(self, source_id: str, groups: list[str]) -> None:
        """A demo document loaded when the demo restricted it by a role group (`reviewer`, before a role group was
        never an access group) gets the manifest's access groups; one without a role group keeps an admin's."""
        document = Document.objects.get(source_id=source_id)
        if not document.groups.filter(name__in=access.ROLES).exists():
            return
        document_set_groups(user=None, document=document, groups=[self._group(name) for name in groups])

    def _users(self, credentials: Path) -> None:
        # {username: {"password": ..., "hash": the password hash loaddemo set}}: comparing hashes tells
        # whether the password still works without a slow PBKDF2 check on every run.
        stored: dict[str, dict[str, str]] = {}
        if credentials.exists():
            try:
                stored = {k: v for k, v in json.loads(credentials.read_text("utf-8")).items() if isinstance(v, dict)}
            except (ValueError, AttributeError):
                stored = {}
        for username, spec in DEMO_USERS.items():
            user, created = User.objects.get_or_create(
                username=username, defaults={"is_staff": spec["is_staff"], "is_superuser": spec["is_superuser"]}
            )
            # The demo's roles are seeded once; an admin's change to them stays (make run runs this again). A group
            # this run brought to an existing database (`research`, when the demo's restricted document moved to it)
            # is added to the demo users that have it; no group is taken away.
            for name in spec["groups"]:
                if created or name in self._new_groups:
                    user.groups.add(self._group(name))
            if created or username not in stored:
                if not created and user.has_usable_password():
                    self.stdout.write(f"user {username}: exists, password not managed by loaddemo")
                    continue
                password = secrets.token_urlsafe(12)
                user.set_password(password)
                user.save()
                stored[username] = {"password": password, "hash": user.password}
            if user.password == stored[username].get("hash"):
                groups = ", ".join(spec["groups"])
                self.stdout.write(f"user {username} / password {stored[username]['password']}  (groups: {groups})")
            else:
                self.stdout.write(f"user {username}: password was changed since the demo set it; not shown")
        credentials.write_text(json.dumps(stored, indent=2) + "\n", "utf-8")
        os.chmod(credentials, 0o600)
        if not settings.DEBUG:
            self.stderr.write("warning: demo users were created with DEBUG off; remove them before real use")
