"""THE answer presenter: (answer, viewer) -> what every surface shows.

The HTML answer (paragraphs, hover cards, source panel), the API JSON, the CLI text and the
provenance page are all projections of one `AnswerPresentation`, built here from stored rows.
This module alone decides:

- which paragraphs the viewer may read. A paragraph is shown only if every chunk the model saw
  for the answer (the trace's marker map: the whole context) is readable by the viewer; for a
  quotation (extractive mode, where a paragraph is verbatim text of its own citations) it is
  enough that all of the paragraph's cited chunks are. Otherwise it is withheld, with
  WITHHELD_TEXT in its place on every surface, and none of its citations are shown;
- footnote numbers: reading order, the first marker in the answer is [1] (the stable S-ids stay
  in the trace and in the API's `id`);
- which sources the panel lists, and which of them the conflict banner names;
- what a reviewer sees of the trace (`trace_for`): candidates and marker-map entries of
  documents the viewer cannot read are left out, and the context, prompt and raw output, which
  quote them, are withheld as a whole.

Visibility itself comes from rag_app.access; nothing here or downstream filters documents again.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, cast

from django.urls import reverse
from django.utils import timezone
from django.utils.safestring import SafeString
from django.utils.translation import gettext, ngettext, pgettext
from django.utils.translation import gettext_lazy as _
from rest_framework.fields import DateTimeField

from rag_app import access, selectors
from rag_app.highlight import highlight_snippet
from rag_app.models import Answer, AnswerParagraph, AnswerReview, Feedback, IngestJob, SourceLevel, Trace
from rag_app.pipeline import answerability
from rag_app.pipeline.conflict import ShownDisagreement, shown_disagreement, trust_order
from rag_app.pipeline.crosslingual import all_terms, translate
from rag_app.pipeline.naming import retrieval_text
from rag_app.pipeline.records import Scope, format_locator
from rag_app.pipeline.textproc import (
    glued_pieces,
    passage_tokens,
    query_terms,
    query_words,
    sentence_spans,
    written_as,
)
from rag_app.pipeline.tiering import is_related, related_reason
from rag_app.search import explain
from rag_app.services.scope import current_scope

WITHHELD_TEXT = _("This paragraph rests on a document you cannot access.")
WITHHELD = "withheld"  # the evidence_status of a withheld paragraph, on every surface

# Why nothing qualified, by the reason code rag_app.services stores (shown translated).
NO_EVIDENCE_REASONS = {
    "below_threshold": _("Some passages matched, but none was relevant enough to answer from."),
    "no_match": _("No document matched the terms of the question."),
    "nothing_stated": _("Passages were found, but none of what they say answers the question."),
    "no_answering_passage": _(
        "The documents discuss this topic, but none of the passages found states what was asked."
    ),
    "out_of_period": _("Passages on this were found, but none is in effect today."),
    "empty_index": _("There are no documents you may search yet."),
    "empty_scope": _(
        "No document you may read is within the scope chosen: a document must match every part of it at once. Widen "
        "the scope and ask again."
    ),
    "no_citable_sources": _("The matching passages have no source id, so they cannot be cited."),
}


# Why an answer could not be produced, by the reason code the error state stores (shown translated, in place of
# the generic sentence; a code this table lacks gets the generic one).
INTERNAL_ERROR = "internal_error"
ERROR_REASONS = {
    "llm_timeout": _("The language model took too long to answer. Try again in a moment."),
    "llm_unreachable": _(
        "The language model could not be reached. Try again in a moment; if it keeps happening, tell an administrator."
    ),
    "llm_http_error": _(
        "The model server refused the request. Try again later; if it keeps happening, tell an administrator."
    ),
    "llm_not_configured": _("No language model is configured. Tell an administrator."),
    "llm_bad_output": _(
        "The language model's reply could not be read as an answer. Try again or rephrase the question."
    ),
    "llm_empty_output": _("The language model returned nothing. Try again or rephrase the question."),
    "llm_refused": _("The language model declined to answer from these passages."),
    "empty_answer": _("The answer came back empty. Try again or rephrase the question."),
    "embedder_unavailable": _("The search service could not be reached. The question was saved; try again shortly."),
    "embedding_failed": _("The search service could not read the question. The question was saved for review."),
    "embedder_mismatch": _(
        "The search index was made with another embedding model and must be rebuilt. Tell an administrator."
    ),
    "sources_changed": _(
        "A document this answer rested on was deleted while the question was being answered. Ask it again."
    ),
    INTERNAL_ERROR: _(
        "Something went wrong while answering this question. Please try again in a moment; if it keeps happening, "
        "tell a reviewer."
    ),
}
TRUNCATED_NOTICE = _("The model's answer was cut off at its length limit: the last paragraph may be incomplete.")

# Why a retrieval candidate was not kept, by the reason code the trace stores (pipeline.records.RejectReason),
# in the reader's language: the provenance page's candidate table and its replay. A code this table lacks is shown
# as stored.
REJECT_REASONS = {
    "below_threshold": _("below the relevance bar"),
    "no_source_id": _("no source id, so it cannot be cited"),
    "level_excluded": _("its level is left out"),
    "expired": _("no longer in effect"),
    "not_yet_effective": _("not yet in effect"),
    "superseded": _("a newer version is in effect"),
    "duplicate_source": _("enough of this document already"),
    "over_budget": _("over the budget"),
    "not_answering": _("does not state what was asked"),
    # A replay's row for a chunk the answer used that is no candidate now (services.answers._no_longer_candidates).
    "document_retired": _("its document was retired since"),
    "version_replaced": _("a newer version replaced it since"),
    "not_retrieved": _("no longer retrieved for this question"),
}

# The kind of value a question asks for (pipeline.answerability.Asked) and the kind of unit
# (answerability.asked_unit), as the detail of a `not_answering` decision names them.
ASKED_KINDS = {
    "quantity": _("number"),
    "measure": _("length or area"),
    "alias": _("other name"),
    "person": _("person's name"),
    "definition": _("definition"),
    "date": _("date"),
    "time": _("time"),
    "clock": _("time of day"),
    "other": _("answer"),
}
UNIT_KINDS = {
    "length": _("a unit of length"),
    "distance": _("kilometres or miles"),
    "mass": _("a unit of weight"),
    "money": _("money"),
    "duration": _("a duration"),
    "extent": _("a length or a duration"),
    "persons": _("people"),
    "speed": _("a speed"),
}

# How an answer was made and what each stage took, as the provenance page names them (the stored keys stay
# the API's; a key this table lacks, from an older answer, is shown as stored).
MODE_LABELS: dict[str, Any] = {
    Answer.Mode.EXTRACTIVE: _("quotation (extractive)"),
    Answer.Mode.LLM: _("language model"),
}
TIMING_LABELS = {
    "retrieval_ms": _("retrieval"),
    "assembly_ms": _("context assembly"),
    "generation_ms": _("generation"),
    "alignment_ms": _("citation check"),
    "persistence_ms": _("storing"),
    "total_ms": _("total"),
}


# Why an ingest job failed, by the code the job stores, in the reader's language. The stored message (English, a
# parser's or a server's words) is shown beside it as the detail where it says more than the code.
JOB_FAILURES = {
    "unsupported_type": _("This type of file cannot be read. Supported types:"),
    "legacy_format": _(
        "This is an old binary %(kind)s file (%(old)s), which cannot be read. Open it in %(kind)s, save it as"
        " %(new)s (or as PDF), and upload that."
    ),
    "too_large": _("The file is larger than the upload limit."),
    "empty": _("The file holds no text."),
    "no_text_layer": _("The PDF holds no text, only images (a scan): run OCR on it, then upload it again."),
    "undecodable": _("The file's text could not be decoded."),
    "binary": _("The file is binary, not text."),
    "encrypted": _("The file is encrypted or password-protected."),
    "parse_error": _("The file could not be read as the type its name says."),
    "invalid": _("The upload was refused."),
    "unknown_level": _("The level chosen for this file no longer exists."),
    "not_found": _("The document no longer exists."),
    "no_embedder": _("No embedder is configured, so there was nothing to embed."),
    "uploader_gone": _("The account that queued this file no longer exists."),
    "uploader_not_allowed": _("The account that queued this file may no longer upload documents."),
    "worker_lost": _("The worker stopped while reading this file, each time it tried; the file was set aside."),
    "transient_error": _("A temporary failure stopped the ingest; upload the file again."),
    "embedder_unavailable": _(
        "The embedding server did not answer, each time the ingest tried; upload the file again once it is back."
    ),
    "embedding_failed": _("The embedding server refused this file's text or answered something unusable."),
    "embedder_mismatch": _(
        "The stored vectors were made with another embedding model; an administrator must rebuild them first."
    ),
    "internal_error": _("The ingest failed with an internal error; the detail is in the worker's log."),
    "broker_unavailable": _("The task broker was unreachable, so no worker could be asked to do this."),
}
# Codes whose sentence says all the stored message says (no detail shown beside it).
_JOB_FAILURES_COMPLETE = frozenset(
    {"unsupported_type", "empty", "no_text_layer", "binary", "encrypted", "uploader_gone", "uploader_not_allowed"}
    | {"no_embedder", "legacy_format"}
)


@dataclass(frozen=True)
class JobFailureView:
    text: str  # in the reader's language
    detail: str  # the stored message where it says more, else ""
    supported: str = ""  # the extensions that can be read, after an unsupported type

    def sentence(self) -> str:
        """All of it on one line (the API's `detail`)."""
        return " ".join(part for part in (self.text, self.supported, f"({self.detail})" if self.detail else "") if part)


# A re-embedding (the job a rename queues: services.embedding.index_new_title) has no file to upload again: where an
# upload's reason would say so, it says what failed, and every failure that leaves the vectors behind says what that
# means and what brings them up to date.
REEMBED_FAILURES = {
    "transient_error": _("A temporary failure stopped the re-embedding."),
    "embedder_unavailable": _("The embedding server did not answer, each time the re-embedding tried."),
    "embedding_failed": _("The embedding server refused the document's text or answered something unusable."),
    "worker_lost": _("The worker stopped while re-embedding the document, each time it tried."),
    "internal_error": _("The re-embedding failed with an internal error; the detail is in the worker's log."),
}
_REEMBED_STALE = frozenset({*REEMBED_FAILURES, "broker_unavailable"})
REEMBED_STALE = _(
    "Vector search finds the document by its old title until its title is changed again or an operator runs"
    " rag_embed --rebuild."
)


def job_failure(
    code: str,
    message: str,
    *,
    kind: str = IngestJob.Kind.INGEST,
    template: str = "",
    params: Mapping[str, Any] | None = None,
) -> JobFailureView:
    """How a failed job's reason is shown on the upload page (`kind`: the job's, IngestJob.Kind).

    `template` and `params`: the sentence `message` was made from and its values (a ParseError's, a stored job's:
    services.ingest_jobs.JobFailure), which give the detail in the reader's language. Without them (a job failed
    before they were kept, a server's own words) the detail is `message` as it is."""
    from rag_app.ingest.parsers import extensions_label  # the parsers import nothing of this module

    if template:
        message = _said(template, params, fallback=message)
    reembed = kind == IngestJob.Kind.REEMBED
    sentence = REEMBED_FAILURES.get(code) if reembed else None
    sentence = sentence or JOB_FAILURES.get(code)
    if sentence is None:
        return JobFailureView(text=message, detail="")
    text = str(sentence)
    if params:  # a sentence may name the failure's values (legacy_format: which format, and what to save it as)
        text = _with_values(text, params, fallback=message)
    if reembed and code in _REEMBED_STALE:
        text = f"{text} {REEMBED_STALE}"
    return JobFailureView(
        text=text,
        detail="" if code in _JOB_FAILURES_COMPLETE else message,
        supported=extensions_label() if code == "unsupported_type" else "",
    )


def job_result_failure(result: Mapping[str, Any], *, kind: str = IngestJob.Kind.INGEST) -> JobFailureView:
    """A stored job result's failure (`status` error), in the reader's language."""
    params = result.get("params")
    return job_failure(
        str(result.get("error", "")),
        str(result.get("message", "")),
        kind=kind,
        template=str(result.get("template") or ""),
        params=params if isinstance(params, Mapping) else None,
    )


def _said(template: str, params: Mapping[str, Any] | None, *, fallback: str) -> str:
    """A sentence marked with gettext_noop, in the reader's language, with its values. `fallback` (the English as
    stored) where the values do not fit the sentence: a stored job's, kept before the sentence changed."""
    return _with_values(gettext(template), params, fallback=fallback)


def _with_values(text: str, params: Mapping[str, Any] | None, *, fallback: str) -> str:
    try:
        return text % dict(params) if params else text
    except (KeyError, ValueError, TypeError):
        return fallback


def job_outcome(result: dict[str, Any], *, kind: str = IngestJob.Kind.INGEST) -> str:
    """A finished job's line in the reader's language ("refunds v2 3 chunks updated" in English, the CLI's line; the
    stored `line` stays English for the API and the log). `kind`: the job's (IngestJob.Kind): a re-embedding or a
    re-index job's one result says what it did to how many chunks ("done", services.embedding.reindex_job_run)."""
    chunks = result.get("chunks")
    if kind != IngestJob.Kind.INGEST and result.get("status") == "done" and isinstance(chunks, int):
        if kind == IngestJob.Kind.REEMBED:
            reembedded = ngettext(
                "%(source_id)s: %(chunks)s chunk embedded again with the new title",
                "%(source_id)s: %(chunks)s chunks embedded again with the new title",
                chunks,
            )
            return reembedded % {"source_id": result.get("source_id", ""), "chunks": chunks}
        return ngettext("%(chunks)s chunk re-indexed", "%(chunks)s chunks re-indexed", chunks) % {"chunks": chunks}
    lines = {
        "new": gettext("%(source_id)s v%(version)s %(chunks)s chunks new"),
        "updated": gettext("%(source_id)s v%(version)s %(chunks)s chunks updated"),
        "unchanged": gettext("%(source_id)s v%(version)s %(chunks)s chunks unchanged"),
    }
    line = lines.get(str(result.get("status", "")))
    if line is None or "version" not in result or "chunks" not in result:
        return str(result.get("line", ""))
    return line % {"source_id": result.get("source_id", ""), "version": result["version"], "chunks": result["chunks"]}


# The no-evidence reasons that say related passages were found (each lists them, `_related`).
RELATED_REASONS = frozenset({"below_threshold", "no_answering_passage", "nothing_stated", "out_of_period"})


def in_force_until(version: Any, today: dt.date | None = None) -> dt.date | None:
    """The date a newer version of the document takes effect, when `version` (a DocumentVersion) is not the current
    one but is still the one in force until then (search.indexing.settle_versions keeps it searched, with that date
    as its `superseded_on`); None otherwise. An answer that cites it is not out of date: the pages, the API and the
    CLI say "in force until …" instead of "a newer version exists"."""
    until = getattr(version, "superseded_on", None)
    today = today or timezone.localdate()
    if version.is_current or not getattr(version, "searched", False) or until is None or until <= today:
        return None
    start, end = getattr(version, "effective_from", None), getattr(version, "effective_until", None)
    if (start is not None and start > today) or (end is not None and end < until):
        return None  # not in force yet (scheduled itself), or it lapses before the newer version takes over
    return cast(dt.date, until)


def takes_effect(version: Any, today: dt.date | None = None) -> dt.date | None:
    """The date the current version takes effect, when it is scheduled for later (None otherwise): the viewer marks
    it "from …" rather than "current" while its predecessor is in force."""
    start = getattr(version, "effective_from", None)
    if not version.is_current or start is None or start <= (today or timezone.localdate()):
        return None
    return cast(dt.date, start)


def _newer_url(source_id: str, version: int, is_current: bool, current: int | None) -> str:
    """The viewer link of a document's current version, for a passage of an older one ("" otherwise)."""
    if is_current or current is None or current == version:
        return ""
    return reverse("document_version", args=[source_id, current])


def chunk_url(source_id: str, version: int, index: int) -> str:
    """Document viewer link that highlights (?chunk=) and scrolls to (#chunk-) the cited chunk."""
    return reverse("document_version", args=[source_id, version]) + f"?chunk={index}#chunk-{index}"


def passage_url(source_id: str, version: int, index: int) -> str:
    """Document viewer link to a chunk that was not cited (a related passage, a retrieval candidate): it is
    highlighted as the passage the reader opened (?passage=), never labelled cited."""
    return reverse("document_version", args=[source_id, version]) + f"?passage={index}#chunk-{index}"


def _score(value: object, *, digits: int = 3) -> str:
    return f"{value:.{digits}f}" if isinstance(value, int | float) and not isinstance(value, bool) else "—"


def word_list(words: Iterable[object]) -> str:
    """Words listed as the reader's language lists them: "GPL, LGPL" in English, "报销、发票" in Chinese (the
    enumeration comma, never a half-width comma between Chinese words). Every list of words on a page is written
    by this (templatetags/wording.py `word_list`)."""
    return pgettext("between the words of a list", ", ").join(str(w) for w in words)


def _names(value: object) -> str:
    return word_list(value) if isinstance(value, list) else str(value or "")


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def rejection_label(reason: object) -> str:
    """A rejection's reason code in the reader's language (the code itself when the table lacks it; "—" for none)."""
    label = REJECT_REASONS.get(str(reason or ""))
    return str(label) if label is not None else str(reason or "—")


def decision_detail(candidate: dict[str, Any]) -> str:
    """Why the trace's `candidate` row was kept or dropped, beyond its reason code, in the reader's language: written
    from the data the trace keeps (`facts`, services.answers; a below-threshold row's relevance and bar), so the
    numbers are the stored ones. A row stored before its facts were kept, or whose facts name what the viewer may
    not see (presentation._without_hidden_names took them), shows its stored detail."""
    facts = candidate.get("facts")
    code = facts.get("code") if isinstance(facts, dict) else None
    if not isinstance(facts, dict) or code is None:
        if candidate.get("reason") == "below_threshold" and isinstance(candidate.get("bar"), int | float):
            return f"{_score(candidate.get('relevance'))} < {_score(candidate.get('bar'))}"
        detail = candidate.get("detail")
        return detail if isinstance(detail, str) else ""
    n = _count(facts.get("n"))
    if code == "below_bar":
        return f"{_score(facts.get('relevance'))} < {_score(facts.get('bar'))}"
    if code == "copy_of":
        return gettext(
            "relevance %(relevance)s < %(bar)s, qualified with %(original)s (%(original_relevance)s), which it "
            "copies but for one stretch"
        ) % {
            "relevance": _score(facts.get("relevance")),
            "bar": _score(facts.get("bar")),
            "original": facts.get("original") or "—",
            "original_relevance": _score(facts.get("original_relevance")),
        }
    if code == "beside":
        return gettext(
            "relevance %(relevance)s < %(bar)s, judged beside %(lower)s (level %(level)s), which the embedder puts no "
            "nearer the question (cosine %(cosine)s against %(lower_cosine)s)"
        ) % {
            "relevance": _score(facts.get("relevance")),
            "bar": _score(facts.get("bar")),
            "lower": facts.get("lower") or "—",
            "level": facts.get("level") or "—",
            "cosine": _score(facts.get("cosine"), digits=4),
            "lower_cosine": _score(facts.get("lower_cosine"), digits=4),
        }
    if code == "continues_list":
        return gettext("goes on with the list that %(chunk)s introduces") % {"chunk": facts.get("of") or "—"}
    if code == "level":
        return gettext("level %(level)s") % {"level": facts.get("level") or "—"}
    if code == "expired":
        return gettext("effective until %(date)s") % {"date": facts.get("date") or "—"}
    if code == "not_yet_effective":
        return gettext("effective from %(date)s") % {"date": facts.get("date") or "—"}
    if code == "superseded":
        return gettext("its next version is in effect from %(date)s") % {"date": facts.get("date") or "—"}
    if code == "no_source_id":
        return ""
    if code == "same_chunk":
        return gettext("the same chunk twice")
    if code == "max_sources":
        return ngettext("more than %(n)d source", "more than %(n)d sources", n) % {"n": n}
    if code == "per_source":
        return gettext("%(n)d of its chunks kept before it") % {"n": n}
    if code == "context_chars":
        return ngettext(
            "the context holds at most %(n)d character", "the context holds at most %(n)d characters", n
        ) % {"n": n}
    if code == "top_k":
        return ngettext("ranked below the first %(n)d passage", "ranked below the first %(n)d passages", n) % {"n": n}
    if code == "unnamed":
        return gettext("does not mention %(words)s, which the question names") % {"words": _names(facts.get("words"))}
    if code == "other_document":
        return gettext("of another document than the one the question names (%(names)s)") % {
            "names": _names(facts.get("names"))
        }
    if code == "other_part":
        return gettext("in another part of its document than the one the question names (%(names)s)") % {
            "names": _names(facts.get("names"))
        }
    if code == "one_word":
        return gettext(
            "read in its language through %(held)s alone, not %(words)s, and not the passage closest to the whole "
            "question"
        ) % {
            "held": facts.get("held") or "—",
            "words": _names(facts.get("words")),
        }
    if code == "outdone":
        return gettext(
            "holds %(focus)s of the question's focus, where %(chunk)s of another document holds all of it"
        ) % {"focus": _score(facts.get("focus"), digits=2), "chunk": facts.get("by") or "—"}
    if code == "far_across" and facts.get("own") is not None:
        return gettext(
            "read across languages only, and a passage in the question's language (%(by)s) is much nearer the whole "
            "question (cosine %(cosine)s, against %(own)s)"
        ) % {
            "by": facts.get("own_by") or "—",
            "cosine": _score(facts.get("cosine"), digits=4),
            "own": _score(facts.get("own"), digits=4),
        }
    if code == "far_across":
        return gettext(
            "read across languages only, and no such passage is near the whole question (cosine %(cosine)s < %(floor)s)"
        ) % {"cosine": _score(facts.get("cosine"), digits=4), "floor": _score(facts.get("floor"))}
    if code == "no_focus":
        return gettext("on topic, but no two sentences hold the question's focus (best %(best)s < %(min)s)") % {
            "best": _score(facts.get("focus"), digits=2),
            "min": _score(facts.get("min"), digits=2),
        }
    if code == "no_value":
        kind = str(ASKED_KINDS.get(str(facts.get("kind")), facts.get("kind") or ""))
        unit = facts.get("unit")
        if unit:
            return gettext("the sentences on the question's focus give no %(kind)s in %(unit)s") % {
                "kind": kind,
                "unit": str(UNIT_KINDS.get(str(unit), unit)),
            }
        return gettext("the sentences on the question's focus give no %(kind)s") % {"kind": kind}
    detail = candidate.get("detail")  # a code this version does not know: as stored
    return detail if isinstance(detail, str) else ""


@dataclass
class CardView:
    """One footnote marker with its hover card (and its entry in the source panel)."""

    number: int  # display number: reading order within this answer, for this viewer
    marker: str  # the stable S-id assembly gave it
    citation_pk: int
    chunk_id: str
    source_id: str
    title: str  # display title: the document's title, or its source_id (rule 7)
    raw_title: str | None
    document_url: str | None
    # The level as it was when the answer was made (Citation: slug, label, weight), not as an admin set it since.
    level_slug: str
    level_label: str
    level_weight: float | None
    score: float | None
    locator: str | None
    section: str | None
    page: int | None
    start: int
    end: int
    version: int
    is_current: bool
    snippet: str
    url: str
    dom_id: str
    paragraph_text: str = field(repr=False, default="")
    retired: bool = False  # the document is retired: still readable, no longer used for new answers
    # The document's current version when the viewer may read it (== version when the cited one is current).
    current_version: int | None = None
    # The date the newer version takes effect, while the cited one is still in force until then (in_force_until).
    in_force_until: dt.date | None = None
    # A flag of this source refused without JavaScript, shown again in its box: the reason, the kind and the comment
    # as sent (views.feedback; the htmx swap passes the same as the partial's context).
    flag_error: str = ""
    flag_kind: str = ""
    flag_comment: str = ""
    # The cited version's effective date as the search read it (the trace's marker map; the version's own where the
    # trace did not keep it): the banner orders equally trusted sides by it, newer first (conflict.trust_order).
    effective_from: dt.date | None = None

    @property
    def current_url(self) -> str:
        """The viewer link of the current version, when a newer one than the cited version exists."""
        return _newer_url(self.source_id, self.version, self.is_current, self.current_version)

    @cached_property
    def snippet_html(self) -> SafeString:
        return highlight_snippet(self.snippet, self.paragraph_text)

    def as_source(self) -> dict[str, Any]:
        """The API / CLI entry of this citation (`sources[]`)."""
        return {
            "id": self.marker,
            "display_number": self.number,
            # What a reader flags (POST …/feedback `citation_id`), as the page's flag form posts it: the marker's
            # first citation.
            "citation_id": self.citation_pk,
            "chunk_id": self.chunk_id,
            "source_id": self.source_id,
            "version": self.version,
            "title": self.raw_title,
            "display_title": self.title,
            "url": self.document_url,
            "locator": self.locator,
            "section": self.section,
            "page": self.page,
            "start_offset": self.start,
            "end_offset": self.end,
            "source_level": self.level_slug or None,
            "source_level_label": self.level_label or None,
            "source_level_weight": self.level_weight,
            "score": self.score,
            "snippet": self.snippet,
            "retired": self.retired,
            "is_current": self.is_current,
            "current_version": self.current_version,
            "in_force_until": self.in_force_until.isoformat() if self.in_force_until else None,
        }


@dataclass
class ParagraphView:
    order: int
    text: str  # empty when withheld
    status: str  # linked | insufficient | withheld
    weak: bool
    support: float | None
    cards: list[CardView]
    # In a model's answer: a left-out source's statement the conflict check added, quoted verbatim.
    added: bool = False

    @property
    def withheld(self) -> bool:
        return self.status == WITHHELD

    @property
    def insufficient(self) -> bool:
        return self.status == AnswerParagraph.Status.INSUFFICIENT

    @property
    def weak_shown(self) -> bool:
        """Marked "weak support" (the page's mark): a linked paragraph its citations barely support, or one that
        states a number or name they do not hold. Never for a withheld or insufficient paragraph."""
        return self.weak and self.status == AnswerParagraph.Status.LINKED

    def as_dict(self) -> dict[str, Any]:
        return {
            "text": str(WITHHELD_TEXT) if self.withheld else self.text,
            "citation_ids": list(dict.fromkeys(card.marker for card in self.cards)),
            "display_numbers": list(dict.fromkeys(card.number for card in self.cards)),
            "evidence_status": self.status,
            "support": None if self.withheld else self.support,
            "weak": self.weak_shown,
            "added_by_conflict_check": self.added,
        }


@dataclass
class SourceView:
    """One document in the source panel, with every marker that cites it."""

    source_id: str
    title: str
    level_slug: str
    level_label: str
    level_weight: float | None = None
    effective_from: dt.date | None = None  # its first card's, as the level
    cards: list[CardView] = field(default_factory=list)

    @property
    def numbers(self) -> list[int]:
        return list(dict.fromkeys(card.number for card in self.cards))

    @property
    def retired(self) -> bool:
        return any(card.retired for card in self.cards)


@dataclass(frozen=True)
class RelatedView:
    """A passage that matched but was not enough to answer: listed, never cited."""

    source_id: str
    title: str
    version: int
    relevance: float | None
    excerpt: str
    url: str
    # The question's words the passage does not hold (search/explain.py), as the question writes them;
    # None for an answer asked before the trace kept them.
    lacks: tuple[str, ...] | None = None
    is_current: bool = True
    current_version: int | None = None  # as CardView's
    in_force_until: dt.date | None = None  # as CardView's
    # Out of its effective period: "not_yet_effective" or "expired" (the trace's reason), and the date it takes or
    # lost effect (ISO); "" when it was rejected for anything else.
    period: str = ""
    period_date: str = ""

    @property
    def current_url(self) -> str:
        return _newer_url(self.source_id, self.version, self.is_current, self.current_version)

    def as_dict(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "title": self.title,
            "version": self.version,
            "relevance": self.relevance,
            "excerpt": self.excerpt,
            "lacks": None if self.lacks is None else list(self.lacks),
            "is_current": self.is_current,
            "current_version": self.current_version,
            "in_force_until": self.in_force_until.isoformat() if self.in_force_until else None,
            "out_of_period": self.period or None,
            "period_date": self.period_date or None,
        }


RELATED_SHOWN = 3
EXCERPT_CHARS = 240


def timestamp(value: dt.datetime) -> str:
    """A moment as every API response and `ask --json` write it: DRF's DateTimeField (ISO 8601 in the server's
    time zone, UTC as "Z"), which the output serializers use for every other created_at. The answer JSON is built
    here, not by a serializer, so it calls the same field rather than writing a second form ("+00:00")."""
    return DateTimeField().to_representation(value)


@dataclass(frozen=True)
class ReviewView:
    """A reviewer's verdict on the answer."""

    verdict: str
    note: str
    reviewer: str | None
    created_at: Any

    def as_dict(self, *, with_note: bool = True) -> dict[str, Any]:
        """`note`: null when none was written or when it is withheld from this viewer (`note_withheld`: it may quote a
        document they cannot read), never an empty string standing for either."""
        return {
            "verdict": self.verdict,
            "note": (self.note or None) if with_note else None,
            "note_withheld": bool(self.note) and not with_note,
            "reviewer": self.reviewer,
            "created_at": timestamp(self.created_at),
        }


@dataclass(frozen=True)
class FeedbackView:
    """How readers rated the answer, and what this viewer has already said."""

    helpful: int = 0
    not_helpful: int = 0
    flags: int = 0  # every kind but "helpful": each one puts the answer in the reviewer queue
    mine: frozenset[str] = frozenset()

    def as_dict(self) -> dict[str, int]:
        return {"helpful": self.helpful, "not_helpful": self.not_helpful, "flags": self.flags}


@dataclass
class AnswerPresentation:
    answer: Answer
    paragraphs: list[ParagraphView]
    sources: list[SourceView]  # by document, in reading order
    citations: list[CardView]  # each marker once, in reading order
    quoted: bool
    conflict_sources: list[SourceView]
    searched_terms: list[str] = field(default_factory=list)
    # A follow-up's: the earlier question's words its search also read (naming.retrieval_text), not in the above.
    thread_terms: list[str] = field(default_factory=list)
    review: ReviewView | None = None  # the newest verdict: the answer's review status
    reviews: list[ReviewView] = field(default_factory=list)  # every verdict, newest first
    feedback: FeedbackView = field(default_factory=FeedbackView)
    related: list[RelatedView] = field(default_factory=list)
    parent: Answer | None = None  # the answer this one follows up, when the viewer may read it
    scope: dict[str, list[str]] = field(default_factory=dict)  # as this viewer may see it
    # Readers' comments and reviewers' notes may quote what the answer rests on: shown only to a
    # viewer who may read all of it (no paragraph withheld; on a no-evidence answer, whose asker was shown the
    # related passages, no candidate hidden).
    comments_visible: bool = True
    # Whether the viewer is shown all of the answer (_shown_whole: no paragraph withheld, every document of the
    # trace readable): only such a reviewer records a verdict (services.feedback), and only such a viewer reads
    # reviewers' notes, which may quote any passage the review read (the model's context, every candidate).
    fully_shown: bool = True
    # Why there is no evidence, for this viewer: the stored reason, except that "related passages were found"
    # is not said to a viewer who may read none of them (nothing_related); then no document matched, for them.
    reason: str = ""

    @cached_property
    def scope_facets(self) -> list[tuple[str, list[str]]]:
        """The scope as the answer shows it: levels by their labels, as the ask form offers them ("Official", not the
        slug "official"; a level deleted since by its slug), groups by name, documents by source_id."""
        facets = []
        for name, values in self.scope.items():
            if values and name == "levels":
                labels = dict(SourceLevel.objects.filter(slug__in=values).values_list("slug", "label"))
                values = [labels.get(slug) or slug for slug in values]
            if values:
                facets.append((name, values))
        return facets

    @property
    def unmatched_words(self) -> list[str]:
        """The question's words that none of the related passages holds, in the question's order: what to put
        otherwise when rephrasing (rule 11). Empty without related passages or when one's reading is unknown.
        A passage in the other language is read through the translation, whose units may differ ("fire
        engine" is one word of it): such a word is named only where every passage lacks it in the same form,
        so the list may leave a word out, never name one a passage holds."""
        if not self.related or any(r.lacks is None for r in self.related):
            return []
        return [w for w in self.related[0].lacks or () if all(w in (r.lacks or ()) for r in self.related[1:])]

    @property
    def nothing_related(self) -> bool:
        """No evidence because nothing matched at all (not: passages matched but none was enough)."""
        return self.is_no_evidence and not self.related and self.reason not in RELATED_REASONS

    @property
    def message(self) -> str:
        """The stored message, or the one of the reason this viewer is given when it differs."""
        if self.reason == self.answer.reason:
            return self.answer.message
        from rag_app.services.ask import NO_EVIDENCE_MESSAGES  # services import this module

        return NO_EVIDENCE_MESSAGES.get(self.reason, "")

    @property
    def mode_label(self) -> str:
        return str(MODE_LABELS.get(self.answer.mode, self.answer.mode))

    @property
    def timings_shown(self) -> list[tuple[str, object]]:
        """(label, milliseconds) in the order the stages ran."""
        timings = self.answer.timings if isinstance(self.answer.timings, dict) else {}
        return [(str(TIMING_LABELS.get(key, key)), value) for key, value in timings.items()]

    def all_cards(self) -> list[CardView]:
        """Every citation shown to this viewer (a marker cited twice appears twice)."""
        return [card for paragraph in self.paragraphs for card in paragraph.cards]

    @property
    def notes_visible(self) -> bool:
        return self.fully_shown

    @property
    def _snapshot(self) -> dict[str, Any]:
        """The settings snapshot the answer's trace kept ({} without one)."""
        trace = _trace(self.answer)
        return trace.settings_snapshot if trace is not None and isinstance(trace.settings_snapshot, dict) else {}

    @property
    def truncated(self) -> bool:
        """A model's answer cut off at its token limit: the last paragraph may be incomplete."""
        return self.is_answered and self._snapshot.get("finish_reason") == "length"

    @property
    def min_support(self) -> float | None:
        """The support a linked paragraph needed not to be marked weak when it was answered (RAG_MIN_SUPPORT, as the
        trace's settings snapshot kept it); None when not recorded."""
        return _number(self._snapshot.get("min_support"))

    @property
    def error_reason(self) -> str:
        """What went wrong, in the reader's language, when the reason is one the table knows."""
        return str(ERROR_REASONS.get(self.answer.reason, "")) if self.is_error else ""

    @property
    def no_evidence_reason(self) -> str:
        return str(NO_EVIDENCE_REASONS.get(self.reason, ""))

    @property
    def notice(self) -> str:
        """What the reader is told of the answer's state, in their language: why it could not be produced (a code the
        table lacks gets the generic sentence), why there is no evidence, or that a model's answer was cut off; ""
        when there is nothing to say. The one sentence the answer's page, the provenance page and the API's `message`
        (so `ask --json`'s too) give."""
        if self.is_error:
            return self.error_reason or str(ERROR_REASONS[INTERNAL_ERROR])
        if self.is_no_evidence:
            return self.no_evidence_reason
        return str(TRUNCATED_NOTICE) if self.truncated else ""

    @property
    def is_answered(self) -> bool:
        return self.answer.state == Answer.State.ANSWERED

    @property
    def is_no_evidence(self) -> bool:
        return self.answer.state == Answer.State.NO_EVIDENCE

    @property
    def is_error(self) -> bool:
        return self.answer.state == Answer.State.ERROR

    @property
    def withheld_paragraphs(self) -> int:
        return sum(1 for p in self.paragraphs if p.withheld)

    def as_dict(self) -> dict[str, Any]:
        """The answer JSON: what the API returns and `ask --json` prints."""
        answer = self.answer
        return {
            "id": answer.pk,
            "question": answer.question,
            "state": answer.state,
            "reason": self.reason or None,
            "mode": answer.mode,
            "created_at": timestamp(answer.created_at),
            "conflict": bool(self.conflict_sources),
            "truncated": self.truncated,
            "message": self.notice or None,
            "scope": self.scope,
            "parent_id": self.parent.pk if self.parent is not None else None,  # only a parent the viewer may read
            "withheld_paragraphs": self.withheld_paragraphs,
            "paragraphs": [p.as_dict() for p in self.paragraphs],
            "sources": [card.as_source() for card in self.citations],
            "review": self.review.as_dict(with_note=self.notes_visible) if self.review else None,
            "feedback": self.feedback.as_dict(),
            "related": [r.as_dict() for r in self.related],
            "unmatched_words": self.unmatched_words,
        }


def _trace(answer: Answer) -> Trace | None:
    try:
        return answer.trace
    except Trace.DoesNotExist:
        return None


def _context_source_ids(trace: Trace | None) -> set[str | None]:
    """source_ids of every chunk the model saw (None for an entry without one: never visible)."""
    if trace is None or not isinstance(trace.marker_map, dict):
        return set()
    return {entry.get("source_id") if isinstance(entry, dict) else None for entry in trace.marker_map.values()}


def _trace_candidates(trace: Trace | None) -> list[dict[str, Any]]:
    """The trace's candidate rows that are rows (a stored trace is JSON: anything else in the list is skipped)."""
    if trace is None or not isinstance(trace.candidates, list):
        return []
    return [c for c in trace.candidates if isinstance(c, dict)]


def _candidate_source_ids(trace: Trace | None) -> set[str | None]:
    """source_ids of every candidate the search found (None for a row without one)."""
    if trace is None or not isinstance(trace.candidates, list):
        return set()
    return {c.get("source_id") if isinstance(c, dict) else None for c in trace.candidates}


def _is_quotation(answer: Answer, trace: Trace | None) -> bool:
    """Extractive answers are verbatim quotations; the trace says so when the generator did."""
    snapshot = trace.settings_snapshot if trace is not None and isinstance(trace.settings_snapshot, dict) else {}
    quoted = snapshot.get("quoted")
    return quoted if isinstance(quoted, bool) else answer.mode == Answer.Mode.EXTRACTIVE


def _added_markers(trace: Trace | None) -> set[str]:
    """Markers whose statements the conflict check added to a model's answer (services.ask)."""
    snapshot = trace.settings_snapshot if trace is not None and isinstance(trace.settings_snapshot, dict) else {}
    added = snapshot.get("statements_added")
    return {str(m) for m in added} if isinstance(added, list) else set()


def _disagreement(trace: Trace | None, shown: dict[str, str], cited: Iterable[str]) -> ShownDisagreement:
    """What the viewer is shown of the disagreements the answer recorded (conflict.shown_disagreement, the one rule):
    `shown` maps each marker the viewer is shown to its source_id, `cited` is every marker the answer cites. An older
    trace that kept no `conflicts` is read by the markers it named as disagreeing (in the settings snapshot, or in
    the marker map where the oldest traces kept them); one that named none, by every cited marker."""
    snapshot = trace.settings_snapshot if trace is not None and isinstance(trace.settings_snapshot, dict) else {}
    named: object = list(dict.fromkeys(cited))
    for holder in (snapshot, trace.marker_map if trace is not None else None):
        if isinstance(holder, dict) and isinstance(holder.get("conflicting_markers"), list):
            named = holder["conflicting_markers"]
            break
    return shown_disagreement(snapshot.get("conflicts"), named, shown)


def _effective_from(trace: Trace | None, marker: str, version: Any) -> dt.date | None:
    """A cited version's effective date as the search read it when the answer was made (the trace's marker map keeps
    it; an unchanged upload may have changed the version's since), else the version's own."""
    entry = trace.marker_map.get(marker) if trace is not None and isinstance(trace.marker_map, dict) else None
    if isinstance(entry, dict) and "effective_from" in entry:
        try:
            return dt.date.fromisoformat(entry["effective_from"]) if entry["effective_from"] else None
        except (TypeError, ValueError):
            pass
    return version.effective_from


def present_answer(answer: Answer, *, viewer: Any) -> AnswerPresentation:
    """What `viewer` (a user, or None for the system) may see of `answer`, numbered in reading order."""
    trace = _trace(answer)
    rows = list(
        AnswerParagraph.objects.filter(answer=answer)
        .order_by("order")
        .prefetch_related("citations__chunk__version__document")
    )
    cited = {c.chunk.version.document.source_id for p in rows for c in p.citations.all()}
    context = _context_source_ids(trace)
    candidates = {s for s in _candidate_source_ids(trace) if s}  # a row without a source_id names no document
    visible = access.visible_source_ids(
        viewer, among={s for s in cited | context | candidates if s}, existing_at=answer.created_at
    )
    context_visible = all(s in visible for s in context)
    candidates_visible = candidates <= visible
    quoted = _is_quotation(answer, trace)
    added_markers = _added_markers(trace)

    numbers: dict[str, int] = {}
    by_marker: dict[str, CardView] = {}
    paragraphs: list[ParagraphView] = []
    for para in rows:
        citations = sorted(para.citations.all(), key=lambda c: (c.order, c.pk))
        own_visible = all(c.chunk.version.document.source_id in visible for c in citations)
        # A quotation is its citations' own text; anything else may carry text of any chunk the model saw.
        shown = own_visible and (context_visible or (quoted and bool(citations)))
        if not shown:
            paragraphs.append(
                ParagraphView(order=para.order, text="", status=WITHHELD, weak=False, support=None, cards=[])
            )
            continue
        cards: list[CardView] = []
        for cit in citations:
            chunk = cit.chunk
            version = chunk.version
            document = version.document
            number = numbers.setdefault(cit.marker, len(numbers) + 1)
            card = CardView(
                number=number,
                marker=cit.marker,
                citation_pk=cit.pk,
                chunk_id=chunk.chunk_id,
                source_id=document.source_id,
                title=document.display_title,
                raw_title=document.title or None,
                document_url=document.url or None,
                level_slug=cit.level_slug,
                level_label=cit.level_label or cit.level_slug,
                level_weight=cit.level_weight,
                score=cit.score,
                locator=format_locator(chunk.section, chunk.page),
                section=chunk.section or None,
                page=chunk.page,
                start=chunk.start,
                end=chunk.end,
                version=version.version,
                is_current=version.is_current,
                snippet=cit.snippet,
                url=chunk_url(document.source_id, version.version, chunk.index),
                dom_id=f"card-{para.order}-{cit.pk}",
                paragraph_text=para.text,
                retired=document.retired_at is not None,
                current_version=version.version if version.is_current else None,
                in_force_until=in_force_until(version),
                effective_from=_effective_from(trace, cit.marker, version),
            )
            cards.append(card)
            by_marker.setdefault(cit.marker, card)
        status = para.evidence_status if cards else AnswerParagraph.Status.INSUFFICIENT
        paragraphs.append(
            ParagraphView(
                order=para.order,
                text=para.text,
                status=status,
                weak=para.weak,
                support=para.support,
                cards=cards,
                added=not quoted and len(citations) == 1 and citations[0].marker in added_markers,
            )
        )

    _set_current_versions([card for p in paragraphs for card in p.cards], viewer)
    citations_in_order = sorted(by_marker.values(), key=lambda card: card.number)
    sources: dict[str, SourceView] = {}
    for card in citations_in_order:
        source = sources.setdefault(
            card.source_id,
            SourceView(
                source_id=card.source_id,
                title=card.title,
                level_slug=card.level_slug,
                level_label=card.level_label,
                level_weight=card.level_weight,
                effective_from=card.effective_from,
            ),
        )
        source.cards.append(card)
    conflict_sources: list[SourceView] = []
    if answer.conflict:
        # Only disagreements the viewer is shown whole, between two documents: one visible side would say that a
        # hidden document disagrees, and two visible sides that each disagree with a hidden one need not disagree.
        sides_shown = {card.marker: card.source_id for card in citations_in_order}
        sides = set(_disagreement(trace, sides_shown, (c.marker for p in rows for c in p.citations.all())).markers)
        # The higher level, then the newer effective date first, as the extractive answer orders its statements (a
        # model's answer may cite the note before the official policy its check added, or last year's policy first):
        # by the weight and date each was answered with, not today's (an admin's reweighting does not reorder an old
        # answer); equals as cited.
        conflict_sources = sorted(
            (s for s in sources.values() if any(c.marker in sides for c in s.cards)),
            key=lambda s: trust_order(s.level_weight, s.effective_from),
        )
    # The answer it continues, where the viewer may see it; where not, its question is not shown, nor the words of it
    # the follow-up's search read (thread_terms).
    parent = selectors.thread_parent(user=viewer, answer_id=answer.parent_id) if answer.parent_id else None
    view = AnswerPresentation(
        answer=answer,
        paragraphs=paragraphs,
        sources=list(sources.values()),
        citations=citations_in_order,
        quoted=quoted,
        conflict_sources=conflict_sources,
        searched_terms=query_words(answer.question) if answer.state == Answer.State.NO_EVIDENCE else [],
        thread_terms=_thread_terms(trace, answer.question)
        if answer.state == Answer.State.NO_EVIDENCE and (parent is not None or answer.parent_id is None)
        else [],
        reviews=(reviews := _reviews(answer)),
        review=reviews[0] if reviews else None,
        feedback=_feedback(answer, viewer),
        related=_related(answer, trace, viewer),
        parent=parent,
        scope=visible_scope(answer.scope, viewer, existing_at=answer.created_at),
        # A comment on a no-evidence answer may quote the related passages its asker was shown.
        comments_visible=not any(p.status == WITHHELD for p in paragraphs)
        and (answer.state != Answer.State.NO_EVIDENCE or candidates_visible),
        reason=_viewer_reason(answer, trace, visible),
    )
    view.fully_shown = _shown_whole(view, viewer=viewer)
    return view


def _current_versions(passages: list[Any], viewer: Any) -> dict[str, int]:
    """The current version of each document that `passages` (cards or related passages) cite in a superseded
    version, for those the viewer may read (selectors.current_versions: the access rule)."""
    older = {p.source_id for p in passages if not p.is_current}
    return selectors.current_versions(user=viewer, source_ids=older) if older else {}


def _set_current_versions(cards: list[CardView], viewer: Any) -> None:
    """Each card of a superseded version learns its document's current version, when the viewer may read it."""
    current = _current_versions(cards, viewer)
    for card in cards:
        if not card.is_current:
            card.current_version = current.get(card.source_id)


def _viewer_reason(answer: Answer, trace: Trace | None, visible: set[str]) -> str:
    """The no-evidence reason for a viewer who may read the documents `visible` names (as of when the answer was
    made). A reason that says related passages were found is the stored one where every candidate is readable by
    them; otherwise it is read again from the candidates they may read, by the rule it was stored with
    (tiering.related_reason): what became of a passage hidden from them (out of its period, on the topic without
    answering) is not theirs to learn, and where no readable candidate is related, no document matched, for them. A
    model's answer that stated nothing keeps its reason while a passage it was given is readable."""
    if answer.reason not in RELATED_REASONS:
        return answer.reason
    named = [c for c in _trace_candidates(trace) if c.get("source_id")]  # a row without a source_id names no document
    readable = [c for c in named if c.get("source_id") in visible]
    if len(readable) == len(named):
        return answer.reason
    if answer.reason == "nothing_stated" and any(c.get("kept") for c in readable):
        return answer.reason
    rejected = (
        (str(c.get("reason") or ""), _number(c.get("relevance")), _text(c.get("language")))
        for c in readable
        if not c.get("kept")
    )
    return related_reason(rejected, _number(trace.threshold) if trace else None) or "no_match"


def shown_reason(answer: Answer, *, viewer: Any) -> str:
    """The reason `viewer` is given for `answer` (present_answer's `reason`), for a list of answers, where each
    row is not presented: only a no-evidence answer that found related passages is read again."""
    if answer.reason not in RELATED_REASONS:
        return answer.reason
    trace = _trace(answer)
    candidates = {s for s in _candidate_source_ids(trace) if s}
    return _viewer_reason(
        answer, trace, access.visible_source_ids(viewer, among=candidates, existing_at=answer.created_at)
    )


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _thread(trace: Trace | None) -> list[str]:
    """The thread's earlier questions as the trace's settings snapshot kept them when it was asked ([] for none)."""
    thread = (trace.settings_snapshot or {}).get("thread") if trace is not None else None
    if not isinstance(thread, list) or not all(isinstance(q, str) for q in thread):
        return []
    return thread


def _written_in_thread(trace: Trace | None, question: str) -> dict[str, str]:
    """Each term the search read, as the question writes it, else as the thread's earlier questions write it: a
    follow-up's related passages lack the earlier question's words as that question wrote them ("notice", not the
    stem "notic")."""
    asked: dict[str, str] = {}
    for earlier in _thread(trace):
        asked.update(written_as(earlier))
    asked.update(written_as(question))
    return asked


def _thread_terms(trace: Trace | None, question: str) -> list[str]:
    """The words a follow-up's search read besides its question's own: those of what it searched
    (naming.retrieval_text, the one rule: a follow-up that swaps the subject read the previous question less its
    numbers) as the previous question writes them, from the thread the trace's settings snapshot kept when it was
    asked."""
    thread = _thread(trace)
    if not thread:
        return []
    own = set(query_terms(question))
    asked: dict[str, str] = {}
    for earlier in thread:  # a swap chain reads a question before the last one (naming.retrieval_text)
        asked.update(written_as(earlier))
    searched = query_terms(retrieval_text(question, thread))
    return list(dict.fromkeys(asked.get(t, t) for t in searched if t not in own))


def _lacks(missing: object, asked: dict[str, str]) -> tuple[str, ...] | None:
    """The words a related passage does not mention, for the asker: its trace row's missing terms as the
    question writes them (search/explain.py), without function words ("if", "their", "too", "的": the
    answerability check's list), which tell the asker nothing to rephrase; None when the trace did not keep
    them. A Chinese word jieba's HMM glued out of single characters ("单要" of "报销单要在…", "天内交") is no word of
    the question's: its dictionary words of two characters or more stand for it (textproc.glued_pieces), or nothing.
    The reviewer's trace keeps every term."""
    if not isinstance(missing, list):
        return None
    english, chinese = answerability.function_words()
    words: list[str] = []
    for t in missing:
        if isinstance(t, str):
            pieces = glued_pieces(t)
            words.extend([p for p in pieces if len(p) > 1] if pieces else [t])
    content = [t for t in dict.fromkeys(words) if t not in english and t not in chinese]
    return tuple(explain.in_words([], content, asked, "")[1])


def _period(candidate: dict[str, Any]) -> dict[str, str]:
    """A related passage's effective period problem, from its trace row (reason, and the date its facts keep)."""
    reason = str(candidate.get("reason") or "")
    if reason not in ("expired", "not_yet_effective"):
        return {}
    facts = candidate.get("facts")
    date = facts.get("date") if isinstance(facts, dict) else None
    return {"period": reason, "period_date": date if isinstance(date, str) else ""}


def related_excerpt(text: str, question: str) -> str:
    """What a related passage shows of its chunk: all of it when it is short, else the whole sentences around the one
    holding most of the question's words (read across languages too, word by word), within EXCERPT_CHARS, "…" where
    the chunk goes on. The reader sees why the passage was found ("落后24分" of the fourth game's comeback, not the
    chunk's opening on the series), and follows its link for the rest."""
    if len(text) <= EXCERPT_CHARS:
        return text
    spans = list(sentence_spans(text))
    words = set(query_terms(question)) | set(all_terms(translate(question)))
    held = [len(words & set(passage_tokens(text[s:e]))) for s, e in spans]
    best = max(range(len(spans)), key=lambda i: (held[i], -i)) if spans and max(held) > 0 else 0
    lo = hi = best
    grew = True
    while grew:  # the next sentence first: what a sentence says often runs on
        grew = False
        for i in (hi + 1, lo - 1):
            outside = 0 <= i < len(spans) and not lo <= i <= hi
            if outside and spans[max(hi, i)][1] - spans[min(lo, i)][0] <= EXCERPT_CHARS:
                lo, hi, grew = min(lo, i), max(hi, i), True
    start, end = (spans[lo][0], spans[hi][1]) if spans else (0, len(text))
    if end - start > EXCERPT_CHARS:  # one sentence longer than the excerpt: its opening
        end = start + EXCERPT_CHARS - 1
        return ("…" if start > 0 else "") + text[start:end].rstrip() + "…"
    return ("…" if start > 0 else "") + text[start:end] + ("…" if end < len(text.rstrip()) else "")


def _related(answer: Answer, trace: Trace | None, viewer: Any) -> list[RelatedView]:
    """Up to RELATED_SHOWN closest candidates of a no-evidence answer that the viewer may read, however many hidden
    ones rank above them: rejected ones close enough to count as related (pipeline.tiering.is_related), or kept ones
    whose answer stated nothing (`nothing_stated`). Never cited: listed as related."""
    if answer.state != Answer.State.NO_EVIDENCE or trace is None:
        return []
    rejected = [
        c
        for c in _trace_candidates(trace)
        if c.get("chunk_id")
        and (c.get("kept") or is_related(_number(c.get("relevance")), trace.threshold, _text(c.get("language"))))
    ]
    rejected.sort(key=lambda c: (-float(c.get("relevance") or 0.0), str(c.get("chunk_id"))))
    # Every related candidate's chunk is looked for (a trace holds RAG_CANDIDATES rows): cut before the access rule, the
    # list would be left empty for a viewer below as many hidden passages, while their reason says passages were found.
    wanted = [str(c["chunk_id"]) for c in rejected]
    chunks = {
        chunk.chunk_id: chunk
        for chunk in selectors.chunks_visible_to(viewer, existing_at=answer.created_at)
        .filter(chunk_id__in=wanted)
        .select_related("version__document")
    }
    asked = _written_in_thread(trace, answer.question)
    out: list[RelatedView] = []
    for cand in rejected:
        chunk = chunks.get(str(cand["chunk_id"]))
        if chunk is None:  # gone, or not readable by this viewer
            continue
        document = chunk.version.document
        text = related_excerpt(chunk.text, answer.question)
        out.append(
            RelatedView(
                source_id=document.source_id,
                title=document.display_title,
                version=chunk.version.version,
                relevance=cand.get("relevance"),
                excerpt=text,
                url=passage_url(document.source_id, chunk.version.version, chunk.index),
                lacks=_lacks(cand.get("missing"), asked),
                is_current=chunk.version.is_current,
                current_version=chunk.version.version if chunk.version.is_current else None,
                in_force_until=in_force_until(chunk.version),
                **_period(cand),
            )
        )
        if len(out) == RELATED_SHOWN:
            break
    current = _current_versions(out, viewer)  # a passage of a superseded version says which is current, as a card
    return [r if r.is_current else replace(r, current_version=current.get(r.source_id)) for r in out]


def visible_scope(scope: object, viewer: Any, *, existing_at: Any) -> dict[str, list[str]]:
    """The stored scope less what the viewer may not know of: hidden documents and others' groups. A document is
    named only if the one the viewer may read under that source_id existed at `existing_at` (when the answer was
    made): a deleted hidden document's id, reused later, names another document."""
    stored = current_scope(Scope.stored(scope))  # its groups as they are called now (a group renamed since)
    out: dict[str, list[str]] = {}
    levels, groups, documents = list(stored.levels), list(stored.groups), list(stored.documents)
    if levels:
        out["levels"] = levels
    if groups:
        mine = access.group_names(viewer)
        shown = [g for g in groups if mine is None or g in mine]
        if shown:
            out["groups"] = shown
    if documents:
        readable = access.visible_source_ids(viewer, among=documents, existing_at=existing_at)
        shown = [d for d in documents if d in readable]
        if shown:
            out["documents"] = shown
    return out


def _visible_snapshot(snapshot: object, viewer: Any, shown: dict[str, str], *, existing_at: Any) -> dict[str, Any]:
    """The settings snapshot for `viewer`: the scope as they may see it (visible_scope, as of `existing_at`), and of
    what the conflict check recorded only the disagreements they are shown whole (conflict.shown_disagreement, the
    banner's rule, over `shown`: marker -> source_id of each marker-map entry they may read)."""
    if not isinstance(snapshot, dict):
        return {}
    scope = visible_scope(snapshot.get("scope"), viewer, existing_at=existing_at)
    out = {**snapshot, "scope": scope} if "scope" in snapshot else {**snapshot}
    # A marker named as disagreeing is kept only with a disagreement the viewer is shown whole: alone, it would say
    # that a readable source disagrees with a hidden one.
    seen = shown_disagreement(out.get("conflicts"), out.get("conflicting_markers"), shown)
    if isinstance(out.get("conflicts"), list):
        out["conflicts"] = seen.conflicts
    for key in ("conflicting_markers", "statements_added"):
        if isinstance(out.get(key), list):
            out[key] = [m for m in out[key] if m in seen.markers]
    return out


def _without_hidden_names(candidate: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    """A candidate row whose `detail` names a passage or document the viewer may not see (the original a copy
    qualified with, tiering.select; the document the question names, answerability) says only that, not its
    chunk_id, title or score."""
    detail = candidate.get("detail")
    facts = candidate.get("facts")
    said = [detail] if isinstance(detail, str) else []
    if isinstance(facts, dict):  # the same names, as data (decision_detail writes them out)
        said += [v for value in facts.values() for v in (value if isinstance(value, list) else [value])]
    if any(isinstance(text, str) and name in text for text in said for name in hidden):
        shown = {k: v for k, v in candidate.items() if k != "facts"}
        return shown | {"detail": gettext("its reason names a passage of a document you cannot access")}
    return candidate


def _reviews(answer: Answer) -> list[ReviewView]:
    """Every verdict on the answer, newest first: the first is its review status, the others its history."""
    return [
        ReviewView(
            verdict=row.verdict,
            note=row.note,
            reviewer=row.reviewer_name or None,  # kept after the account's deletion
            created_at=row.created_at,
        )
        for row in AnswerReview.objects.filter(answer=answer).order_by("-created_at", "-id")
    ]


def _feedback(answer: Answer, viewer: Any) -> FeedbackView:
    """Counts of readers' current votes and of flags (a replaced vote counts no more: services.feedback)."""
    rows = list(Feedback.objects.filter(answer=answer, replaced_at__isnull=True).values_list("kind", "user_id"))
    if not rows:
        return FeedbackView()
    viewer_pk = getattr(viewer, "pk", None) if getattr(viewer, "is_authenticated", False) else None
    return FeedbackView(
        helpful=sum(1 for kind, _ in rows if kind == Feedback.Kind.HELPFUL),
        not_helpful=sum(1 for kind, _ in rows if kind == Feedback.Kind.NOT_HELPFUL),
        flags=sum(1 for kind, _ in rows if kind != Feedback.Kind.HELPFUL),
        mine=frozenset(kind for kind, user in rows if viewer_pk is not None and user == viewer_pk),
    )


def _shown_whole(view: AnswerPresentation, *, viewer: Any) -> bool:
    """Whether `viewer` (of `view`) is shown all of the answer: no paragraph withheld, and every document its trace
    names (the model's context, the search's candidates) readable by them as of when the answer was made, so that
    trace_for redacts nothing for them (a row that names no document is left out for everyone and withholds nothing
    of a document). A verdict, which clears readers' flags, is recorded only by a reviewer shown all of the answer
    (services.feedback); the provenance page offers the form only to them (AnswerPresentation.fully_shown)."""
    if view.withheld_paragraphs:
        return False
    trace = _trace(view.answer)
    named = {s for s in _context_source_ids(trace) | _candidate_source_ids(trace) if isinstance(s, str) and s}
    return named <= access.visible_source_ids(viewer, among=named, existing_at=view.answer.created_at)


def fully_shown_to(answer: Answer, *, viewer: Any) -> bool:
    """AnswerPresentation.fully_shown, for an answer and a viewer."""
    return present_answer(answer, viewer=viewer).fully_shown


def answer_payload(answer: Answer, *, viewer: Any) -> dict[str, Any]:
    """The answer JSON for `viewer`: the API's body and `ask --json`'s output."""
    return present_answer(answer, viewer=viewer).as_dict()


def _in_words(candidates: list[dict[str, Any]], question: str, viewer: Any) -> list[dict[str, Any]]:
    """The candidates (those of documents the viewer may read) with the question's terms each holds and lacks
    written as the question and its passage write them (search/explain.py); a trace stored before they were
    kept is left as it is. A passage's words are read through the viewer's access rule and only where the
    chunk is of the candidate's own document, whatever the stored trace says."""
    held = [c for c in candidates if isinstance(c.get("held"), list)]
    if not held:
        return candidates
    source_of = {
        str(c.get("chunk_id")): c.get("source_id")
        for c in held
        if any(isinstance(h, dict) and h.get("as") for h in c["held"])
    }
    texts: dict[str, str] = {}
    if source_of:
        rows = (
            selectors.chunks_visible_to(viewer)
            .filter(chunk_id__in=list(source_of))
            .values_list("chunk_id", "text", "version__document__source_id")
        )
        texts = {chunk_id: text for chunk_id, text, source_id in rows if source_of[chunk_id] == source_id}
    asked = written_as(question)
    out: list[dict[str, Any]] = []
    for c in candidates:
        if isinstance(c.get("held"), list):
            words, missing = explain.in_words(c["held"], c.get("missing"), asked, texts.get(str(c.get("chunk_id")), ""))
            c = c | {"held": words, "missing": missing}
        out.append(c)
    return out


def trace_for(answer: Answer, *, viewer: Any) -> dict[str, Any] | None:
    """The answer's trace as `viewer` may see it, or None when it has none.

    Candidates and marker-map entries of documents the viewer cannot read are left out (`withheld`
    counts them); when any is, or when a cited document is out of reach, the context, prompt and
    raw model output, which quote them, are withheld as a whole (`redacted`). The question's terms each
    candidate holds and lacks are written as words (`_in_words`).
    """
    trace = _trace(answer)
    if trace is None:
        return None
    candidates = _trace_candidates(trace)
    marker_map = trace.marker_map if isinstance(trace.marker_map, dict) else {}
    named = {c.get("source_id") for c in candidates} | _context_source_ids(trace)
    cited = set(
        AnswerParagraph.objects.filter(answer=answer).values_list(
            "citations__chunk__version__document__source_id", flat=True
        )
    )
    cited.discard(None)
    visible = access.visible_source_ids(
        viewer, among={s for s in named | cited if isinstance(s, str)}, existing_at=answer.created_at
    )
    hidden = {
        str(name)
        for row in [*candidates, *(e for e in marker_map.values() if isinstance(e, dict))]
        if row.get("source_id") not in visible
        for name in (row.get("chunk_id"), row.get("source_id"), row.get("title"))
        if name
    }
    kept_candidates = _in_words(
        [_without_hidden_names(c, hidden) for c in candidates if c.get("source_id") in visible], answer.question, viewer
    )
    kept_markers = {
        key: entry
        for key, entry in marker_map.items()
        if not isinstance(entry, dict) or entry.get("source_id") in visible
    }
    redacted = len(kept_candidates) < len(candidates) or len(kept_markers) < len(marker_map) or not cited <= visible
    return {
        "answer_id": answer.pk,
        "threshold": trace.threshold,
        "candidates": kept_candidates,
        "context": "" if redacted else trace.context,
        "prompt": "" if redacted else trace.prompt,
        "marker_map": kept_markers,
        "raw_output": "" if redacted else trace.raw_output,
        # A malformed marker is kept with the model's words around it ("[S1: rises 4.5 pct]"), which may quote the
        # context: withheld with it.
        "dropped_markers": [] if redacted or not isinstance(trace.dropped_markers, list) else trace.dropped_markers,
        "settings_snapshot": _visible_snapshot(
            trace.settings_snapshot,
            viewer,
            {k: str(e["source_id"]) for k, e in kept_markers.items() if isinstance(e, dict) and e.get("source_id")},
            existing_at=answer.created_at,
        ),
        "error": "" if redacted else trace.error,
        "withheld": len(candidates) - len(kept_candidates),
        "redacted": redacted,
    }


__all__ = [
    "NO_EVIDENCE_REASONS",
    "WITHHELD",
    "WITHHELD_TEXT",
    "AnswerPresentation",
    "CardView",
    "ParagraphView",
    "SourceView",
    "answer_payload",
    "chunk_url",
    "fully_shown_to",
    "passage_url",
    "present_answer",
    "shown_reason",
    "trace_for",
]
