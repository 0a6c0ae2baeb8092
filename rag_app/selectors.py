"""Reads with permissions: documents, versions, chunks, levels and answers as a given user may see them.

Roles and the document visibility rule are defined once in rag_app.access (staff < reviewer <
admin; a document with no access groups is visible to all staff, otherwise only to members of one
of its groups; admins see all). Every read here goes through them, so the API, the htmx views and
search filtering agree: an invisible document, chunk or answer is simply not found.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import BooleanField, Count, Exists, ExpressionWrapper, F, OuterRef, Q, QuerySet, Subquery
from django.db.models.expressions import RawSQL
from django.db.models.functions import Coalesce, Greatest
from django.utils import timezone

from rag_app.access import is_reviewer, is_staff_member, reach, visible_documents
from rag_app.models import (
    Answer,
    AnswerParagraph,
    AnswerReview,
    Chunk,
    Citation,
    Document,
    DocumentEvent,
    DocumentVersion,
    Feedback,
    LevelChange,
    SourceLevel,
)
from rag_app.pipeline.textproc import fold, has_cjk


def _storable(identifier: str) -> bool:
    """An id with a NUL byte cannot exist (PostgreSQL rejects NUL in text), so it is not found."""
    return "\x00" not in identifier


def documents_visible_to(user: Any) -> QuerySet[Document]:
    """Documents `user` may see; the rule itself lives in rag_app.access.visible_documents."""
    return visible_documents(user)


def chunks_visible_to(user: Any, *, existing_at: Any = None) -> QuerySet[Chunk]:
    """Chunks of every version (current or not) of the documents `user` may see. With `existing_at` (when an
    answer was made), only of documents that existed then, as access.visible_source_ids counts them: a deleted
    document's source_id reused later names another document, whose chunks carry the same chunk_ids."""
    chunks = Chunk.objects.filter(version__document__in=documents_visible_to(user).values("pk"))
    return chunks if existing_at is None else chunks.filter(version__document__created_at__lte=existing_at)


def current_versions(*, user: Any, source_ids: Iterable[str]) -> dict[str, int]:
    """The current version number of each of the documents `source_ids` names that `user` may read (access rule:
    documents_visible_to); a document they may not read is absent."""
    return dict(
        DocumentVersion.objects.filter(
            is_current=True,
            document__in=documents_visible_to(user).filter(source_id__in=list(source_ids)).values("pk"),
        ).values_list("document__source_id", "version")
    )


def _with_details(documents: QuerySet[Document]) -> QuerySet[Document]:
    """Annotated with `current_version_number` and `last_changed`: when the document last changed, its text (the
    current version's upload) or its record (title, level, access, retirement), whichever is later: the library
    page's "Updated" and the API's `updated_at` (a new version does not save the document's own row)."""
    current = DocumentVersion.objects.filter(document=OuterRef("pk"), is_current=True)
    return (
        documents.select_related("level")
        .prefetch_related("groups")
        .annotate(
            current_version_number=Subquery(current.values("version")[:1]),
            last_changed=Greatest(
                F("updated_at"), Coalesce(Subquery(current.values("created_at")[:1]), F("updated_at"))
            ),
        )
    )


def document_get(*, user: Any, source_id: str) -> Document | None:
    """The document, or None when it does not exist or `user` may not see it (the same answer: 404).

    Annotated with `current_version_number` (None for a document without versions).
    """
    if not _storable(source_id):
        return None
    return _with_details(documents_visible_to(user)).filter(source_id=source_id).first()


def document_details(*, document: Document) -> Document:
    """`document` re-read with the annotations document outputs need (for the writer who just changed it)."""
    return _with_details(Document.objects.filter(pk=document.pk)).get()


def document_for_operator(*, source_id: str) -> Document | None:
    """Any document by source_id, for the operator's management commands (no visibility applies)."""
    if not _storable(source_id):
        return None
    return Document.objects.filter(source_id=source_id).first()


def document_list(
    *, user: Any, level: str | None = None, query: str | None = None, active_only: bool = False
) -> QuerySet[Document]:
    """Visible documents by source_id, optionally of one level or matching `query` in id or title
    (`_matching`: in either script and width, as a question matches a passage).

    Annotated as _with_details has it; groups are prefetched.
    """
    if not _storable(level or "") or not _storable(query or ""):
        return Document.objects.none()
    documents = documents_visible_to(user)
    if level:
        documents = documents.filter(level__slug=level)
    if active_only:  # what can still answer questions (the scope picker)
        documents = documents.filter(retired_at__isnull=True)
    if query:
        documents = _matching(documents, query)
    return _with_details(documents).order_by("source_id")


