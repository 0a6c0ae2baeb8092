"""Reviewers: every answer, filterable; one answer's provenance; a replay against today's index."""

from __future__ import annotations

import logging
from typing import Any

from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from rag_app import selectors
from rag_app.access import reviewer_required
from rag_app.forms import ReviewFilterForm, ReviewForm
from rag_app.models import Answer, Citation, SourceLevel
from rag_app.pipeline.records import ChunkRecord
from rag_app.presentation import (
    AnswerPresentation,
    decision_detail,
    passage_url,
    present_answer,
    rejection_label,
    trace_for,
)
from rag_app.search import explain
from rag_app.services.answers import answer_replay
from rag_app.views.http import HtmxHttpRequest, answer_or_404, wants_partial

log = logging.getLogger(__name__)

# Rows shown before the rest of a long candidate list folds into a <details> element.
ROWS_SHOWN = 12


def _filtered(form: ReviewFilterForm, user: Any) -> QuerySet[Answer]:
    """The same filter rules as the API's answers list: one selector serves both."""
    if not form.is_bound:  # no filter asked for: every answer
        return selectors.answer_list(user=user)
    if not form.is_valid():
        # Not the unfiltered list: a reviewer who asked for one state and one day would read every answer as
        # that. The errors are shown where the results go (the htmx request swaps only those), with a 400.
        return selectors.answer_list(user=user).none()
    data = form.cleaned_data
    return selectors.answer_list(
        user=user,
        state=data["state"] or None,
        status=data["flag"] or None,
        username=data["user"] or None,
        source_id=data["document"] or None,
        date_from=data["date_from"],
        date_to=data["date_to"],
    )


@reviewer_required
def answer_list(request: HtmxHttpRequest) -> HttpResponse:
    form = ReviewFilterForm(request.GET or None)
    page = Paginator(_filtered(form, request.user), 25).get_page(request.GET.get("page"))
    page.object_list = list(page.object_list)
    selectors.mark_shown_flags(page.object_list, user=request.user)
    query = request.GET.copy()
    query.pop("page", None)
    context = {"form": form, "page": page, "query": query.urlencode()}
    template = "rag_app/review_list.html#_results" if wants_partial(request) else "rag_app/review_list.html"
    return render(request, template, context, status=400 if form.is_bound and form.errors else 200)


def _candidate_rows(candidates: list[dict[str, Any]], user: Any) -> list[dict[str, Any]]:
    """The trace's candidates (already withheld by the presenter where hidden) as table rows."""
    chunk_ids = [str(c.get("chunk_id")) for c in candidates]
    chunks = {
        c.chunk_id: c
        for c in selectors.chunks_visible_to(user).filter(chunk_id__in=chunk_ids).select_related("version__document")
    }
    rows: list[dict[str, Any]] = []
    today = {level.slug: level for level in selectors.level_list()}
    for cand in candidates:
        chunk = chunks.get(str(cand.get("chunk_id")))
        raw_scores = cand.get("scores")
        scores: dict[str, Any] = raw_scores if isinstance(raw_scores, dict) else {}
        rows.append(
            {
                "chunk_id": cand.get("chunk_id", ""),
                "source_id": cand.get("source_id") or "",
                "version": cand.get("version"),
                **_level_then(cand, today),
                "relevance": cand.get("relevance", scores.get("relevance", cand.get("score"))),
                "bar": cand.get("bar") if isinstance(cand.get("bar"), (int, float)) else None,
                "lexical": cand.get("lexical_score", scores.get("lexical")),
                "dense": cand.get("dense_score", scores.get("dense")),
                "standout": cand.get("standout"),
                "kept": bool(cand.get("kept")),
                "reason": cand.get("reason") or "",
                "reason_label": rejection_label(cand.get("reason")),
                "detail": decision_detail(cand),
                "marker": cand.get("marker") or "",
                **_words(cand),
                "superseded": chunk is not None and not chunk.version.is_current,
                "url": passage_url(chunk.version.document.source_id, chunk.version.version, chunk.index)
                if chunk
                else "",
            }
        )
    return rows


def _level_then(candidate: dict[str, Any], today: dict[str, SourceLevel]) -> dict[str, Any]:
    """The level a candidate was ranked with, as the trace stored it (slug, label, weight), and what an admin has
    changed of it since (`level_now`: its label and weight today, or None when it is unchanged; `level_gone`: no
    level has its slug any more, renamed or deleted). A trace row written before traces kept the label is shown
    with today's label."""
    slug = str(candidate.get("level") or "")
    weight = candidate.get("level_weight")
    weight = float(weight) if isinstance(weight, (int, float)) and slug else None
    level = today.get(slug)
    stored = candidate.get("level_label")
    label = str(stored) if isinstance(stored, str) and stored else (level.label if level else slug)
    changed = level is not None and (level.label != label or (weight is not None and level.weight != weight))
    return {
        "level": slug,
        "level_label": label,
        "level_weight": None if weight is None else f"{weight:g}",
        "level_now": {"label": level.label, "weight": f"{level.weight:g}"} if changed and level else None,
        "level_gone": bool(slug) and level is None,
    }


_HOW_LABELS = {
    explain.SYNONYM: _("synonym"),
    explain.NAME: _("name in pinyin"),
    explain.DATELINE: _("dateline"),
    explain.TRANSLATION: _("translation"),
}


