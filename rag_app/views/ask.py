"""Staff: ask a question, see the answer with its footnotes, look back at their own questions."""

from __future__ import annotations

import logging
from math import ceil
from typing import Any
from urllib.parse import urlencode

from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods
from django_htmx.http import push_url

from rag_app import selectors
from rag_app.access import resumed_question, staff_required
from rag_app.database import DatabaseUnavailable
from rag_app.forms import AskForm
from rag_app.models import Answer
from rag_app.pipeline.records import Scope
from rag_app.presentation import AnswerPresentation, present_answer
from rag_app.services.scope import MAX_SCOPE_ITEMS, scope_clean, scope_remember, scope_remembered
from rag_app.throttling import ask_wait
from rag_app.validation import (
    MAX_QUESTION_CHARS,
    InvalidInput,
    canonical_source_id,
    parent_unavailable,
    source_id_problem,
)
from rag_app.views.http import HtmxHttpRequest, answer_or_404, wants_partial

log = logging.getLogger(__name__)

HISTORY_SIDEBAR = 15


def _history(user: Any) -> list[Answer]:
    return list(selectors.answer_history(user=user).only("id", "question", "state", "created_at")[:HISTORY_SIDEBAR])


# How many documents the scope picker's search shows at once.
PICKER_RESULTS = 20


def _ask_form(
    request: HtmxHttpRequest, *, focus: bool = True, scope: Scope | None = None, bound: bool = True, **initial: Any
) -> AskForm:
    """The ask form, bound on POST (`bound=False`: a post of another form, whose page shows an answer); on GET it
    offers `scope`, by default the user's last scope, again. `focus=False` where the page is an answer's: the reader
    came to read it, and the box's autofocus would start a screen reader in the form above it."""
    if request.method == "POST" and bound:
        form = AskForm(request.POST, user=request.user)
    else:
        scope = scope_remembered(user=request.user) if scope is None else scope
        form = AskForm(initial=initial, user=request.user, scope=scope)
    if not focus:
        form.fields["question"].widget.attrs.pop("autofocus", None)  # this form's own copy of the widget
    return form


def _parent(request: HtmxHttpRequest) -> Answer | None:
    try:
        pk = int(request.GET.get("parent", ""))
    except ValueError:
        return None
    return selectors.thread_parent(user=request.user, answer_id=pk)


@staff_required
@require_http_methods(["GET", "POST"])
def ask(request: HtmxHttpRequest) -> HttpResponse:
    if request.method == "GET" and "doc_q" in request.GET:
        return _document_picker(request)
    parent = _parent(request) if request.method == "GET" else None
    # ?q= (or the session, for a long one) pre-fills the form: a question interrupted by an expired session comes back
    # after login (access.resume_url).
    form = _ask_form(
        request, question=resumed_question(request)[: MAX_QUESTION_CHARS * 2], parent=parent.pk if parent else None
    )
    context: dict[str, object] = {"form": form, "parent": parent}
    if request.method == "GET" and request.GET.get("parent") and parent is None:
        # "Ask a follow-up" to an answer not theirs to read (or deleted since): said, or the question typed next would
        # be asked as a new one while its asker thinks it continues the thread.
        context["parent_unavailable"] = parent_unavailable()
    status = 200
    # The same per-user bucket as the API's ask (rag_app.throttling): the form is no way around it.
    wait = ask_wait(request) if request.method == "POST" and form.is_valid() else None
    if wait is not None:
        form.add_error(
            "question", _("Too many questions in a short time; try again in %(s)d seconds.") % {"s": ceil(wait)}
        )
        status = 429
    elif request.method == "POST" and form.is_valid():
        from rag_app import services  # the citation pipeline; imported late to keep views importable alone

        data = form.cleaned_data
        try:
            answer = services.ask(
                user=request.user, question=data["question"], scope=data["scope"], parent=data["parent_answer"]
            )
            scope_remember(user=request.user, scope=data["scope"])
        except services.InvalidQuestion as exc:
            form.add_error("question", str(exc))
        except DatabaseUnavailable:
            # Said where the answer would be (as a swap too); were the page itself to fail, the middleware's 503 page.
            context["failed"] = "database"
            status = 503
        except Exception:
            # services.ask stores its own failures as error answers; this is the unexpected rest.
            log.exception("ask failed")
            context["failed"] = True
        else:
            if not wants_partial(request):
                return redirect(answer)
            context["view"] = present_answer(answer, viewer=request.user)
            context["history"] = _history(request.user)
            html = _answer_swap(request, context)
            html += render_to_string("rag_app/ask.html#_history_oob", context, request=request)
            # The box above as the answer's own page has it (answer_detail): no longer a follow-up to the question
            # before; "Ask a follow-up" under the answer continues its thread.
            html += render_to_string(
                "rag_app/ask.html#_follow_up_oob", {"form": AskForm(user=request.user), "parent": None}, request=request
            )
            return push_url(HttpResponse(html), answer.get_absolute_url())
    if wants_partial(request) and request.method == "POST":
        return HttpResponse(_answer_swap(request, context))  # 200: htmx swaps only successes
    context["history"] = _history(request.user)
    if request.method == "GET":  # the empty ask page orients: what is indexed, what one might ask
        context["overview"] = selectors.corpus_overview(user=request.user)
        context["examples"] = selectors.example_questions(user=request.user)
    if status == 200 and form.is_bound and not form.is_valid():
        status = 400
    return render(request, "rag_app/ask.html", context, status=status)