def _matching(documents: QuerySet[Document], query: str) -> QuerySet[Document]:
    """The documents whose source_id or title holds `query` (`_holding`), so the library, the scope picker and the API
    find "猴面包树" from "猴麵包樹" and "MIT" from "ＭＩＴ"."""
    return _holding(documents, query, ("source_id", "title"))


def _holding(rows: QuerySet[Any], query: str, fields: tuple[str, ...]) -> QuerySet[Any]:
    """The rows one of whose text `fields` holds `query` as written (the database's case-insensitive containment) or
    in the matching form of the search (textproc.fold: either Chinese script, full-width letters and digits as ASCII,
    without zero-width characters). The fold runs in Python over the rows' fields (the database has no such
    function); the rows whose fields do not hold the query exactly as typed are named (a superset of those the
    database's case-insensitive test misses: SQLite folds the case of ASCII letters only, so "É" against "é" is left
    to the fold). One rule for the document search and "My questions"."""
    typed = Q()
    for name in fields:
        typed |= Q(**{f"{name}__icontains": query})
    wanted = _matching_form(query).strip()
    if not wanted:
        return rows.filter(typed)
    extra = [
        pk
        for pk, *values in rows.values_list("pk", *fields).iterator()
        if any(wanted in _matching_form(v or "") for v in values) and not any(query in (v or "") for v in values)
    ]
    return rows.filter(typed | Q(pk__in=extra))


# A space between a Chinese character and a Latin letter or digit, which one writer puts ("GPL 第三版") and another
# leaves out ("GPL第三版"): not part of what a search must match.
_CJK_LATIN_GAP = re.compile(r"(?<=[\u3400-\u9fff])\s+(?=[0-9a-z])|(?<=[0-9a-z])\s+(?=[\u3400-\u9fff])")


def _matching_form(text: str) -> str:
    """What `_holding` compares: the search's fold (textproc.fold), without the spaces between Chinese and Latin
    characters ("GPL第三版" finds "GPL 第三版…", a user trial found nothing)."""
    return _CJK_LATIN_GAP.sub("", fold(text))


def document_versions(*, document: Document) -> QuerySet[DocumentVersion]:
    """Every version of `document`, newest first, with `chunk_count` annotated."""
    return document.versions.annotate(chunk_count=Count("chunks")).order_by("-version")


def answers_citing_document(*, document: Document) -> QuerySet[Answer]:
    """Answers with a citation of any version of `document` (what a deletion would take with it).

    For admins deciding on a document they may read; not a read of the answers themselves.
    """
    citing = Answer.objects.filter(paragraphs__citations__chunk__version__document=document).values("pk")
    return Answer.objects.filter(pk__in=citing).order_by("-created_at", "-id")


def documents_restricted_to(*, groups: Iterable[Any]) -> QuerySet[Document]:
    """Every document with one of `groups` among its access groups (what deleting them would open to all staff).

    For the Django admin's group deletion, a superuser's page: not filtered by reach."""
    return Document.objects.filter(groups__in=list(groups)).distinct().order_by("source_id")


def document_events(*, document: Document) -> QuerySet[DocumentEvent]:
    """The retire / restore log of a document the caller may read, newest first."""
    return DocumentEvent.objects.filter(document=document).select_related("user")


def chunk_get(*, user: Any, chunk_id: str) -> Chunk | None:
    """The chunk with its version and document, or None when unknown or not visible to `user`."""
    if not _storable(chunk_id):
        return None
    return chunks_visible_to(user).select_related("version__document__level").filter(chunk_id=chunk_id).first()


def level_list() -> QuerySet[SourceLevel]:
    return SourceLevel.objects.order_by("-weight", "slug")


def feedback_for_review(*, answer: Answer) -> QuerySet[Feedback]:
    """Every reader's feedback on the answer, newest first, for the provenance page."""
    return Feedback.objects.filter(answer=answer).select_related("user", "citation")


def level_labels() -> dict[str, str]:
    """slug -> label today: the replay's rows (retrieved now), and a trace row stored before traces kept the label
    (an answer's citations keep theirs, Citation.level_label)."""
    return dict(SourceLevel.objects.values_list("slug", "label"))


def answers_visible_to(user: Any) -> QuerySet[Answer]:
    """A user's own answers; reviewers and admins see all of them."""
    if not is_staff_member(user):
        return Answer.objects.none()
    if is_reviewer(user):
        return Answer.objects.all()
    return Answer.objects.filter(user=user)


ANSWER_STATUSES = ("insufficient", "weak", "conflict", "flagged")


