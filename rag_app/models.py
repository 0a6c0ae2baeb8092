from __future__ import annotations

from django.conf import settings
from django.contrib.auth.models import Group
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from rag_app.validation import canonical_source_id, validate_url


class SourceIdField(models.CharField):  # type: ignore[type-arg]
    """A document identifier, kept and looked up in one Unicode form (validation.canonical_source_id).

    "Müller" typed on one keyboard and sent by macOS as a file name are different code points that look and read
    the same; as two keys they made two indistinguishable documents. Every value saved is written in the canonical
    form (the instance's attribute too, so ids built from it, such as chunk ids, agree), and every lookup (`=`,
    `__in`, across relations) is made with it, whichever entry point (page, API, CLI, queue) it came from.
    """

    def get_prep_value(self, value: object) -> object:
        value = super().get_prep_value(value)
        return canonical_source_id(value) if isinstance(value, str) else value

    def pre_save(self, model_instance: models.Model, add: bool) -> object:
        value = getattr(model_instance, self.attname)
        if isinstance(value, str):
            value = canonical_source_id(value)
            setattr(model_instance, self.attname, value)
        return value


class SourceLevelQuerySet(models.QuerySet["SourceLevel"]):
    def delete(self) -> tuple[int, dict[str, int]]:
        """Lock the levels first: an ingest that holds one (ingest.service._hold_level, FOR KEY SHARE) commits its
        document before the delete looks for the documents to take the level from (else: a foreign-key error)."""
        with transaction.atomic(using=self.db):
            list(self.select_for_update().values_list("pk", flat=True))
            return super().delete()


class SourceLevel(models.Model):
    """How far a source is trusted. Set by ingestion and admins, never by a model (rule 9)."""

    slug = models.SlugField(max_length=50, unique=True)
    label = models.CharField(max_length=100)
    weight = models.FloatField(default=0.0, help_text="Higher ranks first among qualified sources.")
    description = models.TextField(blank=True)

    objects = SourceLevelQuerySet.as_manager()

    class Meta:
        ordering = ["-weight", "slug"]

    def __str__(self) -> str:
        return f"{self.label} ({self.slug})"

    def delete(self, using: str | None = None, keep_parents: bool = False) -> tuple[int, dict[str, int]]:
        """As SourceLevelQuerySet.delete, for one level (the Django admin's delete)."""
        with transaction.atomic(using=using):
            SourceLevel.objects.select_for_update().filter(pk=self.pk).exists()
            return super().delete(using=using, keep_parents=keep_parents)


class Document(models.Model):
    source_id = SourceIdField(max_length=500, unique=True)
    title = models.CharField(max_length=500, blank=True)  # empty = show source_id, never invent
    # An http(s) URL (validation.url_problem: an intranet's one-word host too, which Django's URLField refuses).
    url = models.CharField(max_length=1000, blank=True, validators=[validate_url])
    level = models.ForeignKey(SourceLevel, null=True, blank=True, on_delete=models.SET_NULL, related_name="documents")
    groups = models.ManyToManyField(Group, blank=True, related_name="documents", help_text="Empty = all staff.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)
    # Retired: still readable (viewer, answers, hover cards) but never retrieved for a new answer.
    # None = active. Set and cleared only by rag_app.services.documents (audited as DocumentEvent).
    retired_at = models.DateTimeField(null=True, blank=True, db_index=True)

    class Meta:
        ordering = ["source_id"]

    def __str__(self) -> str:
        return self.display_title

    @property
    def display_title(self) -> str:
        return self.title or self.source_id

    @property
    def is_retired(self) -> bool:
        return self.retired_at is not None

    def current_version(self) -> DocumentVersion | None:
        return self.versions.filter(is_current=True).first()


class DocumentVersion(models.Model):
    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="versions")
    version = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    text = models.TextField(help_text="Normalised text; chunk offsets index into it.")
    # The latest uploaded version (the viewer's, "a newer version exists", the API's current_version).
    is_current = models.BooleanField(default=True)
    # Retrieval reads this version (its chunks are in the search indexes): the current one, and the version in force
    # while its successor is scheduled for later (search.indexing.settle_versions decides, nothing else).
    searched = models.BooleanField(default=True)
    # The date the next version takes effect (from then on tiering rejects this one, `superseded`); None for the
    # current version and for versions superseded before the field existed.
    superseded_on = models.DateField(null=True, blank=True)
    file_name = models.CharField(max_length=500, blank=True)
    mime = models.CharField(max_length=100, blank=True)
    size_bytes = models.PositiveBigIntegerField(default=0)
    language = models.CharField(max_length=10, blank=True)
    effective_from = models.DateField(null=True, blank=True)
    effective_until = models.DateField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document_id", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["document", "version"], name="uniq_document_version"),
            models.UniqueConstraint(
                fields=["document"], condition=models.Q(is_current=True), name="one_current_version"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.document.source_id} v{self.version}"

    def get_absolute_url(self) -> str:
        return reverse("document_version", args=[self.document.source_id, self.version])