def _words(candidate: dict[str, Any]) -> dict[str, Any]:
    """Which question words the candidate holds and how, and which it lacks (search/explain.py), as the
    trace stored them; `words_known` is false for a trace written before they were kept."""
    raw_held, raw_missing = candidate.get("held"), candidate.get("missing")
    held = [
        {"word": str(h.get("word", "")), "as": str(h.get("as") or ""), "how": _HOW_LABELS.get(str(h.get("how")), "")}
        for h in (raw_held if isinstance(raw_held, list) else [])
        if isinstance(h, dict)
    ]
    missing = [str(m) for m in raw_missing] if isinstance(raw_missing, list) else []
    return {"held": held, "missing": missing, "words_known": isinstance(raw_held, list)}


def _replay_rows(answer: Answer, user: Any) -> dict[str, Any]:
    """What the same stages give now, beside what they gave then (both as this reviewer may see them)."""
    trace = trace_for(answer, viewer=user)
    then = {
        str(c.get("chunk_id")): "kept" if c.get("kept") else str(c.get("reason") or "rejected")
        for c in (trace["candidates"] if trace else [])
    }
    rows, threshold = answer_replay(answer=answer, user=user, then=then)
    current = set(
        selectors.chunks_visible_to(user)
        .filter(chunk_id__in=[r.record.chunk_id for r in rows], version__is_current=True)
        .values_list("chunk_id", flat=True)
    )
    labels = selectors.level_labels()
    table = [
        {
            "record": row.record,
            "level_label": labels.get(row.record.level or "", row.record.level or ""),
            "now": row.now,
            "then": row.then,
            "now_label": rejection_label(row.now),
            "then_label": rejection_label(row.then),
            "then_as": row.then_as,
            "changed": row.changed,
            "candidate": row.candidate,
            "was_used": row.then == "kept",
            "superseded": row.record.chunk_id not in current,
            "url": _record_url(row.record),
        }
        for row in rows
    ]
    return {
        "rows": table[:ROWS_SHOWN],
        "more": table[ROWS_SHOWN:],
        "threshold": threshold,
        "changes": sum(1 for row in table if row["changed"]),
    }


def _record_url(record: ChunkRecord) -> str:
    """A replay row's viewer link: a passage the reviewer opens, not a citation."""
    return passage_url(record.source_id, record.version, record.index) if record.source_id else ""


def _replay_context(answer: Answer, user: Any) -> dict[str, Any]:
    try:
        return {"replay": _replay_rows(answer, user)}
    except Exception:
        log.exception("replay failed for answer %s", answer.pk)
        return {"replay_failed": True}


def _visible_feedback(view: AnswerPresentation) -> list[Any]:
    """Readers' feedback; a flag on a citation the reviewer cannot see is listed without its source. A flagged
    source is named by its footnote number, as the reader flagged it ("Flag source [1]") and as the answer above
    shows it (`shown_number`), beside its marker, which the candidate table names."""
    shown = {card.citation_pk: card.number for card in view.all_cards()}
    rows = list(selectors.feedback_for_review(answer=view.answer))
    for row in rows:
        if row.citation_id is not None and row.citation_id not in shown:
            row.citation = None
        number = shown.get(row.citation_id) if row.citation_id is not None else None
        setattr(row, "shown_number", number)  # noqa: B010 - the template's per-row attribute, not a model field
    return rows


@reviewer_required
def provenance(request: HtmxHttpRequest, pk: int, review_form: ReviewForm | None = None) -> HttpResponse:
    """The answer's provenance page; `review_form`: a verdict that was refused, shown again as it was typed."""
    answer = answer_or_404(request, pk)
    trace = trace_for(answer, viewer=request.user)
    rows = _candidate_rows(trace["candidates"] if trace else [], request.user)
    view = present_answer(answer, viewer=request.user)
    # Each candidate's footnote number in the answer above, beside its marker: the answer numbers its citations in
    # reading order ([1] may be S3), the context and this table by the assembly's markers. A kept candidate that no
    # paragraph cites was given to the generator and not cited; one cited only by a paragraph withheld from this
    # reviewer has no number shown, and is not said to be uncited.
    shown: dict[str, int] = {}
    for card in view.all_cards():
        shown.setdefault(card.marker, card.number)
    cited = set(Citation.objects.filter(paragraph__answer=answer).values_list("marker", flat=True))
    for row in rows:
        row["shown_number"] = shown.get(row["marker"]) if row["marker"] else None
        row["uncited"] = bool(row["marker"]) and row["marker"] not in cited
    context: dict[str, Any] = {
        "answer": answer,
        "view": view,
        "trace": trace,
        "candidates": rows[:ROWS_SHOWN],
        "more_candidates": rows[ROWS_SHOWN:],
        "hidden_candidates": trace["withheld"] if trace else 0,
        "withheld": bool(trace and trace["redacted"]),
        "feedback_rows": _visible_feedback(view),
        "review_form": review_form or ReviewForm(),
        # A verdict clears readers' flags: recorded only by a reviewer shown all of the answer (services.feedback).
        "can_review": view.fully_shown,
    }
    if request.GET.get("replay"):
        context.update(_replay_context(answer, request.user))
    return render(request, "rag_app/provenance.html", context)


@reviewer_required
def replay(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The replay panel alone (htmx); without JS the provenance page shows it with ?replay=1."""
    answer = answer_or_404(request, pk)
    if not wants_partial(request):
        return redirect(reverse("answer_provenance", args=[answer.pk]) + "?replay=1#replay")
    context: dict[str, Any] = {"answer": answer, **_replay_context(answer, request.user)}
    return render(request, "rag_app/provenance.html#_replay", context)