def _unanswered(flags: QuerySet[Feedback]) -> QuerySet[Feedback]:
    """The open ones of `flags`: readers' flags that no reviewer verdict has answered yet (a verdict recorded at or
    after the flag answers it; a "not helpful" vote its reader has since replaced flags no more)."""
    later_review = AnswerReview.objects.filter(answer=OuterRef("answer"), created_at__gte=OuterRef("created_at"))
    return flags.filter(replaced_at__isnull=True).exclude(kind=Feedback.Kind.HELPFUL).filter(~Exists(later_review))


def _open_flags() -> QuerySet[Feedback]:
    """The open flags of the outer answer (a subquery of answer_list)."""
    return _unanswered(Feedback.objects.filter(answer=OuterRef("pk")))


def open_flags(answer: Answer) -> QuerySet[Feedback]:
    """The answer's open flags (services.feedback: a flag sent again while it is open is that flag)."""
    return _unanswered(Feedback.objects.filter(answer=answer))


def answer_list(
    *,
    user: Any,
    state: str | None = None,
    username: str | None = None,
    source_id: str | None = None,
    date_from: dt.date | None = None,
    date_to: dt.date | None = None,
    status: str | None = None,
) -> QuerySet[Answer]:
    """Answers `user` may see, newest first, filtered for review.

    `status` picks a review flag: "insufficient" (a paragraph without evidence), "weak" (a citation
    that barely supports its paragraph), "conflict" (sources disagree), "flagged" (a reader flagged the
    answer or one of its citations, or asked for a reviewer, and no verdict has followed).
    `source_id`: answers citing
    that document. Dates are inclusive days in the current time zone.
    """
    answers = answers_visible_to(user).select_related("user")
    if state:
        answers = answers.filter(state=state)
    if status in ("insufficient", "weak", "conflict"):
        answers = answers.filter(_shown_flags(user)[f"{status}_shown"])
    elif status == "flagged":
        answers = answers.filter(Exists(_open_flags()))
    if username:
        answers = answers.filter(user__username=username)
    if source_id:
        # Over visible documents only: a hidden source_id matches nothing, like an unknown one.
        document = documents_visible_to(user).filter(source_id=source_id).values("pk")
        answers = answers.filter(paragraphs__citations__chunk__version__document__in=document)
    tz = timezone.get_current_timezone()
    if date_from and (start := _instant(date_from, dt.time.min, tz)) is not None:
        answers = answers.filter(created_at__gte=start)
    if date_to and (end := _instant(date_to, dt.time.max, tz)) is not None:
        answers = answers.filter(created_at__lte=end)
    return answers.distinct().order_by("-created_at", "-id")


def _instant(day: dt.date, time: dt.time, tz: dt.tzinfo) -> dt.datetime | None:
    """`day` at `time` in `tz`, or None where that instant lies outside what a datetime holds in UTC (0001-01-01
    00:00 east of UTC, 9999-12-31 23:59 west of it): a bound past the calendar's edge bounds nothing, and the
    database (SQLite's backend converts to UTC in Python) would overflow on it."""
    instant = dt.datetime.combine(day, time, tz)
    try:
        instant.astimezone(dt.UTC)
    except OverflowError:
        return None
    return instant


def _shown_flags(user: Any) -> dict[str, Q]:
    """The review flags as `user` may see them: only on an answer whose paragraphs are all shown to them
    (presentation.present_answer: every cited document readable and, for a model's answer or a quotation left without
    its citations, every passage its context held). A conflict with one hidden side would only tell them that a hidden
    document disagrees, and a weak or insufficient paragraph may be one withheld from them. To such a viewer every
    citation is shown, so the stored conflict flag is what the banner shows them: it is the banner's rule
    (conflict.shown_disagreement) applied when the answer was stored, for a viewer shown every citation
    (services.answers._conflict_shown)."""
    hidden_citation = Citation.objects.filter(paragraph__answer=OuterRef("pk")).exclude(
        chunk__version__document__in=documents_visible_to(user).values("pk")
    )
    # The stored flag first: the database reads the rest only for answers that carry it.
    # Those who read everything read a deleted document's passages too (access.visible_source_ids).
    # A quotation is shown by its own citations alone; a paragraph without one (a quoted label that stated nothing,
    # whose citations support.apply_support dropped) needs the whole context readable, as presentation.present_answer
    # reads each paragraph.
    uncited = AnswerParagraph.objects.filter(answer=OuterRef("pk"), citations__isnull=True)
    quotations = Q(mode=Answer.Mode.EXTRACTIVE) & ~Q(Exists(uncited))
    context = Q() if reach(user).everything else quotations | Q(_context_readable(user))
    readable = ~Q(Exists(hidden_citation)) & context
    # A banner names two documents (presentation.present_answer): a conflict stored before the flag was the banner's
    # rule (services.answers._conflict_shown) and citing one document names none.
    two_sides = (
        Citation.objects.filter(paragraph__answer=OuterRef("pk"))
        .values("paragraph__answer")
        .annotate(sides=Count("chunk__version__document", distinct=True))
        .filter(sides__gte=2)
    )
    return {
        "conflict_shown": Q(conflict=True) & Q(Exists(two_sides)) & readable,
        # A weak mark is shown on a linked paragraph only (an insufficient one says so instead).
        "weak_shown": Q(
            Exists(AnswerParagraph.objects.filter(answer=OuterRef("pk"), weak=True, evidence_status="linked"))
        )
        & readable,
        "insufficient_shown": (
            Q(has_insufficient=True)
            | Q(Exists(AnswerParagraph.objects.filter(answer=OuterRef("pk"), evidence_status="insufficient")))
        )
        & readable,
    }