class Chunk(models.Model):
    chunk_id = models.CharField(max_length=600, unique=True)  # "<source_id>:v<version>:<index>"
    version = models.ForeignKey(DocumentVersion, on_delete=models.PROTECT, related_name="chunks")
    index = models.PositiveIntegerField()
    text = models.TextField()
    section = models.CharField(max_length=1000, blank=True)
    page = models.PositiveIntegerField(null=True, blank=True)
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    # Space-joined search tokens (jieba search mode, folded); what the lexical index holds.
    search_text = models.TextField(blank=True)
    token_count = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["version_id", "index"]
        constraints = [models.UniqueConstraint(fields=["version", "index"], name="uniq_chunk_index")]

    def __str__(self) -> str:
        return self.chunk_id

    def get_absolute_url(self) -> str:
        return self.version.get_absolute_url() + f"#chunk-{self.index}"


class LevelChange(models.Model):
    """Audit log: who changed a document's level, access groups or title (or a level itself), when, from what to what.

    A document's rows outlive it: `document` becomes NULL when it is deleted and `source_id` keeps its text (as
    DocumentEvent does), so the log still says who changed what before the deletion. Its author's rows outlive their
    account the same way: `user` becomes NULL, `username` keeps the name the log shows.
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    username = models.CharField(max_length=150, blank=True)  # "" = the operator (CLI); kept if the account is deleted
    document = models.ForeignKey(
        Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="level_changes"
    )
    source_id = SourceIdField(max_length=500, blank=True)  # the document's ("" = a change to a level itself)
    level = models.ForeignKey(SourceLevel, null=True, blank=True, on_delete=models.SET_NULL, related_name="changes")
    field = models.CharField(max_length=50)  # "document.level", "level.label", "level.weight", "level.created"
    old_value = models.CharField(max_length=500, blank=True)  # a title's 500 characters
    new_value = models.CharField(max_length=500, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    # What changed, as the change log names it (the stored code stays the data: the API, the admin, exports).
    FIELD_LABELS = {
        "document.level": _("a document's level"),
        "document.groups": _("a document's access groups"),
        "document.title": _("a document's title"),
        "level.created": _("a level created"),
        "level.label": _("a level's label"),
        "level.slug": _("a level's slug"),
        "level.weight": _("a level's weight"),
    }

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.field}: {self.old_value!r} -> {self.new_value!r}"

    @property
    def field_label(self) -> str:
        """What changed, in the reader's language (the code itself for one this table lacks)."""
        return str(self.FIELD_LABELS.get(self.field, self.field))


class DocumentEvent(models.Model):
    """Audit log of a document's retirement, restoration and deletion: who, when, which source_id.

    The row outlives the document: `document` is set to NULL when it is deleted, and `source_id`
    keeps its text. `user` is None for the operator (management commands); `username` keeps the
    name even if the account is later deleted.
    """

    class Action(models.TextChoices):
        RETIRED = "retired", _("retired")
        RESTORED = "restored", _("restored")
        DELETED = "deleted", _("deleted")

    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    username = models.CharField(max_length=150, blank=True)  # "" = the operator (CLI)
    document = models.ForeignKey(Document, null=True, blank=True, on_delete=models.SET_NULL, related_name="events")
    source_id = SourceIdField(max_length=500, db_index=True)
    action = models.CharField(max_length=20, choices=Action.choices)
    # What else happened, e.g. for a deletion: {"versions": 2, "chunks": 14, "forced": true, "answers_deleted": [7]}.
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.action} {self.source_id} by {self.username or 'operator'}"


