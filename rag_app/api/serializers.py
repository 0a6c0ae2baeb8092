"""Output serializers shared by several endpoints, the strict input base, and the error shape.

Output serializers only project already-decided data; they declare every field so the OpenAPI
schema is exact (schemathesis checks responses against it). Per-operation input serializers
are nested in their views.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from typing import Any

from django.core.validators import ProhibitNullCharactersValidator, RegexValidator
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from rag_app import access
from rag_app.models import Answer, AnswerParagraph, AnswerReview, Feedback, SourceLevel
from rag_app.pipeline.records import ChunkRecord
from rag_app.presentation import WITHHELD
from rag_app.validation import MAX_COMMENT_CHARS, MAX_QUESTION_CHARS, clean_question

_NUL_MESSAGE = gettext_lazy("Null characters are not allowed.")


class QueryText(serializers.CharField):
    """A text query parameter. A NUL character is refused (400) once, in the reader's language, by a pattern the schema
    shows, so a client (and the schema fuzz test) knows that such a value is not valid input; DRF's own NUL rule, which
    said it again (and in Chinese as "不允许是用空字符串"), is left out."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("validators", []).append(RegexValidator(r"^[^\x00]*$", _NUL_MESSAGE))
        super().__init__(**kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)]


class TextItem(serializers.CharField):
    """One text of a JSON list (a scope's levels, groups or documents): a JSON string, as a text field of the body must
    be (StrictInput); DRF would read the number 1.5 as the name "1.5"."""

    default_error_messages = {"not_text": gettext_lazy("Must be a string.")}

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("not_text")
        return super().to_internal_value(data)


@extend_schema_field({"type": "string", "minLength": 1, "maxLength": MAX_QUESTION_CHARS})
class QuestionField(serializers.Field):
    """A question, judged by validation.clean_question alone (the page's and the CLI's one rule): no length,
    blank, trim or NUL rule of DRF's answers first. A refused question raises InvalidQuestion, which the error
    handler answers with the rule's own code (empty_question, question_too_long, invalid_question) and message."""

    allow_blank = True  # StrictInput leaves blanks to the rule too

    def run_validation(self, data: Any = serializers.empty) -> Any:
        if data is serializers.empty:
            return super().run_validation(data)  # not sent at all: "This field is required."
        clean_question(data)  # refused here, before the scope or the parent is looked at
        return data  # as typed: services.ask cleans it (a cleaned text is no longer measured as typed)

    def to_representation(self, value: Any) -> Any:
        return value


@extend_schema_field({"type": "string", "maxLength": MAX_COMMENT_CHARS})
class CommentField(serializers.CharField):
    """A comment or review note, passed as sent to the service, whose validation.clean_comment judges it (length as
    typed, characters) as for the page: no length or NUL rule of DRF's answers first."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(allow_blank=True, trim_whitespace=False, **kwargs)
        self.validators = [v for v in self.validators if not isinstance(v, ProhibitNullCharactersValidator)]


class NamedRelatedField(serializers.SlugRelatedField):
    """DRF's SlugRelatedField, but a name holding a NUL is refused before the lookup (PostgreSQL's text cannot hold
    one: a DataError, a 500); it names nothing, like any unknown name."""

    default_error_messages = {
        **serializers.SlugRelatedField.default_error_messages,
        "not_text": gettext_lazy("Must be a string."),
    }

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, str):
            self.fail("not_text")  # a JSON number is no name: DRF looked up "name=1"
        if "\x00" in data:
            self.fail("does_not_exist", slug_name=self.slug_field, value=data.replace("\x00", "\\x00"))
        return super().to_internal_value(data)


class LevelField(NamedRelatedField):
    """A source level by its slug; an unknown one is refused naming the known ones, as `manage.py ingest` does (DRF
    said "Object with slug=secret does not exist.")."""

    default_error_messages = {
        **NamedRelatedField.default_error_messages,
        "does_not_exist": gettext_lazy("Unknown level {value}; known levels: {known}."),
    }

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(slug_field="slug", queryset=SourceLevel.objects.all(), **kwargs)

    def fail(self, key: str, **kwargs: Any) -> Any:
        if key == "does_not_exist":
            known = ", ".join(SourceLevel.objects.order_by("-weight", "slug").values_list("slug", flat=True))
            kwargs = {"value": repr(kwargs.get("value")), "known": known or "—"}
        return super().fail(key, **kwargs)


class GroupField(NamedRelatedField):
    """An access group by its name; a role group or an unknown one is refused as the upload service refuses it
    (access.check_access_groups; DRF said "Object with name=HR-Comp does not exist.")."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(slug_field="name", queryset=access.access_groups(), **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, str) and "\x00" not in data:
            try:
                access.check_access_groups([data])
            except access.NotAccessGroups as exc:
                raise serializers.ValidationError(str(exc), code=exc.code) from None
        return super().to_internal_value(data)

    def fail(self, key: str, **kwargs: Any) -> Any:
        if key == "does_not_exist":  # a name with a NUL, refused unread (its value here shows it escaped)
            try:
                access.check_access_groups([str(kwargs.get("value"))])
            except access.NotAccessGroups as exc:
                raise serializers.ValidationError(str(exc), code=key) from None
        return super().fail(key, **kwargs)


