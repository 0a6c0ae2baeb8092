"""The document viewer: one version's text, chunk by chunk, the cited chunk highlighted."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from rag_app.permissions import staff_required, visible_documents
from rag_app.views.http import HtmxHttpRequest


def _web_url(url: str) -> str:
    """Only http(s) links are rendered: a stored javascript: or data: URL must never become a link."""
    return url if urlsplit(url).scheme.lower() in {"http", "https"} else ""


@staff_required
def document_list(request: HtmxHttpRequest) -> HttpResponse:
    docs = visible_documents(request.user).select_related("level").order_by("source_id")
    page = Paginator(docs, 50).get_page(request.GET.get("page"))
    return render(request, "rag_app/documents.html", {"page": page})


@staff_required
def document_latest(request: HtmxHttpRequest, source_id: str) -> HttpResponse:
    doc = get_object_or_404(visible_documents(request.user), source_id=source_id)
    current = doc.current_version()
    if current is None:
        raise Http404
    return redirect(current)


@staff_required
def document_version(request: HtmxHttpRequest, source_id: str, version: int) -> HttpResponse:
    """404 for a document outside the user's groups: a restricted document does not exist for them."""
    doc = get_object_or_404(visible_documents(request.user).select_related("level"), source_id=source_id)
    shown = get_object_or_404(doc.versions, version=version)
    try:
        cited = int(request.GET.get("chunk", ""))
    except ValueError:
        cited = None
    context = {
        "document": doc,
        "shown": shown,
        "chunks": list(shown.chunks.order_by("index")),
        "cited": cited,
        "newer": None if shown.is_current else doc.current_version(),
        "versions": list(doc.versions.order_by("-version")),
        "original_url": _web_url(doc.url),
    }
    return render(request, "rag_app/document.html", context)