def mark_shown_flags(rows: list[Answer], *, user: Any) -> None:
    """Set `conflict_shown`, `weak_shown` and `insufficient_shown` (_shown_flags) and `flagged` (readers' flags no
    verdict has answered yet: the "flagged" filter's rule) on one page of answer_list's rows, in one query over those
    rows only (annotated on the whole list, they cost 4 s per count of 12k answers on SQLite)."""
    flags = {**_shown_flags(user), "flagged": Q(Exists(_open_flags()))}
    found = {
        pk: values
        for pk, *values in Answer.objects.filter(pk__in=[r.pk for r in rows])
        .annotate(**{name: ExpressionWrapper(q, output_field=BooleanField()) for name, q in flags.items()})
        .values_list("pk", *flags)
    }
    for row in rows:
        for name, value in zip(flags, found.get(row.pk, [False] * len(flags)), strict=True):
            setattr(row, name, bool(value))


def _context_readable(user: Any) -> RawSQL:
    """Whether every passage an answer's context held (its trace's marker map) is of a document `user` may read
    that existed when the answer was made (an entry without a source_id counts as hidden, as
    presentation._context_source_ids counts it; a deleted hidden document's source_id reused later names another
    document, as access.visible_source_ids(existing_at=) reads it)."""
    visible_sql, visible_params = documents_visible_to(user).values("pk").query.sql_with_params()
    if connection.vendor == "postgresql":
        each, source = "jsonb_each(t.marker_map)", "(m.value ->> 'source_id')"
    else:
        each, source = "json_each(t.marker_map)", "json_extract(m.value, '$.source_id')"
    readable = (
        f"SELECT 1 FROM {Document._meta.db_table} d WHERE d.source_id = {source}"  # noqa: S608 - constants
        f" AND d.created_at <= rag_app_answer.created_at AND d.id IN ({visible_sql})"
    )
    return RawSQL(  # noqa: S611 - constant SQL around the queryset's own placeholders
        f"NOT EXISTS (SELECT 1 FROM rag_app_trace t, {each} m WHERE t.answer_id = rag_app_answer.id"  # noqa: S608
        f" AND ({source} IS NULL OR NOT EXISTS ({readable})))",
        visible_params,
        output_field=BooleanField(),
    )


def answer_get(*, user: Any, answer_id: int) -> Answer | None:
    """One answer if `user` may see it (their own; any for reviewers), else None."""
    return answers_visible_to(user).select_related("user").filter(pk=answer_id).first()


def _thread_answers(user: Any) -> QuerySet[Answer]:
    """The answers `user` may continue or be shown as a follow-up's parent: answers_visible_to; the system
    (`user=None`, `manage.py ask` without --user) the answers it asked itself."""
    return Answer.objects.filter(user__isnull=True) if user is None else answers_visible_to(user)


def thread_parent(*, user: Any, answer_id: int) -> Answer | None:
    """The answer a follow-up continues (the page's form, the API's `parent_id`, `manage.py ask --parent`) or names
    as its parent (presentation), if `user` may see it (_thread_answers)."""
    return _thread_answers(user).select_related("user").filter(pk=answer_id).first()


def thread_parents(*, user: Any, answers: Iterable[Answer]) -> dict[int, Answer]:
    """thread_parent for a list's answers in one query: by answer id, the answer each continues that `user` may see
    (question and id only; "My questions")."""
    answers = list(answers)
    ids = {a.parent_id for a in answers if a.parent_id}
    if not ids:
        return {}
    parents = {p.pk: p for p in _thread_answers(user).filter(pk__in=ids).only("id", "question")}
    return {a.pk: parents[a.parent_id] for a in answers if a.parent_id in parents}


