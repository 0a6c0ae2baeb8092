"""Admins: source levels (create, rename, reweight) and document levels, singly or in bulk.

Every change goes through rag_app.services.levels, which records a LevelChange; the page lists them.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from rag_app import selectors
from rag_app.access import admin_required
from rag_app.forms import DocumentLevelForm, LevelCreateForm, LevelUpdateForm
from rag_app.services import levels as level_services
from rag_app.views.http import HtmxHttpRequest

# The change log a page at a time, newest first: one bulk change writes a row per document.
CHANGES_PER_PAGE = 100


def _page_context(request: HtmxHttpRequest, **forms: Any) -> dict[str, Any]:
    """Admins manage the documents they may see: the list, the form's choices and the log alike."""
    query = request.GET.get("q", "").strip()
    docs = selectors.document_list(user=request.user, query=query or None)
    changes = selectors.level_changes_visible_to(request.user)
    # The change log's pager keeps the documents' search and page, as theirs keeps neither of its own.
    kept = {name: value for name, value in (("q", query), ("page", request.GET.get("page", ""))) if value}
    return {
        "levels": selectors.level_list(),
        "create_form": forms.get("create_form") or LevelCreateForm(),
        "level_form": forms.get("level_form") or DocumentLevelForm(user=request.user),
        "documents": Paginator(docs, 50).get_page(request.GET.get("page")),
        "changes": Paginator(changes, CHANGES_PER_PAGE).get_page(request.GET.get("changes_page")),
        "changes_query": urlencode(kept),
        "q": query,
        "page_query": urlencode({"q": query}) if query else "",
        "page_number": request.GET.get("page", ""),
    }


@admin_required
def levels_page(request: HtmxHttpRequest) -> HttpResponse:
    return render(request, "rag_app/levels.html", _page_context(request))


@admin_required
@require_POST
def level_create(request: HtmxHttpRequest) -> HttpResponse:
    form = LevelCreateForm(request.POST)
    if not form.is_valid():
        return render(request, "rag_app/levels.html", _page_context(request, create_form=form), status=400)
    level_services.level_create(user=request.user, **form.cleaned_data)
    messages.success(request, _("Level created."))
    return redirect("levels")


@admin_required
@require_POST
def level_update(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    level = get_object_or_404(selectors.level_list(), pk=pk)
    form = LevelUpdateForm(request.POST)
    if not form.is_valid():
        # Each refused field by its label and why ("Weight: Ensure this value is less than or equal to 1000000."),
        # and the row as it was typed, with its errors beside the inputs (not a redirect that would drop both).
        for name, errors in form.errors.items():
            field = form.fields.get(name)
            for error in errors:
                messages.error(request, f"{field.label}: {error}" if field is not None else str(error))
        context = _page_context(request) | {"edit_pk": level.pk, "edit_form": form}
        return render(request, "rag_app/levels.html", context, status=400)
    changes = level_services.level_update(user=request.user, level=level, **form.cleaned_data)
    messages.success(request, _("Level saved.") if changes else _("Nothing changed."))
    return redirect("levels")


@admin_required
@require_POST
def document_levels(request: HtmxHttpRequest) -> HttpResponse:
    """One document (a single id) or many (the bulk checkboxes): the same form and service.

    A change to several documents, or one that takes a level away, first shows what will change
    (each document, from and to) and asks to confirm; the list's search and page are kept throughout.
    """
    form = DocumentLevelForm(request.POST, user=request.user)
    if not form.is_valid():
        return render(request, "rag_app/levels.html", _page_context(request, level_form=form), status=400)
    documents, level = list(form.cleaned_data["documents"]), form.cleaned_data["level"]
    back = {key: request.POST.get(key, "") for key in ("q", "page") if request.POST.get(key)}
    if (len(documents) > 1 or level is None) and request.POST.get("confirm") != "yes":
        changes = [(d, d.level) for d in documents if d.level_id != (level.pk if level else None)]
        context = {"changes": changes, "unchanged": len(documents) - len(changes), "level": level}
        context |= {"form": form, "back": back, "back_query": urlencode(back)}
        return render(request, "rag_app/levels_confirm.html", context)
    changed = level_services.documents_set_level(user=request.user, documents=documents, level=level)
    messages.success(request, ngettext("%(n)d document changed.", "%(n)d documents changed.", changed) % {"n": changed})
    return redirect(reverse("levels") + (f"?{urlencode(back)}" if back else ""))