class IngestJob(models.Model):
    """One file on its way into the index (or one document re-indexed / re-embedded), run by a Celery worker.

    The uploaded bytes wait in `payload` (web and worker nodes share only the database and the broker) and
    are dropped when the job ends. The job is marked done in the same transaction that writes the version,
    so "done" and the version exist together or not at all. `user` None is the operator (CLI); `username`
    keeps the name if the account is later deleted. `results`: one entry per file, the ingest line
    (`<source_id> v<n> <k> chunks new|updated|unchanged`) or the error with its code.
    """

    class State(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        DONE = "done", _("done")
        FAILED = "failed", _("failed")

    class Kind(models.TextChoices):
        INGEST = "ingest", _("ingest a file")
        REINDEX = "reindex", _("re-index a document")
        REEMBED = "reembed", _("re-embed a document")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="ingest_jobs"
    )
    username = models.CharField(max_length=150, blank=True)  # "" = the operator (CLI)
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.INGEST)
    source_id = SourceIdField(max_length=500, db_index=True)
    file_name = models.CharField(max_length=500, blank=True)
    size_bytes = models.PositiveBigIntegerField(default=0)
    sha256 = models.CharField(max_length=64, blank=True)  # of the uploaded bytes
    # The ingest options as sent: title, url, level, groups, effective_from, effective_until.
    options = models.JSONField(default=dict, blank=True)
    payload = models.BinaryField(null=True, blank=True, editable=False)
    state = models.CharField(max_length=20, choices=State.choices, default=State.QUEUED, db_index=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    results = models.JSONField(default=list, blank=True)
    error_code = models.CharField(max_length=50, blank=True)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    task_id = models.CharField(max_length=255, blank=True)
    version = models.ForeignKey(
        DocumentVersion, null=True, blank=True, on_delete=models.SET_NULL, related_name="ingest_jobs"
    )
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["user", "-created_at"], name="rag_app_ingestjob_user_recent")]

    def __str__(self) -> str:
        return f"ingest job {self.pk} {self.source_id} {self.state}"

    @property
    def finished(self) -> bool:
        return self.state in (self.State.DONE, self.State.FAILED)


class Answer(models.Model):
    class State(models.TextChoices):
        ANSWERED = "answered", _("Answered")
        NO_EVIDENCE = "no_evidence", _("No evidence")
        ERROR = "error", _("Error")

    class Mode(models.TextChoices):
        EXTRACTIVE = "extractive"
        LLM = "llm"

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="answers"
    )
    question = models.TextField()
    language = models.CharField(max_length=10, blank=True)
    state = models.CharField(max_length=20, choices=State.choices)
    reason = models.CharField(max_length=100, blank=True)
    message = models.TextField(blank=True)
    mode = models.CharField(max_length=20, choices=Mode.choices)
    model = models.CharField(max_length=200, blank=True)
    conflict = models.BooleanField(default=False)
    has_insufficient = models.BooleanField(default=False)
    has_weak = models.BooleanField(default=False)
    timings = models.JSONField(default=dict)
    # What the question was asked within: {"levels": [slug], "groups": [name], "documents": [source_id]};
    # empty = every document the asker may read.
    scope = models.JSONField(default=dict, blank=True)
    # A follow-up question points at the answer it follows (a thread); each keeps its own citations.
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="follow_ups")
    # When the search had read the documents (services.answers.AskRun.searched_at), not when the answer was
    # stored: who may see what it rests on is decided as of this moment.
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["state", "created_at"])]

    def __str__(self) -> str:
        return f"#{self.pk} {self.state}: {self.question[:60]}"

    def get_absolute_url(self) -> str:
        return reverse("answer_detail", args=[self.pk])


class AnswerParagraph(models.Model):
    class Status(models.TextChoices):
        LINKED = "linked"
        INSUFFICIENT = "insufficient"

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="paragraphs")
    order = models.PositiveIntegerField()
    text = models.TextField()
    evidence_status = models.CharField(max_length=20, choices=Status.choices)
    support = models.FloatField(null=True, blank=True)
    weak = models.BooleanField(default=False)

    class Meta:
        ordering = ["answer_id", "order"]
        constraints = [models.UniqueConstraint(fields=["answer", "order"], name="uniq_paragraph_order")]

    def __str__(self) -> str:
        return f"{self.answer_id}/{self.order}"