@staff_required
def answer_detail(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The asker's own answer (reviewers may open anyone's); everyone else gets 404."""
    return answer_page(request, answer_or_404(request, pk))


def answer_page(
    request: HtmxHttpRequest,
    answer: Answer,
    *,
    extra: dict[str, Any] | None = None,
    view: AnswerPresentation | None = None,
    status: int = 200,
) -> HttpResponse:
    """The page of an answer the reader may see (answer_detail's; a refused feedback form's too, `extra` or `view`'s
    cards keeping what was typed)."""
    context = {
        "form": _ask_form(request, focus=False, bound=False, question=answer.question),
        "view": view if view is not None else present_answer(answer, viewer=request.user),
        "history": _history(request.user),
        **(extra or {}),
    }
    if wants_partial(request):
        return HttpResponse(_answer_swap(request, context), status=status)
    return render(request, "rag_app/ask.html", context, status=status)


def _answer_swap(request: HtmxHttpRequest, context: dict[str, Any]) -> str:
    """What an htmx ask swaps into the page: the answer (or the form's errors), the page's title (htmx sets
    document.title from a <title> at the top level of the response) and its h1 out of band, so that the tab, the
    history entry and the headings are those of the page the pushed URL gives; after a POST, the scope's summary
    too (narrowed or not, as the boxes the question was asked with say)."""
    html = render_to_string("rag_app/ask.html#_swap", context, request=request)
    if request.method == "POST":
        html += render_to_string("rag_app/ask.html#_scope_summary_oob", context, request=request)
    return html


def _document_picker(request: HtmxHttpRequest) -> HttpResponse:
    """The scope's document search: readable documents whose id or title holds `doc_q` (htmx: the list
    alone; without JS: the ask page with the results under the scope)."""
    if "csrfmiddlewaretoken" in request.GET:
        # The no-JS search sends the whole ask form, its CSRF token too: the page it gives has an address without it
        # (the token would stay in the browser's history, a bookmark, a proxy's log).
        sent = request.GET.copy()
        del sent["csrfmiddlewaretoken"]
        return redirect(f"{request.path}?{sent.urlencode()}")
    query = request.GET.get("doc_q", "").strip()[:200]
    found = (
        list(selectors.document_list(user=request.user, query=query or None, active_only=True)[: PICKER_RESULTS + 1])
        if query
        else []
    )
    more = len(found) > PICKER_RESULTS  # the list shows the first PICKER_RESULTS and says there are more
    found = found[:PICKER_RESULTS]
    # Without JavaScript the search is the ask form itself sent by its Search button (GET): the page it gives keeps what
    # that form held, the question typed, the answer it follows up and the boxes ticked, as the live search leaves them.
    form = None
    parent = None
    if not wants_partial(request):
        parent = _parent(request)
        form = _ask_form(
            request,
            scope=_scope_sent(request) if "question" in request.GET else None,
            question=request.GET.get("question", "")[: MAX_QUESTION_CHARS * 2],
            parent=parent.pk if parent else None,
        )
    # What the reader ticked in the searches before stays ticked (a new search replaces the list): the ids sent
    # with it, read as any other (readable, still answering), less those the form's own scope boxes show.
    shown = {sid for sid, _title in form.fields["scope_documents"].choices} if form else set()  # type: ignore[attr-defined]
    ticked = [
        canonical_source_id(sid)
        for sid in request.GET.getlist("scope_documents")[:MAX_SCOPE_ITEMS]
        if source_id_problem(sid) is None and sid not in shown
    ]
    kept = (
        list(selectors.document_list(user=request.user, active_only=True).filter(source_id__in=ticked))
        if ticked
        else []
    )
    kept_ids = {d.source_id for d in kept}
    context: dict[str, object] = {
        "kept": kept,
        "picked": [d for d in found if d.source_id not in kept_ids],
        "found": len(found),
        "more": more,
        "doc_q": query,
    }
    if form is None:
        return render(request, "rag_app/ask.html#_doc_choices", context)
    context |= {"form": form, "parent": parent, "history": _history(request.user)}
    return render(request, "rag_app/ask.html", context)


def _scope_sent(request: HtmxHttpRequest) -> Scope:
    """The scope the ask form's boxes held when it was sent by GET (its no-JS document search): the levels and groups
    ticked, and the documents ticked (offered again only where readable, as any)."""
    data = {
        "levels": request.GET.getlist("scope_levels")[:MAX_SCOPE_ITEMS],
        "groups": request.GET.getlist("scope_groups")[:MAX_SCOPE_ITEMS],
        "documents": request.GET.getlist("scope_documents")[:MAX_SCOPE_ITEMS],
    }
    try:
        return scope_clean(user=request.user, data=data)
    except InvalidInput:  # a box no longer valid (a level deleted since): the boxes as they were, less the documents
        return Scope(levels=tuple(data["levels"]), groups=tuple(data["groups"]))


@staff_required
def history(request: HtmxHttpRequest) -> HttpResponse:
    """ "My questions": the user's own, newest first, searchable by their words (`q`; the pager keeps it); a
    follow-up names the question it continues, where the user may see it (selectors.thread_parents)."""
    q = request.GET.get("q", "").strip()[:MAX_QUESTION_CHARS]
    page = Paginator(selectors.answer_history(user=request.user, query=q or None), 25).get_page(request.GET.get("page"))
    page.object_list = list(page.object_list)
    parents = selectors.thread_parents(user=request.user, answers=page.object_list)
    rows = [(answer, parents.get(answer.pk)) for answer in page.object_list]
    context = {"page": page, "rows": rows, "q": q, "query": urlencode({"q": q}) if q else "", "target": "#history-list"}
    template = "rag_app/history.html#_list" if wants_partial(request) else "rag_app/history.html"
    return render(request, template, context)
