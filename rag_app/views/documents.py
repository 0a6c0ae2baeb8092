"""The document viewer (one version's text, chunk by chunk, the cited chunk highlighted), uploads,
and the admin's retire / restore / delete buttons (POST only; each goes through the services)."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from rag_app import selectors
from rag_app.access import admin_required, is_admin, staff_required
from rag_app.forms import DocumentUploadForm
from rag_app.ingest.service import DocumentNotFound, IngestError
from rag_app.models import DocumentVersion, IngestJob
from rag_app.presentation import in_force_until, job_outcome, job_result_failure, takes_effect
from rag_app.services import documents as document_services
from rag_app.services.ingest_jobs import BrokerUnavailable, ingest_jobs_recent, ingest_jobs_submit
from rag_app.views.http import HtmxHttpRequest, wants_partial

# A version of a 300-page handbook has thousands of chunks: the viewer shows them a window at a time.
CHUNKS_PER_PAGE = 100
UNFINISHED = (IngestJob.State.QUEUED, IngestJob.State.RUNNING)


def _web_url(url: str) -> str:
    """Only http(s) links are rendered: a stored javascript: or data: URL must never become a link."""
    return url if urlsplit(url).scheme.lower() in {"http", "https"} else ""


@staff_required
def document_list(request: HtmxHttpRequest) -> HttpResponse:
    """The library: the documents the user may read, searchable by source_id or title, by level.

    An htmx filter or page change gets only the results; the pager keeps the filters in its links.
    """
    q = request.GET.get("q", "").strip()
    level = request.GET.get("level", "").strip()
    documents = selectors.document_list(user=request.user, level=level or None, query=q or None)
    page = Paginator(documents, 50).get_page(request.GET.get("page"))
    kept = {name: value for name, value in (("q", q), ("level", level)) if value}
    context = {
        "page": page,
        "q": q,
        "level": level,
        "levels": selectors.level_list(),
        "query": urlencode(kept),
        "target": "#document-results",
    }
    template = "rag_app/documents.html#_results" if wants_partial(request) else "rag_app/documents.html"
    return render(request, template, context)


def _document_or_404(request: HtmxHttpRequest, source_id: str) -> Any:
    """404 for a document outside the user's groups: a restricted document does not exist for them."""
    document = selectors.document_get(user=request.user, source_id=source_id)
    if document is None:
        raise Http404
    return document


@staff_required
def document_latest(request: HtmxHttpRequest, source_id: str) -> HttpResponse:
    current = _document_or_404(request, source_id).current_version()
    if current is None:
        raise Http404
    return redirect(current)


def _chunk_param(request: HtmxHttpRequest, name: str) -> int | None:
    try:
        return int(request.GET.get(name, ""))
    except ValueError:
        return None


def _dated(version: DocumentVersion) -> DocumentVersion:
    """A version for the viewer's list, with when it is in force beside "current" (presentation's rules): the current
    version scheduled for later is marked "from …", the one in force until then "in force"."""
    version.takes_effect = takes_effect(version)  # type: ignore[attr-defined]
    version.in_force_until = in_force_until(version)  # type: ignore[attr-defined]
    return version