class Citation(models.Model):
    """A marker on a paragraph, pinned to one chunk of one version, with the snippet the model saw."""

    paragraph = models.ForeignKey(AnswerParagraph, on_delete=models.CASCADE, related_name="citations")
    order = models.PositiveIntegerField(default=0)
    marker = models.CharField(max_length=10)
    chunk = models.ForeignKey(Chunk, on_delete=models.PROTECT, related_name="citations")
    snippet = models.TextField()
    score = models.FloatField(null=True, blank=True)
    # The document's level as the search read it when the answer was made ("" = no level), kept as it was: an
    # admin's later rename, reweight or change of slug does not change what an old answer showed and ranked by.
    level_slug = models.CharField(max_length=50, blank=True)
    level_label = models.CharField(max_length=100, blank=True)
    level_weight = models.FloatField(null=True, blank=True)

    class Meta:
        ordering = ["paragraph_id", "order"]

    def __str__(self) -> str:
        return f"{self.marker} -> {self.chunk_id}"


class Feedback(models.Model):
    """What a reader says about an answer, or about one of its citations; lands in the reviewer queue."""

    class Kind(models.TextChoices):
        HELPFUL = "helpful", _("helpful")
        NOT_HELPFUL = "not_helpful", _("not helpful")
        # the cited passage is not about this / does not say what the paragraph says
        CITATION_WRONG = "citation_wrong", _("wrong source")
        CITATION_UNSUPPORTED = "citation_unsupported", _("source does not support it")
        ASK_REVIEWER = "ask_reviewer", _("asked for a reviewer")  # no (good) answer: a reviewer should look

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="feedback")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    kind = models.CharField(max_length=30, choices=Kind.choices)
    citation = models.ForeignKey(Citation, null=True, blank=True, on_delete=models.CASCADE, related_name="feedback")
    comment = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # A vote (helpful / not helpful) is one per reader and answer: when the reader votes again, their earlier
    # vote is replaced. A replaced vote that carries a comment is kept, with the time it was replaced, so what
    # readers wrote stays; one without is deleted. None: the reader's current vote, or feedback that is no vote.
    replaced_at = models.DateTimeField(null=True, blank=True)

    VOTES = ("helpful", "not_helpful")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["answer", "user"],
                condition=models.Q(kind__in=["helpful", "not_helpful"], replaced_at__isnull=True),
                name="one_vote_per_reader",
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} on answer {self.answer_id}"

    @property
    def flags(self) -> bool:
        """Everything but "helpful" asks a reviewer to look."""
        return self.kind != self.Kind.HELPFUL


class AnswerReview(models.Model):
    """A reviewer's verdict on an answer; the newest one is the answer's review status."""

    class Verdict(models.TextChoices):
        OK = "ok", _("ok")
        WRONG = "wrong", _("wrong")
        NEEDS_DOCUMENT_UPDATE = "needs_document_update", _("needs a document update")

    answer = models.ForeignKey(Answer, on_delete=models.CASCADE, related_name="reviews")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL)
    # The reviewer's name, shown with the verdict: kept when the account is deleted (`reviewer` becomes NULL).
    reviewer_name = models.CharField(max_length=150, blank=True)
    verdict = models.CharField(max_length=30, choices=Verdict.choices)
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.verdict} on answer {self.answer_id}"


class AskPreference(models.Model):
    """The scope a user last asked within, offered again on their next question."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ask_preference")
    scope = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"ask scope of {self.user_id}"


class Trace(models.Model):
    """Everything needed to replay an answer: candidates, decisions, context, prompt, raw output."""

    answer = models.OneToOneField(Answer, on_delete=models.CASCADE, related_name="trace")
    threshold = models.FloatField(null=True, blank=True)
    candidates = models.JSONField(default=list)  # [{chunk_id, source_id, version, level, scores, kept, reason}]
    context = models.TextField(blank=True)
    prompt = models.TextField(blank=True)
    marker_map = models.JSONField(default=dict)  # {"S1": {"chunk_id": ..., "snippet": ..., ...}}
    raw_output = models.TextField(blank=True)
    dropped_markers = models.JSONField(default=list)
    settings_snapshot = models.JSONField(default=dict)
    error = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"trace of answer {self.answer_id}"
