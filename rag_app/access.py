"""THE visibility rule: who holds which role, and who may read which document.

Roles are three groups, each including the ones before it: staff (ask, see their own answers),
reviewer (every answer's provenance), admin (source levels, uploads). A superuser holds every role.

Documents: one with no access groups is open to every staff user; one with groups is readable by
members of at least one of them; superusers read everything. Everyone else (anonymous, inactive,
a logged-in account with no role) reads nothing. `user=None` is the system (management commands
without --user, evaluation): it reads the open documents only, like a staff user in no group.

The rule is decided once, by `reach()`, and projected into the two forms the app needs: an ORM
filter (`visible_documents`) for every page, API view and selector, and a SQL condition
(`sql_condition`) that search puts inside its index query, before top-k. Both forms are built from
the same `Reach` with the same shape (NOT EXISTS an access group OR EXISTS one of the viewer's), and
tests/test_access_matrix.py checks that they agree for every kind of user and document.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import wraps
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.models import Group
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import resolve_url
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext, gettext_noop

from rag_app.models import Document, IngestJob
from rag_app.validation import MAX_QUESTION_CHARS

STAFF = "staff"
REVIEWER = "reviewer"
ADMIN = "admin"

ROLES = (STAFF, REVIEWER, ADMIN)  # the role groups' names, which the rule reads

_ROLE_GROUPS = {
    STAFF: (STAFF, REVIEWER, ADMIN),
    REVIEWER: (REVIEWER, ADMIN),
    ADMIN: (ADMIN,),
}

# A SQL condition that is never true / always true.
DENY_ALL = "1 = 0"
ALLOW_ALL = "1 = 1"


def _active(user: Any) -> bool:
    return bool(getattr(user, "is_authenticated", False) and getattr(user, "is_active", False))


def _group_names(user: Any) -> set[str]:
    cache = getattr(user, "_rag_group_names", None)
    if cache is None:
        cache = set(user.groups.values_list("name", flat=True))
        user._rag_group_names = cache
    return cache


def author(user: Any) -> dict[str, Any]:
    """Who a recorded change or a queued job is by, as the rows keep it: `user`, the account (None for an anonymous
    or system one: the command line, ingestion), and `username`, its name, which outlives the account ("")."""
    actor = user if user is not None and getattr(user, "is_authenticated", False) else None
    return {"user": actor, "username": actor.get_username() if actor is not None else ""}


def has_role(user: Any, role: str) -> bool:
    """True when the user holds `role` or a role above it; active superusers hold every role."""
    if not _active(user):
        return False
    if getattr(user, "is_superuser", False):
        return True
    return bool(_group_names(user) & set(_ROLE_GROUPS[role]))


def is_staff_member(user: Any) -> bool:
    return has_role(user, STAFF)


def is_reviewer(user: Any) -> bool:
    return has_role(user, REVIEWER)


def is_admin(user: Any) -> bool:
    return has_role(user, ADMIN)


@dataclass(frozen=True)
class Reach:
    """What one viewer may read: every document, none, or the open ones plus those of `group_ids`."""

    everything: bool = False
    nothing: bool = False
    group_ids: frozenset[int] = frozenset()


def reach(user: Any) -> Reach:
    """The one decision; both forms below are projections of it."""
    if user is None:
        return Reach()  # the system: open documents only
    if not _active(user):
        return Reach(nothing=True)
    if getattr(user, "is_superuser", False):
        return Reach(everything=True)
    if not is_staff_member(user):
        return Reach(nothing=True)
    cache = getattr(user, "_rag_group_ids", None)
    if cache is None:
        cache = frozenset(user.groups.values_list("pk", flat=True))
        user._rag_group_ids = cache
    return Reach(group_ids=cache)


def _access_groups() -> Any:
    return Document.groups.through.objects


def access_groups() -> QuerySet[Group]:
    """The groups a document may be restricted to: every group but the role groups. What a page offers where a
    document's access groups are chosen; `check_access_groups` refuses the others on every path."""
    return Group.objects.exclude(name__in=ROLES).order_by("name")


class NotAccessGroups(ValueError):
    """Names that cannot be a document's access groups; the message (in the reader's language) says why, `code` is
    `role_group` or `unknown_group`. `template` (marked with gettext_noop) and `params` are its sentence and values
    apart, as a ParseError keeps them: a job refused by a worker stores them, and the page says it in its reader's
    language (services.ingest_jobs.JobFailure)."""

    def __init__(self, template: str, code: str, **params: str) -> None:
        super().__init__(gettext(template) % params)
        self.code = code
        self.template = template
        self.params = params