class CalendarDateField(serializers.DateField):
    """A YYYY-MM-DD date; one written so that names no day ("2026-02-30", "2026-13-01") is refused as no such date,
    not as a wrong format (DRF said "Date has wrong format" of a date in the very format it asked for)."""

    default_error_messages = {
        **serializers.DateField.default_error_messages,
        "no_such_date": gettext_lazy("There is no such date: {value}."),
    }

    def to_internal_value(self, value: Any) -> Any:
        if isinstance(value, str) and _ISO_DATE_RE.fullmatch(value.strip()):
            try:
                dt.date.fromisoformat(value.strip())
            except ValueError:
                self.fail("no_such_date", value=value.strip())
        return super().to_internal_value(value)


_ISO_DATE_RE = re.compile(r"\d{4}-\d{2}-\d{2}")


class StrictInput(serializers.Serializer):
    """Rejects what DRF would quietly accept: undeclared fields, a field sent twice, and a value of the wrong type.

    DRF turns 42 into "42" for a text field, true into 1.0 and "3" into 3.0 for a number, "1" and 1.0 into 1 for an
    integer, and keeps the last of `?state=a&state=b`; a client sending those has a bug it should hear about, so each
    is a 400 naming the field. In a query string or a form body every value is text: an integer there is written in
    digits alone ("1", never "1.0" or " 1", which DRF would read as 1 and the paginator then ignore).
    """

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, Mapping):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: [gettext("Unknown field.")] for name in unknown})
            text = hasattr(data, "getlist")  # a QueryDict: a query string or a form body
            wrong = {
                name: [message]
                for name, field in self.fields.items()
                if name in data and (message := _wrong_type(field, data, name, text=text)) is not None
            }
            if wrong:
                raise serializers.ValidationError(wrong)
        return super().to_internal_value(data)


_DIGITS = re.compile(r"-?[0-9]+")


def _wrong_type(field: serializers.Field, data: Any, name: str, *, text: bool) -> str | None:
    if isinstance(field, serializers.ManyRelatedField | serializers.ListField):
        return None  # a list field reads its own values (a form body's last value says nothing)
    if text and len(data.getlist(name)) > 1:
        return gettext("Sent more than once: give one value.")
    value = data[name]
    if value is None:
        return None  # the field itself decides whether null is allowed
    if value == "" and not getattr(field, "allow_blank", False):
        # DRF reads a blank form or query value of an optional field as "not sent"; say it instead.
        return gettext("This field may not be blank.")
    if isinstance(field, serializers.CharField | serializers.ChoiceField) and not isinstance(value, str):
        return gettext("Must be a string.")
    if isinstance(field, serializers.IntegerField):
        whole = isinstance(value, str) and _DIGITS.fullmatch(value) is not None if text else type(value) is int
        return None if whole else str(field.error_messages["invalid"])
    if isinstance(field, serializers.FloatField) and not text and type(value) not in (int, float):
        return gettext("Must be a number.")
    return None


