"""`manage.py ask "QUESTION" [--json] [--mode extractive|llm] [--user NAME] [--parent ID]`.

Asks through the same service as the UI and API, so the answer is stored with its trace.
Text output: the paragraphs with their markers, then the source list. `--json` prints the
API's answer JSON. Without --user the question is asked as the system (documents open to all).
`--parent ID` asks a follow-up to answer ID, as the page's "Ask a follow-up" and the API's `parent_id` do: an
answer the asker may see (selectors.thread_parent: their own, any for a reviewer; the system's own without --user).
`--user` names an active user in a role (as the pages and the API require): an inactive or role-less one is refused.
Exit status 1 when the question is invalid, the user may not ask, the parent is not one the asker may see, or the
answer is in state `error`.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser

from rag_app import access, selectors, services
from rag_app.database import DatabaseUnavailable
from rag_app.database import message as database_message
from rag_app.management.commands._options import DatabaseCommand
from rag_app.models import Answer
from rag_app.presentation import answer_payload

STATUS_LABELS = {"insufficient": "insufficient evidence", "withheld": "withheld"}


class Command(DatabaseCommand):
    help = "Ask a question; print the answer with its markers and sources (or the answer JSON)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question")
        parser.add_argument("--json", action="store_true", help="print the same JSON the API returns")
        parser.add_argument("--mode", choices=["extractive", "llm"], help="generator (default: RAG_GENERATOR)")
        parser.add_argument("--user", metavar="NAME", help="ask as this user (their document permissions)")
        parser.add_argument(
            "--parent",
            type=int,
            metavar="ID",
            help="ask a follow-up to this answer (one the asker may see: --user's own, or any for a reviewer)",
        )

    def handle(self, *args: Any, **opts: Any) -> None:
        user = None
        if opts["user"] is not None:  # "--user ''" names no one; it is not the system
            try:
                user = get_user_model().objects.get(username=opts["user"])
            except get_user_model().DoesNotExist:
                raise CommandError(f"no user named {opts['user']!r}") from None
            _check_may_ask(user)
        parent = _parent(opts["parent"], user) if opts["parent"] is not None else None
        try:
            answer = services.ask(user=user, question=opts["question"], mode=opts["mode"], parent=parent)
        except services.InvalidQuestion as exc:
            raise CommandError(f"{exc} ({exc.code})") from None
        except DatabaseUnavailable as exc:  # logged once by the service, with the question's redacted summary
            raise CommandError(f"{database_message()} ({exc.code}: {exc})") from None
        payload = answer_payload(answer, viewer=user)
        if opts["json"]:
            self.stdout.write(json.dumps(payload, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(render_text(payload, message=answer.message, parent=parent))
        if answer.state == "error":
            raise CommandError(f"answer {answer.pk} is in state error: {answer.reason}")


def _check_may_ask(user: Any) -> None:
    """Refuse, as the pages (log in / 403) and the API (401 / 403) do, a user who may not ask: a deactivated account
    or one in no role group (access.has_role, the one rule). Answered, such a question read nothing and said "there
    are no documents to search yet", stored under their name."""
    if access.is_staff_member(user):
        return
    name = user.get_username()
    if not user.is_active:
        raise CommandError(f"user {name!r} is inactive and may not ask")
    raise CommandError(f"user {name!r} holds no role; asking needs the {access.STAFF} role")


def _parent(answer_id: int, user: Any) -> Answer:
    """The answer a follow-up continues, if the asker may see it (selectors.thread_parent, the page's and the API's
    rule; the system, no --user, continues the answers it asked itself)."""
    parent = selectors.thread_parent(user=user, answer_id=answer_id)
    if parent is None:
        asker = "the system" if user is None else user.get_username()
        raise CommandError(f"no answer {answer_id} that {asker} may see")
    return parent


def _newer(entry: dict[str, Any]) -> str:
    """What follows the version of a cited or related passage of a superseded version: " (a newer version exists:
    v3)", as the page says it."""
    if entry.get("is_current", True):
        return ""
    current = entry.get("current_version")
    if until := entry.get("in_force_until"):  # still the version in force: the newer one is scheduled
        newer = f"v{current}" if current else "a newer version"
        return f" (in force until {until}, when {newer} takes effect)"
    return f" (a newer version exists: v{current})" if current else " (a newer version exists)"


def render_text(payload: dict[str, Any], *, message: str = "", parent: Answer | None = None) -> str:
    lines = [f"answer {payload['id']} · {payload['state']} · {payload['mode']}"]
    if parent is not None:  # the earlier question it builds on, as the page's "Follow-up to" says
        lines.append(f"follow-up to answer {parent.pk}: {parent.question}")
    if payload["reason"]:
        lines.append(f"reason: {payload['reason']}")
    if message:
        lines.append(message)
    if payload["conflict"]:
        lines.append("! The sources disagree; each statement is given with its own source. Flagged for review.")
    for para in payload["paragraphs"]:
        markers = "".join(f"[{n}]" for n in para["display_numbers"])
        flags = []
        if para.get("added_by_conflict_check"):
            flags.append("another source disagrees: quoted from it, not written by the model")
        if para["evidence_status"] != "linked":
            flags.append(STATUS_LABELS.get(para["evidence_status"], para["evidence_status"]))
        else:
            if para.get("weak"):
                flags.append("weak support")
            if para["support"] is not None:
                flags.append(f"support {para['support']:.2f}")
        lines.append("")
        lines.append(f"{para['text']} {markers}".rstrip() + (f"  ({', '.join(flags)})" if flags else ""))
    if payload["related"]:
        lines.append("")
        lines.append("Related, not enough to answer (not cited):")
        for rel in payload["related"]:
            lines.append(f"- {rel['title']} · v{rel['version']}{_newer(rel)} · {rel['source_id']}: {rel['excerpt']}")
            if rel.get("lacks"):
                lines.append(f"  does not mention: {', '.join(rel['lacks'])}")
        if payload.get("unmatched_words"):
            lines.append(f"None of the related passages mentions {', '.join(payload['unmatched_words'])}.")
    if payload["sources"]:
        lines.append("")
        lines.append("Sources:")
    for src in payload["sources"]:
        level = src["source_level"] or "no level"
        score = f"{src['score']:.2f}" if src["score"] is not None else "-"
        lines.append(
            f"[{src['display_number']}] {src['display_title']} · v{src['version']}{_newer(src)}"
            f" · {src['locator'] or 'no location provided'}"
            f" · level {level} · relevance {score} · {src['id']} {src['chunk_id']}"
        )
    return "\n".join(lines)