@staff_required
def document_version(request: HtmxHttpRequest, source_id: str, version: int) -> HttpResponse:
    doc = _document_or_404(request, source_id)
    shown = selectors.document_versions(document=doc).filter(version=version).first()
    if shown is None:
        raise Http404
    # ?chunk= is a citation's link (the chunk is labelled cited); ?passage= any other link to one chunk (a related
    # passage, a retrieval candidate): highlighted as the passage opened, never called cited. The pager keeps it.
    cited = _chunk_param(request, "chunk")
    opened = None if cited is not None else _chunk_param(request, "passage")
    marked = cited if cited is not None else opened
    kept = {"chunk": cited} if cited is not None else {"passage": opened} if opened is not None else {}
    paginator = Paginator(selectors.version_chunks(version=shown), CHUNKS_PER_PAGE)
    number = request.GET.get("page") or (marked // CHUNKS_PER_PAGE + 1 if marked is not None and marked >= 0 else 1)
    page = paginator.get_page(number)
    manage = is_admin(request.user)
    context = {
        "document": doc,
        "shown": shown,
        "chunks": page.object_list,
        "page": page,
        "cited": cited,
        "opened": opened,
        "kept_query": urlencode(kept),
        "newer": None if shown.is_current else doc.current_version(),
        # Still the version in force while the newer one is scheduled: the banner and the list say so (presentation).
        "shown_in_force_until": in_force_until(shown),
        "versions": [_dated(v) for v in selectors.document_versions(document=doc)],
        "original_url": _web_url(doc.url),
        "manage": manage,
        # What a deletion would take with it, for the admin's delete form.
        "citing_answers": selectors.answers_citing_document(document=doc).count() if manage else 0,
        "retirement": (
            selectors.document_events(document=doc).filter(action="retired").first() if doc.retired_at else None
        ),
    }
    return render(request, "rag_app/document.html", context)


@admin_required
def document_upload(request: HtmxHttpRequest) -> HttpResponse:
    """Admins add documents (or new versions): each file becomes an ingest job a worker runs, and the
    page follows the admin's recent jobs with a progress bar each (htmx polls the list until every job
    has finished; without JavaScript a reload shows the same)."""
    if request.method == "GET" and wants_partial(request):
        return render(request, "rag_app/document_upload.html#_jobs", _jobs_context(request))
    form = DocumentUploadForm(request.POST or None, request.FILES or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        files = [
            {"file_name": upload.name or "", "size": upload.size, "read": upload.read, "source_id": data["source_id"]}
            for upload in data["file"]
        ]
        try:
            jobs = ingest_jobs_submit(
                user=request.user,
                files=files,
                title=data["title"] or None,
                url=data["url"] or None,
                effective_from=data["effective_from"],
                effective_until=data["effective_until"],
                **form.ingest_options(),
            )
        except DocumentNotFound as exc:
            form.add_error("source_id" if data["source_id"] else "file", str(exc))
            status = 404
        except IngestError as exc:
            form.add_error(None, str(exc))
        except BrokerUnavailable:
            form.add_error(
                None,
                _(
                    "The ingest queue is not reachable, so nothing was added. Try again in a moment, or ask an"
                    " operator to check the worker's broker."
                ),
            )
            status = 503
        else:
            # A file refused before queueing (too large, of an unsupported type, empty) is a job failed at once: said
            # as refused, not counted as queued (a user trial saw "1 file is queued" for a file over the limit).
            queued = sum(1 for job in jobs if job.state != IngestJob.State.FAILED)
            refused = len(jobs) - queued
            if queued:
                messages.success(
                    request,
                    ngettext(
                        "%(n)d file is queued; its progress is shown below.",
                        "%(n)d files are queued; their progress is shown below.",
                        queued,
                    )
                    % {"n": queued},
                )
            if refused:
                messages.error(
                    request,
                    ngettext(
                        "%(n)d file was refused; the reason is shown below.",
                        "%(n)d files were refused; the reasons are shown below.",
                        refused,
                    )
                    % {"n": refused},
                )
            return redirect("document_upload")
    if form.errors and status == 200:
        status = 400
    return render(request, "rag_app/document_upload.html", {"form": form, **_jobs_context(request)}, status=status)


def _jobs_context(request: HtmxHttpRequest) -> dict[str, Any]:
    jobs = ingest_jobs_recent(user=request.user)
    for job in jobs:  # a failure in the reader's language, its detail too
        shown = [
            {**result, "failure": job_result_failure(result, kind=job.kind)}
            if result.get("status") == "error"
            else {**result, "outcome": job_outcome(result, kind=job.kind)}
            for result in job.results or []
        ]
        setattr(job, "shown_results", shown)  # noqa: B010 - the template's per-job attribute, not a model field
    return {"jobs": jobs, "polling": any(job.state in UNFINISHED for job in jobs)}


def _back_to(document: Any) -> HttpResponse:
    current = document.current_version()
    return redirect(current) if current is not None else redirect("document_list")


@admin_required
@require_POST
def document_retire(request: HtmxHttpRequest, source_id: str) -> HttpResponse:
    """Retire: the document leaves retrieval at once and stays readable, labelled retired."""
    document = _document_or_404(request, source_id)
    document_services.document_retire(user=request.user, document=document)
    messages.success(
        request,
        _("%(title)s is retired: it is no longer used for new answers.") % {"title": document.display_title},
    )
    return _back_to(document)


@admin_required
@require_POST
def document_restore(request: HtmxHttpRequest, source_id: str) -> HttpResponse:
    """Restore a retired document: it is used for new answers again."""
    document = _document_or_404(request, source_id)
    document_services.document_restore(user=request.user, document=document)
    messages.success(
        request, _("%(title)s is restored: it is used for new answers again.") % {"title": document.display_title}
    )
    return _back_to(document)


@admin_required
@require_POST
def document_delete(request: HtmxHttpRequest, source_id: str) -> HttpResponse:
    """Delete for good, once the confirm box is ticked; refused while answers cite it unless "force" is ticked
    too (then those answers are deleted with it: see services.documents.document_delete)."""
    document = _document_or_404(request, source_id)
    if request.POST.get("confirm") != "1":
        messages.error(request, _("Tick the confirmation box to delete the document."))
        return _back_to(document)
    try:
        result = document_services.document_delete(
            user=request.user, document=document, force=request.POST.get("force") == "1"
        )
    except document_services.DocumentCited as exc:
        n = len(exc.answer_ids)
        messages.error(
            request,
            ngettext(
                "%(n)d answer cites this document, so it was not deleted. Retire it instead, or tick"
                " “Also delete the answers that cite it”.",
                "%(n)d answers cite this document, so it was not deleted. Retire it instead, or tick"
                " “Also delete the answers that cite it”.",
                n,
            )
            % {"n": n},
        )
        return _back_to(document)
    n = len(result.answers_deleted)
    text = _("%(title)s (%(source_id)s) is deleted.") % {"title": document.display_title, "source_id": result.source_id}
    if n:
        text += " " + ngettext("%(n)d answer citing it was deleted.", "%(n)d answers citing it were deleted.", n) % {
            "n": n
        }
    messages.success(request, text)
    return redirect("document_list")