class BlankAsNullField(serializers.CharField):
    """An optional text the document may not have: shown as null, never as an invented value (rule 7)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> str | None:  # type: ignore[override]
        return None if value in (None, "") else str(value)


class ErrorOutput(serializers.Serializer):
    code = serializers.CharField(help_text="Machine-readable error code, e.g. invalid, not_found, too_large.")
    detail = serializers.CharField(help_text="What is wrong, for a person.")


# "fields" would shadow Serializer.fields as a class attribute, so it is declared after the class.
ErrorOutput._declared_fields["fields"] = serializers.DictField(
    child=serializers.ListField(child=serializers.CharField()),
    required=False,
    help_text="Validation errors by field name (only on 400 invalid input).",
)


class LevelOutput(serializers.Serializer):
    slug = serializers.SlugField()
    label = serializers.CharField()  # type: ignore[assignment]  # a field, not Field.label (DRF pops it)
    weight = serializers.FloatField()
    description = serializers.CharField(allow_blank=True)


class DocumentOutput(serializers.Serializer):
    source_id = serializers.CharField()
    title = BlankAsNullField()
    display_title = serializers.CharField()
    url = BlankAsNullField()
    level = serializers.CharField(source="level.slug", allow_null=True)
    groups = serializers.SerializerMethodField(help_text="Access groups; empty = all staff.")
    current_version = serializers.IntegerField(source="current_version_number", allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField(
        source="last_changed",
        help_text="When the document last changed: a new version of its text or its record (title, level, access,"
        " retirement), whichever is later; the library page's 'Updated'.",
    )
    retired_at = serializers.DateTimeField(
        allow_null=True, help_text="When it was retired (no longer used for new answers); null = active."
    )

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_groups(self, document: Any) -> list[str]:
        return sorted(group.name for group in document.groups.all())


class IngestProgressOutput(serializers.Serializer):
    done = serializers.IntegerField(help_text="Chunks embedded and indexed so far.")
    total = serializers.IntegerField(help_text="Chunks in the file (0 until it is chunked).")


class IngestResultOutput(serializers.Serializer):
    source_id = serializers.CharField()
    status = serializers.CharField(help_text="new, updated, unchanged, or error (done for a re-index job).")
    line = serializers.CharField(
        help_text="`<source_id> v<n> <k> chunks new|updated|unchanged`, or `<source_id> error <code>: <message>`."
    )
    version = serializers.IntegerField(required=False)
    chunks = serializers.IntegerField(required=False)
    error = serializers.CharField(
        required=False,
        help_text="Error code, e.g. unsupported_type, legacy_format (an old .doc, .xls or .ppt: save it as .docx,"
        " .xlsx or .pptx), encrypted, empty, no_text_layer (a scanned PDF).",
    )
    message = serializers.CharField(required=False, help_text="What is wrong with the file, for a person.")
    groups_kept = serializers.BooleanField(
        required=False,
        help_text="Present (true) when the groups sent were not applied: another admin set the document's access "
        "after this file was queued, and that access was kept.",
    )
    retired = serializers.BooleanField(
        required=False,
        help_text="Present (true) when the document is retired: the version is stored, and no answer uses it until "
        "an admin restores the document.",
    )


class IngestJobOutput(serializers.Serializer):
    id = serializers.IntegerField()
    state = serializers.CharField(help_text="queued, running, done or failed.")
    kind = serializers.CharField(
        help_text="ingest (a file), reembed (a document's vectors made again, queued by a rename; no file_name) or"
        " reindex (the corpus's search index)."
    )
    source_id = serializers.CharField()
    file_name = serializers.CharField(allow_blank=True)
    progress = IngestProgressOutput()
    results = IngestResultOutput(many=True, help_text="One entry per file: its ingest line or its error.")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class VersionOutput(serializers.Serializer):
    version = serializers.IntegerField()
    is_current = serializers.BooleanField()
    sha256 = serializers.CharField()
    file_name = serializers.CharField(allow_blank=True)
    mime = serializers.CharField(allow_blank=True)
    size_bytes = serializers.IntegerField()
    language = serializers.CharField(allow_blank=True)
    effective_from = serializers.DateField(allow_null=True)
    effective_until = serializers.DateField(allow_null=True)
    chunks = serializers.IntegerField(source="chunk_count")
    created_at = serializers.DateTimeField()


class ChunkOutput(serializers.Serializer):
    chunk_id = serializers.CharField()
    source_id = serializers.CharField(source="version.document.source_id")
    version = serializers.IntegerField(source="version.version")
    is_current = serializers.BooleanField(source="version.is_current")
    index = serializers.IntegerField()
    title = BlankAsNullField(source="version.document.title")
    display_title = serializers.CharField(source="version.document.display_title")
    url = BlankAsNullField(source="version.document.url")
    locator = serializers.SerializerMethodField()
    section = BlankAsNullField()
    page = serializers.IntegerField(allow_null=True)
    start_offset = serializers.IntegerField(source="start")
    end_offset = serializers.IntegerField(source="end")
    source_level = serializers.CharField(source="version.document.level.slug", allow_null=True)
    text = serializers.CharField()

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_locator(self, chunk: Any) -> str | None:
        # The same wording as in answers: the pipeline's record decides it, not the API.
        record = ChunkRecord(
            chunk_id=chunk.chunk_id,
            source_id=None,
            version=0,
            index=chunk.index,
            text="",
            section=chunk.section or None,
            page=chunk.page,
        )
        return record.locator


class ParagraphOutput(serializers.Serializer):
    text = serializers.CharField(
        help_text="The paragraph; for a withheld one, the notice that it rests on a document you cannot access."
    )
    citation_ids = serializers.ListField(child=serializers.CharField(), help_text="Markers, each one in `sources`.")
    display_numbers = serializers.ListField(
        child=serializers.IntegerField(), help_text="The footnote numbers shown for citation_ids (reading order)."
    )
    evidence_status = serializers.ChoiceField(
        choices=[*AnswerParagraph.Status.values, WITHHELD],
        help_text="linked, insufficient, or withheld (rests on a document you cannot access; no text, no sources).",
    )
    support = serializers.FloatField(allow_null=True, min_value=0.0, max_value=1.0)
    weak = serializers.BooleanField(
        help_text="Marked weak support, as the page marks it: a linked paragraph its citations barely support, or"
        " one stating a number or name they do not hold (its support score alone may look high)."
    )
    added_by_conflict_check = serializers.BooleanField(
        help_text="In a model's answer: a statement of a qualified source the model left out that gives another"
        " value, quoted from it by the conflict check (the answer is flagged `conflict`)."
    )


class SourceOutput(serializers.Serializer):
    id = serializers.CharField(help_text="Marker (S1, S2, ...), valid within this answer only.")
    display_number = serializers.IntegerField(help_text="The footnote number shown: order of first citation.")
    citation_id = serializers.IntegerField(
        help_text="The citation to name when flagging this source (POST /answers/{id}/feedback, kind citation_wrong"
        " or citation_unsupported): the marker's first citation, as the page's flag form sends it."
    )
    chunk_id = serializers.CharField(help_text="Stable identity of the cited chunk of one document version.")
    source_id = serializers.CharField()
    version = serializers.IntegerField()
    title = serializers.CharField(allow_null=True)
    display_title = serializers.CharField()
    url = serializers.CharField(allow_null=True)
    locator = serializers.CharField(allow_null=True)
    section = serializers.CharField(allow_null=True)
    page = serializers.IntegerField(allow_null=True)
    start_offset = serializers.IntegerField()
    end_offset = serializers.IntegerField()
    source_level = serializers.CharField(allow_null=True)
    source_level_label = serializers.CharField(
        allow_null=True,
        help_text="The level's label as it was when the answer was made (an admin may rename it since).",
    )
    source_level_weight = serializers.FloatField(
        allow_null=True, help_text="The level's weight the source was ranked with when the answer was made."
    )
    score = serializers.FloatField(allow_null=True, help_text="Similarity, not truth; shown beside the level.")
    snippet = serializers.CharField(allow_blank=True, help_text="Exactly the text the model saw.")
    retired = serializers.BooleanField(help_text="The document is retired: readable, no longer used for new answers.")
    is_current = serializers.BooleanField(
        help_text="The cited version is the document's current one; false: a newer version exists (the snippet and "
        "offsets stay those of the cited version)."
    )
    current_version = serializers.IntegerField(
        allow_null=True, help_text="The document's current version number (equal to `version` when it is current)."
    )
    in_force_until = serializers.DateField(
        allow_null=True,
        help_text="When the version is not the current one but is still in force: the date the newer version takes "
        "effect (the answer is not out of date until then); null otherwise.",
    )


class ReviewOutput(serializers.Serializer):
    verdict = serializers.ChoiceField(choices=AnswerReview.Verdict.choices)
    note = serializers.CharField(
        allow_null=True, help_text="The reviewer's note; null when none was written or when it is withheld."
    )
    note_withheld = serializers.BooleanField(
        help_text="A note was written but is withheld from this viewer: it may quote a document they cannot read."
    )
    reviewer = serializers.CharField(allow_null=True, help_text="Username of the reviewer.")
    created_at = serializers.DateTimeField()


class FeedbackSummaryOutput(serializers.Serializer):
    helpful = serializers.IntegerField()
    not_helpful = serializers.IntegerField()
    flags = serializers.IntegerField(help_text="Feedback other than 'helpful': each puts the answer in review.")


class FeedbackOutput(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Feedback.Kind.choices)
    citation_id = serializers.IntegerField(allow_null=True)
    comment = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()


class RelatedOutput(serializers.Serializer):
    source_id = serializers.CharField()
    title = serializers.CharField(help_text="Display title (the source_id when the document has none).")
    version = serializers.IntegerField()
    relevance = serializers.FloatField(allow_null=True)
    excerpt = serializers.CharField()
    lacks = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="The question's words this passage does not hold (null: not recorded for this answer).",
    )
    is_current = serializers.BooleanField(help_text="The passage's version is its document's current one.")
    current_version = serializers.IntegerField(
        allow_null=True, help_text="The document's current version number (equal to `version` when it is current)."
    )
    in_force_until = serializers.DateField(
        allow_null=True,
        help_text="When the version is not the current one but is still in force: the date the newer version takes "
        "effect (the answer is not out of date until then); null otherwise.",
    )
    out_of_period = serializers.ChoiceField(
        choices=["not_yet_effective", "expired"],
        allow_null=True,
        help_text="The passage met the relevance bar but is not in effect today (reason out_of_period); else null.",
    )
    period_date = serializers.DateField(
        allow_null=True, help_text="With out_of_period: the date the passage takes effect, or its last day in effect."
    )


class AnswerOutput(serializers.Serializer):
    """The answer JSON; produced by rag_app.presentation.answer_payload, declared here for the schema."""

    id = serializers.IntegerField()
    question = serializers.CharField()
    state = serializers.ChoiceField(choices=Answer.State.choices)
    reason = serializers.CharField(allow_null=True)
    mode = serializers.ChoiceField(choices=Answer.Mode.choices)
    created_at = serializers.DateTimeField()
    conflict = serializers.BooleanField(
        help_text="Sources disagree: a disagreement the conflict check recorded between two documents whose passages "
        "the caller is shown (the banner's rule)."
    )
    truncated = serializers.BooleanField(
        help_text="A model's answer cut off at its token limit: the last paragraph may be incomplete."
    )
    message = serializers.CharField(
        allow_null=True,
        help_text="What the answer's page tells the reader of its state, in the language of Accept-Language: why it "
        "could not be produced (error), why there is no evidence (no_evidence), or that a model's answer was cut off "
        "(truncated); null when there is nothing to say.",
    )
    scope = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="What the question was asked within: levels, groups, documents (empty = everything readable).",
    )
    parent_id = serializers.IntegerField(allow_null=True, help_text="The answer this question follows up.")
    withheld_paragraphs = serializers.IntegerField(help_text="Paragraphs withheld from you (see evidence_status).")
    paragraphs = ParagraphOutput(many=True)
    sources = SourceOutput(many=True, help_text="Cited records only, each marker once, in first-citation order.")
    review = ReviewOutput(allow_null=True, help_text="The newest reviewer verdict, or null.")
    related = RelatedOutput(
        many=True,
        help_text="no_evidence only: up to 3 closest passages that matched but were not enough to answer (not cited).",
    )
    feedback = FeedbackSummaryOutput()
    unmatched_words = serializers.ListField(
        child=serializers.CharField(),
        help_text="no_evidence only: the question's words none of the related passages holds (rephrase them).",
    )


class AnswerSummaryOutput(serializers.Serializer):
    id = serializers.IntegerField()
    question = serializers.CharField()
    state = serializers.ChoiceField(choices=Answer.State.choices)
    reason = BlankAsNullField(source="reason_shown", help_text="As the answer's detail gives it to the caller.")
    mode = serializers.ChoiceField(choices=Answer.Mode.choices)
    user = serializers.CharField(source="user.username", allow_null=True)
    conflict = serializers.BooleanField(
        source="conflict_shown",
        help_text="Sources disagree, as the answer shows the caller; only on an answer all of whose paragraphs the "
        "caller is shown.",
    )
    has_insufficient = serializers.BooleanField(
        source="insufficient_shown", help_text="A paragraph the caller is shown lacks evidence."
    )
    has_weak = serializers.BooleanField(
        source="weak_shown", help_text="A citation the caller is shown barely supports."
    )
    flagged = serializers.BooleanField(
        help_text="A reader flagged the answer or a citation, or asked for a reviewer, and no verdict has followed "
        "(what `status=flagged` lists)."
    )
    created_at = serializers.DateTimeField()


class TraceOutput(serializers.Serializer):
    answer_id = serializers.IntegerField()
    threshold = serializers.FloatField(allow_null=True)
    candidates = serializers.ListField(
        child=serializers.DictField(),
        help_text=(
            "Every candidate, kept or rejected, with its scores and decision, and why it was retrieved: the "
            "question's words it holds (`held`: word, term, how = word | synonym | name | dateline | translation, "
            "as = the passage's word when it writes another) and those it lacks (`missing`); `level`, `level_weight`, "
            "`level_label`: its document's level as it was ranked with (the label absent in traces written before it "
            "was kept); `bar`: the relevance it had to reach, the threshold's share for its language and the "
            "question's (absent in traces written before it was kept); `reason` and `detail`: why it was dropped, as "
            "a code and in English words, and `facts`: the same detail as data ({code, ...the values it names}), "
            "which the pages write in the reader's language (absent where the code says all, and in older traces)."
        ),
    )
    context = serializers.CharField(allow_blank=True)  # type: ignore[assignment]
    prompt = serializers.CharField(allow_blank=True)
    marker_map = serializers.DictField()
    raw_output = serializers.CharField(allow_blank=True)
    dropped_markers = serializers.ListField(child=serializers.JSONField())
    settings_snapshot = serializers.DictField()
    error = serializers.CharField(allow_blank=True)
    withheld = serializers.IntegerField(help_text="Candidates left out: their documents are not visible to you.")
    redacted = serializers.BooleanField(
        help_text="Context, prompt, raw output and error withheld: they quote documents you cannot access."
    )


def paginated(name: str, item: type[serializers.Serializer]) -> type[serializers.Serializer]:
    """The limit/offset page envelope around `item`, as its own schema component."""
    fields = {
        "count": serializers.IntegerField(),
        "next": serializers.CharField(allow_null=True),
        "previous": serializers.CharField(allow_null=True),
        "results": item(many=True),
    }
    return type(name, (serializers.Serializer,), fields)
