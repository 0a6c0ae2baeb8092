"""Django admin: levels (editable), documents (level changes audited); versions, chunks and ingest jobs read-only.

Every level change goes through rag_app.services.levels, so the admin, the in-app levels page and the
API leave the same LevelChange audit rows. Document text and chunks are evidence: never edited here.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.admin import GroupAdmin
from django.contrib.auth.models import Group
from django.db.models import Count, OuterRef, QuerySet, Subquery
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext, gettext_lazy

from rag_app import access, selectors
from rag_app.forms import DocumentURLField
from rag_app.models import Chunk, Document, DocumentEvent, DocumentVersion, IngestJob, LevelChange, SourceLevel
from rag_app.services.documents import document_update
from rag_app.services.levels import (
    document_set_groups,
    document_set_level,
    documents_set_level,
    level_create,
    level_update,
)
from rag_app.validation import validate_title


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(SourceLevel)
class SourceLevelAdmin(admin.ModelAdmin):
    list_display = ["slug", "label", "weight", "document_count"]
    list_editable = ["label", "weight"]
    search_fields = ["slug", "label"]
    ordering = ["-weight", "slug"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[SourceLevel]:
        # Counted with the rows: one statement for the list, not one per level.
        return super().get_queryset(request).annotate(n_documents=Count("documents"))

    @admin.display(description="documents", ordering="n_documents")
    def document_count(self, obj: SourceLevel) -> int:
        counted = getattr(obj, "n_documents", None)
        return obj.documents.count() if counted is None else int(counted)

    def save_model(self, request: HttpRequest, obj: SourceLevel, form: Any, change: bool) -> None:
        if not change:
            created = level_create(
                user=request.user, slug=obj.slug, label=obj.label, weight=obj.weight, description=obj.description
            )
            obj.pk = created.pk
            return
        slug, label, weight, description = obj.slug, obj.label, obj.weight, obj.description
        obj.refresh_from_db()  # level_update compares against the stored row and records each change
        level_update(user=request.user, level=obj, slug=slug, label=label, weight=weight, description=description)


class SetLevelForm(forms.Form):
    level = forms.ModelChoiceField(
        queryset=SourceLevel.objects.all(), required=False, empty_label="(no level: ranks lowest)"
    )


_VERSION_FIELDS = (
    "version",
    "is_current",
    "sha256",
    "file_name",
    "mime",
    "effective_from",
    "effective_until",
    "searched",
    "superseded_on",
    "created_at",
)
_CHUNK_FIELDS = ("index", "chunk_id", "section", "page", "start", "end", "text")


class _ReadOnlyInline(admin.TabularInline):
    """Versions and chunks are written by ingest only: listed and linked, never added or removed here."""

    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class VersionInline(_ReadOnlyInline):
    model = DocumentVersion
    fields = _VERSION_FIELDS
    readonly_fields = _VERSION_FIELDS

    def get_queryset(self, request: HttpRequest) -> QuerySet[DocumentVersion]:
        # Each row's name ("<source_id> v<n>") reads its document: joined once, not fetched per version. The
        # versions' full text is not shown here, so it is not read.
        return super().get_queryset(request).select_related("document").defer("text")


class DocumentAdminForm(forms.ModelForm):  # type: ignore[type-arg]
    """A title and a URL as the pages and the API take them (validation.validate_title, validate_url): no control
    characters or bidi overrides in a title, an http(s) URL only."""

    url = DocumentURLField(label=gettext_lazy("URL"), required=False, max_length=1000)

    class Meta:
        model = Document
        fields = ["title"]  # the admin's `fields` are the form's

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if "title" in self.fields:
            self.fields["title"].validators.append(validate_title)

    def clean_groups(self) -> Any:
        """Groups added as the pages and the API add them (access.check_access_groups: no role group). A role group a
        document already has is kept: dropping it unasked would open the document to every staff member."""
        groups = self.cleaned_data.get("groups")
        kept = set(self.instance.groups.values_list("name", flat=True)) if self.instance.pk else set()
        try:
            access.check_access_groups(group.name for group in groups or () if group.name not in kept)
        except access.NotAccessGroups as exc:
            raise forms.ValidationError(str(exc), code=exc.code) from None
        return groups


@admin.register(Document)
class DocumentAdmin(admin.ModelAdmin):
    form = DocumentAdminForm
    list_display = ["source_id", "title", "level", "current_version_number", "updated_at"]
    list_filter = ["level", "groups"]
    list_select_related = ["level"]  # a nullable foreign key: Django's automatic select_related() skips it
    search_fields = ["source_id", "title", "url"]
    fields = ["source_id", "title", "url", "level", "groups", "created_at", "updated_at"]
    readonly_fields = ["source_id", "created_at", "updated_at"]
    filter_horizontal = ["groups"]
    inlines = [VersionInline]
    actions = ["set_level"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # documents arrive through ingest (CLI, API, upload), with their text

    def get_queryset(self, request: HttpRequest) -> QuerySet[Document]:
        # The current version's number read with the rows (one statement for a page of 100, not one per row).
        current = DocumentVersion.objects.filter(document=OuterRef("pk"), is_current=True).values("version")[:1]
        return super().get_queryset(request).annotate(current_version_no=Subquery(current))

    @admin.display(description="current version", ordering="current_version_no")
    def current_version_number(self, obj: Document) -> int | None:
        if hasattr(obj, "current_version_no"):
            return obj.current_version_no  # type: ignore[no-any-return]
        version = obj.current_version()
        return version.version if version else None

    def save_model(self, request: HttpRequest, obj: Document, form: Any, change: bool) -> None:
        """The level, the title and the URL through their one path each, as on the pages and in the API: a level change
        is audited (document_set_level), a rename recorded, re-indexed and re-embedded (services.documents
        .document_update)."""
        new_level, new_title, new_url = obj.level, obj.title, obj.url
        if change:
            stored = Document.objects.get(pk=obj.pk)
            obj.level, obj.title, obj.url = stored.level, stored.title, stored.url
        super().save_model(request, obj, form, change)
        if change:
            document_update(user=request.user, document=obj, title=new_title, url=new_url)
            obj.title, obj.url = new_title, new_url
        document_set_level(user=request.user, document=obj, level=new_level)

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        """The groups through the one audited path (services.levels.document_set_groups), as on the pages."""
        groups = list(form.cleaned_data.get("groups") or [])
        form.cleaned_data["groups"] = list(form.instance.groups.all())  # the form's own save keeps them
        super().save_related(request, form, formsets, change)
        document_set_groups(user=request.user, document=form.instance, groups=groups)

    @admin.action(description="Set level of selected documents")
    def set_level(self, request: HttpRequest, queryset: QuerySet[Document]) -> HttpResponse | None:
        if "apply" in request.POST:
            form = SetLevelForm(request.POST)
            if form.is_valid():
                level = form.cleaned_data["level"]
                changed = documents_set_level(user=request.user, documents=queryset, level=level)
                name = level.slug if level else "no level"
                self.message_user(request, f"{changed} document(s) set to {name}.", messages.SUCCESS)
                return None
        else:
            form = SetLevelForm()
        context = {
            **self.admin_site.each_context(request),
            "title": "Set level",
            "documents": queryset,
            "form": form,
            "action_checkbox_name": ACTION_CHECKBOX_NAME,
            "opts": self.model._meta,
        }
        return TemplateResponse(request, "admin/rag_app/document/set_level.html", context)


class ChunkInline(_ReadOnlyInline):
    model = Chunk
    fields = _CHUNK_FIELDS
    readonly_fields = _CHUNK_FIELDS


@admin.register(DocumentVersion)
class DocumentVersionAdmin(ReadOnlyAdmin):
    list_display = ["__str__", "is_current", "searched", "superseded_on", "file_name", "mime", "created_at"]
    list_filter = ["is_current", "searched", "mime"]
    search_fields = ["document__source_id", "document__title", "sha256", "file_name"]
    list_select_related = ["document"]
    exclude = ["text"]
    readonly_fields = ["text_preview"]
    inlines = [ChunkInline]

    @admin.display(description="text (first 2,000 characters)")
    def text_preview(self, obj: DocumentVersion) -> str:
        return obj.text[:2000]  # auto-escaped by the admin template


@admin.register(Chunk)
class ChunkAdmin(ReadOnlyAdmin):
    list_display = ["chunk_id", "section", "page", "start", "end"]
    search_fields = ["chunk_id", "text", "section"]
    list_select_related = ["version__document"]


@admin.register(LevelChange)
class LevelChangeAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "username", "field", "source_id", "level", "old_value", "new_value"]
    list_filter = ["field"]
    search_fields = ["source_id", "old_value", "new_value", "username"]
    list_select_related = ["user", "document", "level"]


@admin.register(DocumentEvent)
class DocumentEventAdmin(ReadOnlyAdmin):
    """Retirements, restorations and deletions: who, when, which source_id (kept after a deletion)."""

    list_display = ["created_at", "action", "source_id", "username"]
    list_filter = ["action"]
    search_fields = ["source_id", "username"]


@admin.register(IngestJob)
class IngestJobAdmin(ReadOnlyAdmin):
    """Recent ingest jobs, newest first: who queued which file, its state, progress and outcome. Read-only:
    workers write them (a job is followed on the upload page and at /api/v1/ingest-jobs/<id>)."""

    list_display = ["id", "created_at", "state", "kind", "source_id", "file_name", "who", "progress", "outcome"]
    list_filter = ["state", "kind", "created_at"]
    search_fields = ["source_id", "file_name", "username", "error_code"]
    list_select_related = ["user"]
    date_hierarchy = "created_at"
    exclude = ["payload"]  # the file's bytes while queued: never shown here

    def get_queryset(self, request: HttpRequest) -> QuerySet[IngestJob]:
        return super().get_queryset(request).defer("payload")

    @admin.display(description="who")
    def who(self, obj: IngestJob) -> str:
        return obj.username or "(operator)"

    @admin.display(description="progress")
    def progress(self, obj: IngestJob) -> str:
        return f"{obj.progress_done}/{obj.progress_total}"

    @admin.display(description="outcome")
    def outcome(self, obj: IngestJob) -> str:
        return "; ".join(str(result.get("line", "")) for result in obj.results or [])


admin.site.unregister(Group)


@admin.register(Group)
class AccessGroupAdmin(GroupAdmin):
    """Groups are roles and documents' access groups. A role group is neither renamed nor deleted (access.ROLES). One
    that documents use is not deleted (the page and the bulk action name those documents, as Django names protected
    objects): deleting it took it off them, and a document left with no group is open to every staff user, a widening
    no change log recorded. Take the group off the documents first (their change form: an audited `document.groups`
    change), or give them another."""

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        """A role group keeps its name: the roles are these groups by name (access.STAFF, ...), so "staff" renamed
        "Staff" took the role from every member, each page then a 403."""
        fields = super().get_readonly_fields(request, obj)
        return (*fields, "name") if obj is not None and obj.name in access.ROLES else fields

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> tuple[Any, Any, Any, list[Any]]:
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        role = gettext("a role: deleting it would take the role from every member")
        roles = [
            format_html("{}: {} ({})", gettext("Group"), group.name, role)
            for group in objs
            if group.name in access.ROLES
        ]
        why = gettext("restricted to this group: deleting it would open the document to every staff user")
        used = [
            format_html(
                '{}: <a href="{}">{}</a> ({})',
                gettext("Document"),
                reverse("admin:rag_app_document_change", args=[document.pk]),
                document.source_id,
                why,
            )
            for document in selectors.documents_restricted_to(groups=objs)
        ]
        return deleted, counts, perms_needed, [*protected, *roles, *used]


def _superusers_only(request: HttpRequest) -> bool:
    """The Django admin lists every document whatever its groups: it is the superuser's tool.

    Admins who are not superusers manage the documents they may see from the app's own pages
    (/manage/...), which go through rag_app.access like every other read.
    """
    return bool(request.user.is_active and request.user.is_superuser)


admin.site.has_permission = _superusers_only  # type: ignore[method-assign]
