"""REST API: one APIView per resource URL, a nested input serializer per write operation.

Views validate, call the same services and selectors as the htmx UI, and project the result.
Permissions: staff read; reviewers list answers and read traces; admins upload and curate.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ErrorDetail, NotFound, PermissionDenied
from rest_framework.parsers import FormParser
from rest_framework.permissions import BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.validators import UniqueValidator

from rag_app import selectors
from rag_app.ingest.service import DocumentNotFound, IngestStatus, check_upload_size, document_ingest
from rag_app.models import Answer, AnswerReview, Document, Feedback, SourceLevel
from rag_app.presentation import ReviewView, answer_payload, present_answer, shown_reason, trace_for
from rag_app.services import ask
from rag_app.services import levels as level_services
from rag_app.services.documents import (
    DocumentCited,
    document_delete,
    document_restore,
    document_retire,
    document_update,
)
from rag_app.services.feedback import AnswerGone, ReviewWithheld, answer_review, feedback_add
from rag_app.services.ingest_jobs import ingest_job_get, ingest_jobs_submit, ingest_jobs_visible, job_payload
from rag_app.services.levels import MAX_LEVEL_WEIGHT
from rag_app.services.scope import scope_clean
from rag_app.throttling import AskThrottle
from rag_app.validation import (
    MAX_LABEL_CHARS,
    MAX_LEVEL_DESCRIPTION_CHARS,
    MAX_QUESTION_CHARS,
    MAX_SOURCE_ID_CHARS,
    InvalidInput,
    date_order_problem,
    parent_unavailable,
    source_id_problem,
    validate_label,
    validate_title,
    validate_url,
)

from .base import (
    COMMON_ERRORS,
    ApiView,
    IsAdmin,
    IsReviewer,
    IsStaffMember,
    PageInput,
    Pagination,
    errors,
)
from .errors import error_body
from .parsers import JsonParser, MultiPartParser
from .serializers import (
    AnswerOutput,
    AnswerSummaryOutput,
    CalendarDateField,
    ChunkOutput,
    CommentField,
    DocumentOutput,
    ErrorOutput,
    FeedbackOutput,
    GroupField,
    IngestJobOutput,
    LevelField,
    LevelOutput,
    QueryText,
    QuestionField,
    ReviewOutput,
    StrictInput,
    TextItem,
    TraceOutput,
    VersionOutput,
    paginated,
)

WRITE_METHODS = {"POST", "PUT", "PATCH", "DELETE"}


def _valid_source_id(value: str) -> None:
    problem = source_id_problem(value)
    if problem is not None:
        raise serializers.ValidationError(problem, code="invalid_source_id")


class ExplicitGroupsField(serializers.ManyRelatedField):
    """Access groups that change only when sent.

    DRF reads a list field missing from a multipart body as [] (which would open a restricted
    document to everyone); here a missing field stays missing, and one empty value (`groups=`)
    is the explicit way to say "no groups".
    """

    def get_value(self, dictionary: Any) -> Any:
        if hasattr(dictionary, "getlist"):
            if self.field_name not in dictionary:
                return serializers.empty
            values = dictionary.getlist(self.field_name)
            return [] if values == [""] else values
        return super().get_value(dictionary)


class ReadStaffWriteAdmin(ApiView):
    """Staff may read; only admins may write."""

    def get_permissions(self) -> list[BasePermission]:
        return [IsAdmin()] if self.request.method in WRITE_METHODS else [IsStaffMember()]


def _document_or_404(request: Request, source_id: str) -> Document:
    document = selectors.document_get(user=request.user, source_id=source_id)
    if document is None:
        raise NotFound(str(DocumentNotFound(source_id)))  # the upload's refusal, word for word
    return document


# --- documents ---------------------------------------------------------------------------

DOCUMENT_CITED = {
    409: OpenApiResponse(
        ErrorOutput,
        description="Answers cite the document (code document_cited): retire it, or delete with force=true.",
    )
}


class DocumentListApi(ReadStaffWriteAdmin):
    """GET lists documents; POST queues a file for a worker (202 with its job) or, with ?wait=1, ingests
    it within the request (201 / 200 with the result, as before jobs existed)."""

    parser_classes = [MultiPartParser, FormParser]
    takes_query = frozenset({"GET", "POST"})

    class DocumentFilter(PageInput):
        level = serializers.SlugField(required=False, help_text="Only documents of this level.")
        q = QueryText(required=False, allow_blank=True, max_length=200, help_text="Text in source_id or title.")

    class DocumentCreateInput(StrictInput):
        file = serializers.FileField(
            # An empty file is refused by the ingest, as a blank one is (code `empty`; queued: a failed job).
            allow_empty_file=True,
            help_text="txt, md, html, pdf, docx, pptx, xlsx or csv (by extension; the content must match it);"
            " at most RAG_MAX_UPLOAD_BYTES.",
        )
        source_id = serializers.CharField(
            required=False,
            # No max_length: the rule refuses an over-long id with its own code (invalid_source_id), as any other.
            trim_whitespace=False,  # refused by the rule below, never silently changed
            validators=[_valid_source_id],
            help_text="Stable id; defaults to the file name. No control characters, no surrounding"
            " whitespace, no '.' or '..' segments.",
        )
        # Blank means keep, as on the web upload: a client that sends every form field (curl -F title="$TITLE")
        # must not wipe a document's title or URL. Both are checked by the upload's rule (check_request).
        title = serializers.CharField(
            required=False,
            allow_blank=True,
            help_text="Left out or blank: a new version keeps the document's title (a new document takes the"
            " file's own). To clear a title, PATCH the document.",
        )
        url = serializers.CharField(
            required=False,
            allow_blank=True,
            help_text="An http(s) URL. Left out or blank: a new version keeps the document's URL. To clear it,"
            " PATCH the document.",
        )
        level = LevelField(required=False, help_text="Source level slug.")
        groups = ExplicitGroupsField(
            child_relation=GroupField(),
            required=False,
            help_text="Access groups. Left out: a new version keeps the document's groups (a new document"
            " is open to all staff). Sent once with an empty value (`groups=`): open to all staff.",
        )
        effective_from = CalendarDateField(required=False)
        effective_until = CalendarDateField(required=False)

    class DocumentCreateQuery(StrictInput):
        wait = serializers.BooleanField(
            required=False,
            default=False,
            help_text="true: ingest within the request and answer 201/200 with the result, instead of queueing a"
            " job for a worker (202).",
        )

    class DocumentCreateOutput(serializers.Serializer):
        source_id = serializers.CharField()
        version = serializers.IntegerField()
        chunks = serializers.IntegerField()
        status = serializers.ChoiceField(choices=[s.value for s in IngestStatus])
        retired = serializers.BooleanField(
            help_text="The document is retired: the version is stored, and no answer uses it until it is restored."
        )
        document = DocumentOutput()

    class DocumentQueuedOutput(serializers.Serializer):
        job = IngestJobOutput(help_text="Follow it at GET /api/v1/ingest-jobs/<id>.")

    @extend_schema(
        operation_id="documents_list",
        parameters=[DocumentFilter],
        responses={200: paginated("PaginatedDocumentList", DocumentOutput), **errors(400, *COMMON_ERRORS)},
    )
    def get(self, request: Request) -> Response:
        filters = self.DocumentFilter(data=self.query_params())
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        return self.paginate(
            selectors.document_list(user=request.user, level=data.get("level"), query=data.get("q")),
            DocumentOutput,
        )

    @extend_schema(
        operation_id="documents_create",
        request={"multipart/form-data": DocumentCreateInput},
        parameters=[DocumentCreateQuery],
        responses={
            202: OpenApiResponse(
                DocumentQueuedOutput,
                description="Queued for a worker (or, for a file that cannot be ingested, failed at once:"
                " state `failed` with the reason in `results`).",
            ),
            201: OpenApiResponse(DocumentCreateOutput, description="?wait=1: a new document or a new version."),
            200: OpenApiResponse(DocumentCreateOutput, description="?wait=1: same content as the current version."),
            **errors(400, *COMMON_ERRORS, 404, 413, 415, 503),
        },
    )
    def post(self, request: Request) -> Response:
        query = self.DocumentCreateQuery(data=self.query_params())  # a misspelt ?wait is no silent queueing
        query.is_valid(raise_exception=True)
        upload = request.data.get("file") if isinstance(request.data, Mapping) else None
        if upload is not None:
            check_upload_size(getattr(upload, "size", 0))  # before the file is read into memory
        body = self.DocumentCreateInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        upload = data["file"]
        # Only what was sent changes the document; an absent level keeps the current one.
        optional: dict[str, Any] = {}
        if "level" in data:
            optional["level"] = data["level"].slug
        if "groups" in data:
            optional["groups"] = [group.name for group in data["groups"]]
        if not query.validated_data["wait"]:
            file = {"file_name": upload.name or "", "size": upload.size, "read": upload.read}
            try:
                [job] = ingest_jobs_submit(
                    user=request.user,
                    files=[{**file, "source_id": data.get("source_id")}],
                    title=data.get("title") or None,
                    url=data.get("url") or None,
                    effective_from=data.get("effective_from"),
                    effective_until=data.get("effective_until"),
                    **optional,
                )
            except DocumentNotFound as exc:
                raise NotFound(str(exc)) from None
            return Response({"job": IngestJobOutput(job_payload(job)).data}, status=status.HTTP_202_ACCEPTED)
        try:
            result = document_ingest(
                data=upload.read(),
                file_name=upload.name or "",
                source_id=data.get("source_id") or upload.name or "",
                title=data.get("title") or None,
                url=data.get("url") or None,
                effective_from=data.get("effective_from"),
                effective_until=data.get("effective_until"),
                uploader=request.user,
                **optional,
            )
        except DocumentNotFound as exc:
            raise NotFound(str(exc)) from None
        document = selectors.document_get(user=request.user, source_id=result.source_id)
        payload = {**result.as_dict(), "retired": result.retired, "document": document}
        code = status.HTTP_200_OK if result.status == IngestStatus.UNCHANGED else status.HTTP_201_CREATED
        return Response(self.DocumentCreateOutput(payload).data, status=code)


class IngestJobListApi(ApiView):
    """The ingest jobs the caller may follow (their own; an admin's also those of documents they read)."""

    takes_query = frozenset({"GET"})

    class IngestJobFilter(PageInput):
        """Pages only."""

    @extend_schema(
        operation_id="ingest_jobs_list",
        parameters=[IngestJobFilter],
        responses={200: paginated("PaginatedIngestJobList", IngestJobOutput), **errors(400, *COMMON_ERRORS)},
    )
    def get(self, request: Request) -> Response:
        self.IngestJobFilter(data=self.query_params()).is_valid(raise_exception=True)
        paginator = Pagination()
        page = paginator.paginate_queryset(ingest_jobs_visible(user=request.user), request, view=self)
        return paginator.get_paginated_response([IngestJobOutput(job_payload(job)).data for job in page or []])


class IngestJobDetailApi(ApiView):
    @extend_schema(
        operation_id="ingest_jobs_retrieve",
        responses={200: IngestJobOutput, **errors(*COMMON_ERRORS, 404)},
    )
    def get(self, request: Request, job_id: int) -> Response:
        job = ingest_job_get(user=request.user, job_id=job_id)
        if job is None:
            raise NotFound(gettext("No ingest job %(id)s.") % {"id": job_id})
        return Response(IngestJobOutput(job_payload(job)).data)


class DocumentDetailApi(ReadStaffWriteAdmin):
    parser_classes = [JsonParser]
    takes_query = frozenset({"DELETE"})
    takes_no_body = frozenset({"DELETE"})  # force is a query parameter

    class DocumentUpdateInput(StrictInput):
        title = serializers.CharField(
            required=False, allow_blank=True, validators=[validate_title], help_text="Blank: no title."
        )
        url = serializers.CharField(
            required=False,
            allow_blank=True,
            validators=[validate_url],
            help_text="An http(s) URL (the upload's rule). Blank: no URL.",
        )
        level = LevelField(required=False, allow_null=True)
        groups = GroupField(required=False, many=True)

    @extend_schema(operation_id="documents_retrieve", responses={200: DocumentOutput, **errors(*COMMON_ERRORS, 404)})
    def get(self, request: Request, source_id: str) -> Response:
        return Response(DocumentOutput(_document_or_404(request, source_id)).data)

    @extend_schema(
        operation_id="documents_update",
        request=DocumentUpdateInput,
        responses={200: DocumentOutput, **errors(400, *COMMON_ERRORS, 404, 413, 415)},
    )
    def patch(self, request: Request, source_id: str) -> Response:
        document = _document_or_404(request, source_id)
        body = self.DocumentUpdateInput(data=request.data)
        body.is_valid(raise_exception=True)
        updated = document_update(user=request.user, document=document, **body.validated_data)
        # The admin may just have moved the document out of their own reach: show what they set.
        return Response(DocumentOutput(selectors.document_details(document=updated)).data)

    class DocumentDeleteInput(StrictInput):
        force = serializers.BooleanField(
            required=False,
            default=False,
            help_text="Also delete the answers that cite the document (refused with 409 without it).",
        )

    class DocumentDeleteOutput(serializers.Serializer):
        source_id = serializers.CharField()
        versions = serializers.IntegerField(help_text="Versions deleted.")
        chunks = serializers.IntegerField(help_text="Chunks deleted (and removed from the indexes).")
        answers_deleted = serializers.ListField(
            child=serializers.IntegerField(), help_text="Ids of the citing answers deleted with it (force only)."
        )

    @extend_schema(
        operation_id="documents_destroy",
        parameters=[DocumentDeleteInput],
        responses={200: DocumentDeleteOutput, **errors(400, *COMMON_ERRORS, 404), **DOCUMENT_CITED},
    )
    def delete(self, request: Request, source_id: str) -> Response:
        """Delete the document for good (every version); the audit log keeps who, when and the source_id."""
        params = self.DocumentDeleteInput(data=self.query_params())
        params.is_valid(raise_exception=True)
        document = _document_or_404(request, source_id)
        try:
            result = document_delete(user=request.user, document=document, force=params.validated_data["force"])
        except DocumentCited as exc:
            return Response(error_body(exc.code, str(exc)), status=status.HTTP_409_CONFLICT)
        return Response(
            self.DocumentDeleteOutput(
                {
                    "source_id": result.source_id,
                    "versions": result.versions,
                    "chunks": result.chunks,
                    "answers_deleted": list(result.answers_deleted),
                }
            ).data
        )


class _DocumentActionApi(ApiView):
    """POST documents/<source_id>/<suffix>: an admin action on one document.

    Any other method on such a path names the document whose source_id ends in "/<suffix>"
    (e.g. GET documents/notes/retire), so it is answered by DocumentDetailApi.
    """

    permission_classes = [IsAdmin]
    suffix = ""
    takes_no_body = frozenset({"POST"})

    def dispatch(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        if request.method not in {"POST", "OPTIONS"}:
            detail = DocumentDetailApi.as_view()
            return detail(request, source_id=f"{kwargs['source_id']}/{self.suffix}")
        return super().dispatch(request, *args, **kwargs)

    def _done(self, request: Request, source_id: str) -> Response:
        return Response(DocumentOutput(selectors.document_get(user=request.user, source_id=source_id)).data)


class DocumentRetireApi(_DocumentActionApi):
    suffix = "retire"

    @extend_schema(
        operation_id="documents_retire",
        request=None,
        responses={200: DocumentOutput, **errors(*COMMON_ERRORS, 404)},
    )
    def post(self, request: Request, source_id: str) -> Response:
        """Retire: no longer used for new answers at once; versions and the answers citing them stay readable."""
        document_retire(user=request.user, document=_document_or_404(request, source_id))
        return self._done(request, source_id)


class DocumentRestoreApi(_DocumentActionApi):
    suffix = "restore"

    @extend_schema(
        operation_id="documents_restore",
        request=None,
        responses={200: DocumentOutput, **errors(*COMMON_ERRORS, 404)},
    )
    def post(self, request: Request, source_id: str) -> Response:
        """Restore a retired document: it is used for new answers again."""
        document_restore(user=request.user, document=_document_or_404(request, source_id))
        return self._done(request, source_id)


class DocumentVersionsApi(ApiView):
    takes_query = frozenset({"GET"})

    class VersionFilter(PageInput):
        """Pages only; as strict as every other list: limit=abc or an unknown name is a 400."""

    @extend_schema(
        operation_id="documents_versions_list",
        parameters=[VersionFilter],
        responses={200: paginated("PaginatedVersionList", VersionOutput), **errors(400, *COMMON_ERRORS, 404)},
    )
    def get(self, request: Request, source_id: str) -> Response:
        self.VersionFilter(data=self.query_params()).is_valid(raise_exception=True)
        document = _document_or_404(request, source_id)
        return self.paginate(selectors.document_versions(document=document), VersionOutput)


# --- chunks -------------------------------------------------------------------------------


class ChunkDetailApi(ApiView):
    @extend_schema(operation_id="chunks_retrieve", responses={200: ChunkOutput, **errors(*COMMON_ERRORS, 404)})
    def get(self, request: Request, chunk_id: str) -> Response:
        chunk = selectors.chunk_get(user=request.user, chunk_id=chunk_id)
        if chunk is None:
            raise NotFound(gettext("No chunk %(id)s.") % {"id": repr(chunk_id)})  # quoted as a document's 404 is
        return Response(ChunkOutput(chunk).data)


# --- levels -------------------------------------------------------------------------------


class LevelListApi(ApiView):
    permission_classes = [IsAdmin]
    parser_classes = [JsonParser]

    class LevelCreateInput(StrictInput):
        slug = serializers.SlugField(max_length=50, validators=[UniqueValidator(queryset=SourceLevel.objects.all())])
        label = serializers.CharField(max_length=MAX_LABEL_CHARS, validators=[validate_label])  # type: ignore[assignment]
        weight = serializers.FloatField(min_value=-MAX_LEVEL_WEIGHT, max_value=MAX_LEVEL_WEIGHT)
        description = serializers.CharField(required=False, allow_blank=True, max_length=MAX_LEVEL_DESCRIPTION_CHARS)

    @extend_schema(operation_id="levels_list", responses={200: LevelOutput(many=True), **errors(*COMMON_ERRORS)})
    def get(self, request: Request) -> Response:
        return Response(LevelOutput(selectors.level_list(), many=True).data)

    @extend_schema(
        operation_id="levels_create",
        request=LevelCreateInput,
        responses={201: LevelOutput, **errors(400, *COMMON_ERRORS, 413, 415)},
    )
    def post(self, request: Request) -> Response:
        body = self.LevelCreateInput(data=request.data)
        body.is_valid(raise_exception=True)
        level = level_services.level_create(user=request.user, **body.validated_data)
        return Response(LevelOutput(level).data, status=status.HTTP_201_CREATED)


class LevelDetailApi(ApiView):
    permission_classes = [IsAdmin]
    parser_classes = [JsonParser]

    class LevelUpdateInput(StrictInput):
        label = serializers.CharField(  # type: ignore[assignment]
            required=False, max_length=MAX_LABEL_CHARS, validators=[validate_label]
        )
        weight = serializers.FloatField(required=False, min_value=-MAX_LEVEL_WEIGHT, max_value=MAX_LEVEL_WEIGHT)
        description = serializers.CharField(required=False, allow_blank=True, max_length=MAX_LEVEL_DESCRIPTION_CHARS)

    def _level(self, slug: str) -> SourceLevel:
        level = selectors.level_list().filter(slug=slug).first()
        if level is None:
            raise NotFound(gettext("No level %(slug)s.") % {"slug": repr(slug)})
        return level

    @extend_schema(operation_id="levels_retrieve", responses={200: LevelOutput, **errors(*COMMON_ERRORS, 404)})
    def get(self, request: Request, slug: str) -> Response:
        return Response(LevelOutput(self._level(slug)).data)

    @extend_schema(
        operation_id="levels_update",
        request=LevelUpdateInput,
        responses={200: LevelOutput, **errors(400, *COMMON_ERRORS, 404, 413, 415)},
    )
    def patch(self, request: Request, slug: str) -> Response:
        level = self._level(slug)
        body = self.LevelUpdateInput(data=request.data)
        body.is_valid(raise_exception=True)
        level_services.level_update(user=request.user, level=level, **body.validated_data)
        return Response(LevelOutput(level).data)


# --- ask and answers ----------------------------------------------------------------------


def _answer_json(request: Request, answer: Answer) -> dict[str, Any]:
    """The presenter's answer JSON for this caller (rag_app.presentation decides what is withheld)."""
    return answer_payload(answer, viewer=request.user)


class AskApi(ApiView):
    throttle_classes = [AskThrottle]
    parser_classes = [JsonParser]

    class AskInput(StrictInput):
        question = QuestionField(help_text=f"At most {MAX_QUESTION_CHARS:,} characters as typed.")
        mode = serializers.ChoiceField(
            choices=Answer.Mode.choices, required=False, help_text="Default: the configured generator."
        )
        scope = serializers.DictField(
            required=False,
            child=serializers.ListField(child=TextItem(max_length=MAX_SOURCE_ID_CHARS)),
            help_text="Ask within: {levels: [slug], groups: [name], documents: [source_id]}; each list narrows.",
        )
        parent_id = serializers.IntegerField(
            required=False, min_value=1, help_text="Ask a follow-up to this answer (one you may read)."
        )

    @extend_schema(
        operation_id="ask",
        request=AskInput,
        responses={
            201: OpenApiResponse(AnswerOutput, description="Stored answer: answered, no_evidence or error."),
            **errors(400, *COMMON_ERRORS, 413, 415, 429),
        },
    )
    def post(self, request: Request) -> Response:
        body = self.AskInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            scope = scope_clean(user=request.user, data=data.get("scope"))
        except InvalidInput as exc:
            raise serializers.ValidationError({"scope": [ErrorDetail(str(exc), code=exc.code)]}) from None
        parent = None
        if data.get("parent_id"):
            parent = selectors.thread_parent(user=request.user, answer_id=data["parent_id"])
            if parent is None:
                raise serializers.ValidationError({"parent_id": [parent_unavailable()]})
        answer = ask(user=request.user, question=data["question"], mode=data.get("mode"), scope=scope, parent=parent)
        return Response(_answer_json(request, answer), status=status.HTTP_201_CREATED)


class AnswerListApi(ApiView):
    permission_classes = [IsReviewer]
    takes_query = frozenset({"GET"})

    class AnswerFilter(PageInput):
        state = serializers.ChoiceField(choices=Answer.State.choices, required=False)
        status = serializers.ChoiceField(
            choices=selectors.ANSWER_STATUSES, required=False, help_text="Review flag on the answer."
        )
        # Blank filters mean "any", as an empty form field does.
        user = QueryText(required=False, allow_blank=True, max_length=150, help_text="Username of the asker.")
        source_id = QueryText(
            required=False, allow_blank=True, max_length=500, help_text="Answers citing this document."
        )
        date = serializers.DateField(required=False, help_text="Asked on this day (server time zone).")
        date_from = serializers.DateField(required=False, help_text="Asked on or after this day.")
        date_to = serializers.DateField(required=False, help_text="Asked on or before this day.")

        def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
            if (problem := date_order_problem(attrs.get("date_from"), attrs.get("date_to"))) is not None:
                raise serializers.ValidationError({"date_to": [problem]})
            return attrs

    @extend_schema(
        operation_id="answers_list",
        parameters=[AnswerFilter],
        responses={200: paginated("PaginatedAnswerList", AnswerSummaryOutput), **errors(400, *COMMON_ERRORS)},
    )
    def get(self, request: Request) -> Response:
        filters = self.AnswerFilter(data=self.query_params())
        filters.is_valid(raise_exception=True)
        data = filters.validated_data
        answers = selectors.answer_list(
            user=request.user,
            state=data.get("state"),
            status=data.get("status"),
            username=data.get("user"),
            source_id=data.get("source_id"),
            # Each filter narrows, `date` too: with date_from or date_to beside it, the days all of them allow.
            date_from=max(filter(None, [data.get("date_from"), data.get("date")]), default=None),
            date_to=min(filter(None, [data.get("date_to"), data.get("date")]), default=None),
        )
        viewer = request.user

        def as_shown(rows: list[Answer]) -> None:
            selectors.mark_shown_flags(rows, user=viewer)
            for row in rows:
                row.reason_shown = shown_reason(row, viewer=viewer)  # type: ignore[attr-defined]

        return self.paginate(answers, AnswerSummaryOutput, prepare=as_shown)


def _answer_or_404(request: Request, answer_id: int) -> Answer:
    answer = selectors.answer_get(user=request.user, answer_id=answer_id)
    if answer is None:
        raise NotFound(gettext("No answer %(id)s.") % {"id": answer_id})
    return answer


class AnswerDetailApi(ApiView):
    @extend_schema(operation_id="answers_retrieve", responses={200: AnswerOutput, **errors(*COMMON_ERRORS, 404)})
    def get(self, request: Request, answer_id: int) -> Response:
        return Response(_answer_json(request, _answer_or_404(request, answer_id)))


class AnswerFeedbackApi(ApiView):
    parser_classes = [JsonParser]

    class FeedbackInput(StrictInput):
        kind = serializers.ChoiceField(choices=Feedback.Kind.choices)
        citation_id = serializers.IntegerField(
            required=False, min_value=1, help_text="For citation_wrong / citation_unsupported: which citation."
        )
        comment = CommentField(required=False)

    @extend_schema(
        operation_id="answers_feedback_create",
        request=FeedbackInput,
        responses={201: FeedbackOutput, **errors(400, *COMMON_ERRORS, 404, 413, 415)},
    )
    def post(self, request: Request, answer_id: int) -> Response:
        answer = _answer_or_404(request, answer_id)
        body = self.FeedbackInput(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        try:
            row = feedback_add(
                user=request.user,
                answer=answer,
                kind=data["kind"],
                citation_id=data.get("citation_id"),
                comment=data.get("comment"),
            )
        except AnswerGone as exc:
            raise NotFound(str(exc)) from None
        except InvalidInput as exc:
            field = "citation_id" if "citation" in exc.code else "comment" if "comment" in exc.code else "kind"
            raise serializers.ValidationError({field: [ErrorDetail(str(exc), code=exc.code)]}) from None
        return Response(FeedbackOutput(row).data, status=status.HTTP_201_CREATED)


class AnswerReviewApi(ApiView):
    permission_classes = [IsReviewer]
    parser_classes = [JsonParser]

    class ReviewInput(StrictInput):
        verdict = serializers.ChoiceField(choices=AnswerReview.Verdict.choices)
        note = CommentField(required=False)

    @extend_schema(
        operation_id="answers_review_list",
        responses={200: ReviewOutput(many=True), **errors(*COMMON_ERRORS, 404)},
        description="Every verdict on the answer, newest first (the first is its review status). A note is empty "
        "where the answer rests on a document the reviewer cannot access (it may quote it).",
    )
    def get(self, request: Request, answer_id: int) -> Response:
        view = present_answer(_answer_or_404(request, answer_id), viewer=request.user)
        return Response(ReviewOutput([r.as_dict(with_note=view.notes_visible) for r in view.reviews], many=True).data)

    @extend_schema(
        operation_id="answers_review_create",
        request=ReviewInput,
        responses={201: ReviewOutput, **errors(400, *COMMON_ERRORS, 404, 413, 415)},
        description="Record a verdict. 403 (`review_withheld`) when part of the answer rests on a document the "
        "reviewer cannot access: a verdict would clear readers' flags on what they cannot see.",
    )
    def post(self, request: Request, answer_id: int) -> Response:
        answer = _answer_or_404(request, answer_id)
        body = self.ReviewInput(data=request.data)
        body.is_valid(raise_exception=True)
        try:
            review = answer_review(
                reviewer=request.user,
                answer=answer,
                verdict=body.validated_data["verdict"],
                note=body.validated_data.get("note"),
            )
        except AnswerGone as exc:
            raise NotFound(str(exc)) from None
        except ReviewWithheld as exc:
            raise PermissionDenied(str(exc), code=exc.code) from None
        except InvalidInput as exc:  # the note's characters (validation.clean_comment): a 400, not a 500
            raise serializers.ValidationError({"note": [ErrorDetail(str(exc), code=exc.code)]}) from None
        payload = ReviewView(
            verdict=review.verdict, note=review.note, reviewer=request.user.get_username(), created_at=review.created_at
        ).as_dict()
        return Response(ReviewOutput(payload).data, status=status.HTTP_201_CREATED)


class AnswerTraceApi(ApiView):
    permission_classes = [IsReviewer]

    @extend_schema(operation_id="answers_trace", responses={200: TraceOutput, **errors(*COMMON_ERRORS, 404)})
    def get(self, request: Request, answer_id: int) -> Response:
        trace = trace_for(_answer_or_404(request, answer_id), viewer=request.user)
        if trace is None:
            raise NotFound(gettext("Answer %(id)s has no trace.") % {"id": answer_id})
        return Response(TraceOutput(trace).data)