def check_access_groups(names: Iterable[str]) -> list[str]:
    """The names (each once, in order) if every one is an access group, else NotAccessGroups: the one rule of the
    upload page, the API's upload and PATCH and the CLI (through ingest.service.check_request and the API's
    GroupField) and the Django admin.

    A role group (ROLES) gives its members a role; as an access group it would restrict a document in a way no one
    means (`admin`: hidden from every staff member who is not an admin; `staff`: a restriction that restricts
    nothing), so it is refused. A name no group has is refused too: it would make a new, empty group and close the
    document to every staff user (an administrator creates groups first)."""
    names = list(dict.fromkeys(names))
    if roles := [name for name in names if name in ROLES]:
        message = gettext_noop(
            "%(names)s: a role group gives its members a role, not access to documents, so it cannot be a document's"
            " access group. Choose access groups, or none for all staff."
        )
        raise NotAccessGroups(message, "role_group", names=", ".join(repr(n) for n in roles))
    known = set(Group.objects.filter(name__in=names).values_list("name", flat=True))
    if unknown := [name for name in names if name not in known]:
        message = gettext_noop("no access group named %(names)s (an administrator creates groups first)")
        raise NotAccessGroups(message, "unknown_group", names=", ".join(repr(n) for n in unknown))
    return names


def document_q(user: Any) -> Q:
    """The ORM form: a filter over Document (no join, so no duplicate rows)."""
    r = reach(user)
    if r.everything:
        return Q()
    if r.nothing:
        return Q(pk__in=[])
    rule = Q(~Exists(_access_groups().filter(document_id=OuterRef("pk"))))
    if r.group_ids:
        rule |= Q(Exists(_access_groups().filter(document_id=OuterRef("pk"), group_id__in=sorted(r.group_ids))))
    return rule


def sql_condition(user: Any, *, document_alias: str = "d") -> tuple[str, list[Any]]:
    """The SQL form for search: (boolean over the documents table aliased `document_alias`, params)."""
    r = reach(user)
    if r.everything:
        return ALLOW_ALL, []
    if r.nothing:
        return DENY_ALL, []
    table = Document.groups.through._meta.db_table
    rule = f"NOT EXISTS (SELECT 1 FROM {table} ag WHERE ag.document_id = {document_alias}.id)"  # noqa: S608
    if not r.group_ids:
        return rule, []
    ids = sorted(r.group_ids)
    placeholders = ", ".join(["%s"] * len(ids))
    member = (
        f"EXISTS (SELECT 1 FROM {table} ag2 WHERE ag2.document_id = {document_alias}.id"  # noqa: S608
        f" AND ag2.group_id IN ({placeholders}))"
    )
    return f"({rule} OR {member})", list(ids)


def visible_documents(user: Any) -> QuerySet[Document]:
    """Documents the user may read."""
    return Document.objects.filter(document_q(user))


def visible_document_ids(user: Any, *, among: Iterable[int] | None = None) -> set[int]:
    """Ids of the documents the user may read; with `among`, only those of that set.

    Pass `among` on hot paths (an answer's cited documents): the full set grows with the corpus.
    """
    documents = visible_documents(user)
    if among is not None:
        documents = documents.filter(pk__in=list(among))
    return set(documents.values_list("pk", flat=True))


def group_names(user: Any) -> set[str] | None:
    """Names of the user's groups; None for those who read everything (superusers)."""
    r = reach(user)
    if r.everything:
        return None
    if r.nothing or not r.group_ids:
        return set()
    return _group_names(user)


def visible_source_ids(user: Any, *, among: Iterable[str], existing_at: Any = None) -> set[str]:
    """The source_ids of `among` that name documents the user may read.

    An unknown id (a document since deleted) is readable only by those who read everything. With
    `existing_at` (when an answer was made), an id counts only for a document that existed then: a
    deleted document's id reused later names another document, not the one an old trace quotes.
    """
    wanted = [s for s in set(among) if isinstance(s, str)]
    if not wanted or reach(user).everything:
        return set(wanted)
    documents = visible_documents(user).filter(source_id__in=wanted)
    if existing_at is not None:
        documents = documents.filter(created_at__lte=existing_at)
    return set(documents.values_list("source_id", flat=True))


def ingest_job_q(user: Any) -> Q:
    """Which ingest jobs a user may follow (a filter over IngestJob): their own, and as an admin the
    jobs of documents they may read; superusers every job. A job names a file's name and its failure,
    so another admin's job for a document that does not exist (yet) or is hidden stays theirs alone.

    A job is of a readable document when the version it made is of one, or, when it made none (a failed
    upload, a re-embedding), when a readable document of its source_id existed as it was queued: a deleted
    hidden document's jobs must not come back when its source_id is reused. A corpus-wide re-index is of
    no one document (its source_id only says what prompted it; its counts are the whole index's)."""
    r = reach(user)
    if r.everything:
        return Q()
    if r.nothing or user is None:
        return Q(pk__in=[])
    own = Q(user=user)
    if not is_admin(user):
        return own
    readable = visible_documents(user)
    existed = readable.filter(source_id=OuterRef("source_id"), created_at__lte=OuterRef("created_at"))
    of_readable = Q(version__document__in=readable.values("pk")) | (Q(version__isnull=True) & Q(Exists(existed)))
    return own | (of_readable & ~Q(kind=IngestJob.Kind.REINDEX))