def answer_history(*, user: Any, query: str | None = None) -> QuerySet[Answer]:
    """The user's own questions, newest first; with `query`, those whose question holds it (`_holding`: any case,
    either Chinese script or width). A query with a NUL byte holds none (`_storable`; PostgreSQL would refuse it)."""
    if not _storable(query or "") or not is_staff_member(user):
        return Answer.objects.none()
    answers = Answer.objects.filter(user_id=user.pk)
    if query:
        answers = _holding(answers, query, ("question",))
    return answers.order_by("-created_at", "-id")


def level_changes_visible_to(user: Any) -> QuerySet[LevelChange]:
    """The level audit log, less changes to documents `user` may not see (level-wide changes stay). A deleted
    document's changes (document NULL, its source_id kept) are readable only by those who read everything, as its
    passages are (access.visible_source_ids): who could read it is no longer known."""
    level_wide = Q(document__isnull=True, source_id="")
    deleted = Q(document__isnull=True) & ~Q(source_id="") if reach(user).everything else Q(pk__in=[])
    return LevelChange.objects.filter(
        level_wide | deleted | Q(document__in=documents_visible_to(user).values("pk"))
    ).select_related("user", "document", "level")


def version_chunks(*, version: DocumentVersion) -> QuerySet[Chunk]:
    """One version's chunks in reading order (the caller pages them)."""
    return version.chunks.order_by("index")


def corpus_overview(*, user: Any) -> dict[str, Any]:
    """What the user may ask about: readable active (not retired) documents per level, and when the newest
    version arrived."""
    documents = documents_visible_to(user).filter(retired_at__isnull=True)
    by_level = (
        documents.values("level__slug", "level__label", "level__weight")
        .annotate(count=Count("pk"))
        .order_by("-level__weight", "level__slug")
    )
    updated = (
        DocumentVersion.objects.filter(document__in=documents.values("pk"), is_current=True)
        .order_by("-created_at")
        .values_list("created_at", flat=True)
        .first()
    )
    levels = [{"slug": row["level__slug"], "label": row["level__label"], "count": row["count"]} for row in by_level]
    return {"documents": sum(row["count"] for row in levels), "levels": levels, "updated": updated}


# A section heading's number: "1. ", "4.2 ", "第二条 ", "一、".
_SECTION_NUMBER_RE = re.compile(
    r"^\s*(?:\d+(?:\.\d+)*\.\s+|\d+(?:\.\d+)+\s+|第[一二三四五六七八九十百零〇\d]+[条章节]\s*|[一二三四五六七八九十]+、\s*)"
)


def _names_the_document(topic: str, name: str) -> bool:
    """Whether a section's topic only names its document: one holds the other, word for word in Latin script ("Acme
    Corp Travel and Expense Policy" of "Travel and Expense Policy"; not "Security" of "IT"), as a string in Chinese."""
    a, b = topic.casefold(), name.casefold()
    if has_cjk(a) or has_cjk(b):
        return a in b or b in a
    words, named = f" {' '.join(a.split())} ", f" {' '.join(b.split())} "
    return words in named or named in words


def example_questions(*, user: Any, limit: int = 4) -> list[str]:
    """Questions drawn from the corpus the user may read: a section of each of the most recently
    updated documents, asked in that document's language. A section named as the document is (its opening heading,
    "Acme Corp Travel and Expense Policy" of "Travel and Expense Policy") is no topic of it: a later one is asked
    about, without its number ("1. Booking travel", "第二条 报销时限", "一、年假")."""
    rows = (
        Chunk.objects.filter(
            version__is_current=True,
            version__document__in=documents_visible_to(user).filter(retired_at__isnull=True).values("pk"),
        )
        .exclude(section="")
        .order_by("-version__created_at", "version__document__source_id", "index")
        .values_list("version__document__source_id", "version__document__title", "version__language", "section")[:400]
    )
    examples: list[str] = []
    seen: set[str] = set()
    for source_id, title, language, section in rows:
        if source_id in seen:
            continue
        topic = _SECTION_NUMBER_RE.sub("", section.split(" > ")[-1]).strip().rstrip("。.:：")
        name = title or source_id
        if not topic or _names_the_document(topic, name):
            continue
        seen.add(source_id)
        if language == "zh":
            examples.append(f"《{name}》中关于“{topic}”是怎么说的？")
        else:
            examples.append(f"What does “{name}” say about {topic}?")
        if len(examples) == limit:
            break
    return examples
