"""The document viewer: one version's text, chunk by chunk, the cited chunk highlighted."""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from rag_app.forms import DocumentUploadForm
from rag_app.ingest.parsers import FileTooLarge, ParseError
from rag_app.ingest.service import IngestError, document_ingest
from rag_app.permissions import admin_required, staff_required, visible_documents
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


@admin_required
def document_upload(request: HtmxHttpRequest) -> HttpResponse:
    """Admins add a document (or a new version of one) through the same ingest service as the CLI and API."""
    form = DocumentUploadForm(request.POST or None, request.FILES or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        upload = data["file"]
        max_bytes = settings.RAG["MAX_UPLOAD_BYTES"]
        try:
            if upload.size > max_bytes:  # refused before it is read into memory
                raise FileTooLarge(
                    _("The file is %(size)s bytes; the limit is %(limit)s bytes.")
                    % {"size": upload.size, "limit": max_bytes}
                )
            result = document_ingest(
                data=upload.read(),
                file_name=upload.name or "",
                source_id=data["source_id"] or upload.name or "",
                title=data["title"] or None,
                url=data["url"] or None,
                level=data["level"].slug if data["level"] else None,
                groups=[group.name for group in data["groups"]] or None,
                effective_from=data["effective_from"],
                effective_until=data["effective_until"],
            )
        except (ParseError, IngestError) as exc:
            form.add_error("file", str(exc))
        else:
            messages.success(request, result.line())
            return redirect("document_version", result.source_id, result.version)
    return render(request, "rag_app/document_upload.html", {"form": form}, status=400 if form.errors else 200)