def question_sent(request: HttpRequest) -> str:
    """The question an ask form's post carries, as typed ("" for any other request, or a blank one)."""
    if request.method != "POST" or request.path != reverse("ask"):
        return ""
    question: str = request.POST.get("question", "")
    return question if question.strip() else ""


# The longest query a question comes back through after a login (`resume_url`); a longer one waits in the session.
RESUME_URL_CHARS = 1000
RESUME_SESSION_KEY = "rag_resume_question"
# As much of such a question as the session keeps: what the ask box takes back (views.ask, twice the question limit),
# so that a post of any size from anyone stores no more than this.
RESUME_KEPT_CHARS = MAX_QUESTION_CHARS * 2


def resumed_question(request: HttpRequest) -> str:
    """The question an expired session interrupted, for the ask box: `?q=`, or with `?resume=1` the one the session
    kept (taken out: it comes back once)."""
    if request.GET.get("resume") == "1" and hasattr(request, "session"):
        return str(request.session.pop(RESUME_SESSION_KEY, ""))
    return request.GET.get("q", "")


def resume_url(request: HttpRequest, *, keep: bool = False) -> str:
    """Where a reader whose request could not be served (an expired session, a stale form) goes back to: never a
    form's endpoint, which answers a GET with 405.

    A question being asked comes back in the ask box (a follow-up with its thread: `?parent=`). Otherwise the page
    the request came from (htmx says which, a plain form post's Referer does), or for a plain GET the address itself;
    failing those, the ask page.
    """
    ask = reverse("ask")
    question = question_sent(request)
    if question:
        params = {"q": question}
        if request.POST.get("parent", "").isdigit():
            params["parent"] = request.POST["parent"]
        if len(urlencode(params)) > RESUME_URL_CHARS:
            # Too long for an address (it is encoded once more as the login page's ?next=): a 300-character Chinese
            # question made a 4,560-character redirect, which gunicorn refuses (414). With `keep` (the redirect to log
            # in, a refused CSRF check: a question that was not asked) the session keeps it instead, as much of it as
            # the ask box takes back, through the login (which keeps the session's data), and the ask page takes it
            # back (`resumed_question`). Without (a page's own address, for the language switch) nothing is stored:
            # the ask page, where app.js keeps the question being typed in the tab.
            del params["q"]
            if not keep:
                return f"{ask}?{urlencode(params)}" if params else ask
            request.session[RESUME_SESSION_KEY] = question[:RESUME_KEPT_CHARS]
            params["resume"] = "1"
        return f"{ask}?{urlencode(params)}"
    htmx = request.headers.get("HX-Request") == "true"
    if request.method in ("GET", "HEAD") and not htmx:
        return request.get_full_path()
    page = request.headers.get("HX-Current-URL" if htmx else "Referer", "")
    if page and url_has_allowed_host_and_scheme(page, allowed_hosts={request.get_host()}):
        parts = urlsplit(page)
        # Not a post's own endpoint (a refused verdict's page is rendered there: GET would be 405), but the ask page,
        # which is both, and any page an htmx GET (a picker's search) came from.
        if parts.path != request.path or request.method in ("GET", "HEAD") or parts.path == ask:
            return parts.path + (f"?{parts.query}" if parts.query else "")
    return request.get_full_path() if request.method in ("GET", "HEAD") else ask


def _login_redirect(request: HttpRequest) -> HttpResponse:
    """Send an anonymous visitor (or an expired session) to log in, and back to where they were (`resume_url`).

    An htmx request must not follow a redirect inside the page (the login form would be swapped into
    the answer panel): it gets HX-Redirect, so the whole window goes to the login page.
    """
    back = resume_url(request, keep=True)
    if question_sent(request):
        # The login page says why the reader is there and that the question was not asked (it comes back in the box).
        said = gettext("You were signed out, so your question was not asked. Sign in: it will be back in the box.")
        messages.info(request, said)
    if request.headers.get("HX-Request") != "true":
        return redirect_to_login(back)
    response = HttpResponse(status=204)
    response["HX-Redirect"] = resolve_url(settings.LOGIN_URL) + "?" + urlencode({"next": back})
    return response


def role_required(role: str) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Login first (redirect), then the role (403): anonymous users are sent to log in."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if not request.user.is_authenticated:
                return _login_redirect(request)
            if not has_role(request.user, role):
                raise PermissionDenied
            return view(request, *args, **kwargs)

        wrapper.required_role = role  # type: ignore[attr-defined]  # the 403 page names it
        return wrapper

    return decorator


staff_required = role_required(STAFF)
reviewer_required = role_required(REVIEWER)
admin_required = role_required(ADMIN)
