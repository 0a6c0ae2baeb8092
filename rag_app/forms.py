"""Forms of the web UI. Validation only; the work happens in services."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from rag_app import selectors
from rag_app.access import access_groups, visible_documents
from rag_app.ingest.parsers import ACCEPT
from rag_app.models import Answer, AnswerReview, Document, Feedback, SourceLevel
from rag_app.pipeline.records import Scope
from rag_app.services.levels import MAX_LEVEL_WEIGHT
from rag_app.services.scope import MAX_SCOPE_ITEMS, scope_clean, usable_groups
from rag_app.validation import (
    MAX_COMMENT_CHARS,
    MAX_LABEL_CHARS,
    MAX_LEVEL_DESCRIPTION_CHARS,
    MAX_QUESTION_CHARS,
    MAX_SOURCE_ID_CHARS,
    InvalidInput,
    InvalidQuestion,
    canonical_source_id,
    clean_question,
    date_order_problem,
    parent_unavailable,
    source_id_problem,
    validate_label,
    validate_url,
)

# Every Django form writes its labels' suffix as gettext(":") (forms.BaseForm), which Django's own Chinese catalogue
# leaves half-width ("结论:"). This project's catalogue comes first (LOCALE_PATHS), so the msgid is marked here to
# give every form on every page, the login form and the Django admin's included, the full-width "：".
gettext_noop(":")


class NamesField(forms.MultipleChoiceField):
    """Several names (source_ids) whose choices are only those on screen: the scope rule validates them."""

    def valid_value(self, value: str) -> bool:
        return True


class AskForm(forms.Form):
    """The question, the scope it is asked within (remembered per user), and the answer it follows up."""

    # No maxlength on the widget: a browser would cut a long paste silently; the rule below refuses
    # it with the limit named, the same message the API and the CLI give.
    question = forms.CharField(
        label=_("Question"),
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3, "autofocus": True, "data-max-chars": MAX_QUESTION_CHARS}),
    )
    parent = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)
    scope_levels = forms.MultipleChoiceField(
        label=_("Only these levels"), required=False, widget=forms.CheckboxSelectMultiple
    )
    scope_groups = forms.MultipleChoiceField(
        label=_("Only documents of these groups"), required=False, widget=forms.CheckboxSelectMultiple
    )
    scope_documents = NamesField(label=_("Only these documents"), required=False, widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args: Any, user: Any, scope: Scope | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.user = user
        if scope is not None and not self.is_bound:
            self.initial.update(scope_levels=scope.levels, scope_groups=scope.groups, scope_documents=scope.documents)
        self.fields["scope_levels"].choices = [  # type: ignore[attr-defined]
            (level.slug, level.label) for level in SourceLevel.objects.order_by("-weight", "slug")
        ]
        self.fields["scope_groups"].choices = [(g, g) for g in usable_groups(user)]  # type: ignore[attr-defined]
        chosen: list[str] = (
            self.data.getlist("scope_documents")  # type: ignore[attr-defined]  # a QueryDict when bound
            if self.is_bound
            else list(self.initial.get("scope_documents", ()))
        )
        # Only well-formed ids reach the database (a NUL byte would be an error on PostgreSQL).
        chosen = [sid for sid in chosen if source_id_problem(sid) is None]
        titles = dict(
            visible_documents(user).filter(source_id__in=chosen[:MAX_SCOPE_ITEMS]).values_list("source_id", "title")
        )
        # Offered as sent (so a box stays ticked), found in the form ids are stored in.
        self.fields["scope_documents"].choices = [  # type: ignore[attr-defined]
            (sid, titles.get(canonical_source_id(sid)) or canonical_source_id(sid))
            for sid in chosen
            if canonical_source_id(sid) in titles
        ]

    def clean_question(self) -> str:
        try:
            return clean_question(self.cleaned_data["question"])
        except InvalidQuestion as exc:
            raise forms.ValidationError(str(exc), code=exc.code) from None

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        try:
            data["scope"] = scope_clean(
                user=self.user,
                data={
                    "levels": list(data.get("scope_levels") or []),
                    "groups": list(data.get("scope_groups") or []),
                    "documents": list(data.get("scope_documents") or []),
                },
            )
        except InvalidInput as exc:
            self.add_error("scope_documents", str(exc))
        parent_id = data.get("parent")
        data["parent_answer"] = None
        if parent_id:
            data["parent_answer"] = selectors.thread_parent(user=self.user, answer_id=parent_id)
            if data["parent_answer"] is None:
                self.add_error("parent", parent_unavailable())
        return data


def _source_id_field(**kwargs: object) -> forms.CharField:
    return forms.CharField(
        label=_("Source id"),
        # No max_length: the rule says the length once (source_id_problem), not beside Django's own message.
        strip=False,  # whitespace around an id is refused by the rule, not silently removed
        validators=[_check_source_id],
        **kwargs,  # type: ignore[arg-type]
    )


def _check_source_id(value: str) -> None:
    problem = source_id_problem(value)
    if problem is not None:
        raise forms.ValidationError(problem, code="invalid_source_id")


class ReviewFilterForm(forms.Form):
    FLAG_CHOICES = [
        ("", _("any")),
        ("insufficient", _("has insufficient paragraphs")),
        ("weak", _("has weak support")),
        ("conflict", _("flagged as conflicting")),
        ("flagged", _("flagged by readers, not reviewed yet")),
    ]

    state = forms.ChoiceField(label=_("State"), required=False, choices=[("", _("any")), *Answer.State.choices])
    flag = forms.ChoiceField(label=_("Flag"), required=False, choices=FLAG_CHOICES)
    user = forms.CharField(label=_("User"), required=False, max_length=150)
    document = forms.CharField(label=_("Document (source id)"), required=False, max_length=MAX_SOURCE_ID_CHARS)
    date_from = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if (problem := date_order_problem(data.get("date_from"), data.get("date_to"))) is not None:
            self.add_error("date_to", problem)
        return data


class LevelCreateForm(forms.ModelForm):
    weight = forms.FloatField(label=_("Weight"), min_value=-MAX_LEVEL_WEIGHT, max_value=MAX_LEVEL_WEIGHT)
    # The API's limits and rule (api/views.py), not only the model's columns.
    label = forms.CharField(label=_("Label"), max_length=MAX_LABEL_CHARS, validators=[validate_label])
    description = forms.CharField(
        label=_("Description"),
        required=False,
        max_length=MAX_LEVEL_DESCRIPTION_CHARS,
        widget=forms.Textarea(attrs={"rows": 2, "cols": 30}),
    )

    class Meta:
        model = SourceLevel
        fields = ["slug", "label", "weight", "description"]
        labels = {"slug": _("Slug"), "label": _("Label"), "description": _("Description")}
        widgets = {"description": forms.Textarea(attrs={"rows": 2, "cols": 30})}


class LevelUpdateForm(forms.Form):
    label = forms.CharField(label=_("Label"), max_length=MAX_LABEL_CHARS, validators=[validate_label])
    weight = forms.FloatField(label=_("Weight"), min_value=-MAX_LEVEL_WEIGHT, max_value=MAX_LEVEL_WEIGHT)


# A level choice that changes nothing unless the user picks one: "" is "keep" (or "choose"), and
# taking a level away is its own explicit value.
KEEP = ""
NO_LEVEL = "-"


def _level_choices(empty_label: str) -> list[tuple[str, str]]:
    return [(KEEP, empty_label), (NO_LEVEL, str(_("(no level)")))] + [
        (level.slug, str(level)) for level in SourceLevel.objects.order_by("-weight", "slug")
    ]


def chosen_level(value: str) -> SourceLevel | None:
    """The level a NO_LEVEL-or-slug choice names (None = no level); KEEP is handled by the caller."""
    return None if value == NO_LEVEL else SourceLevel.objects.get(slug=value)


class DocumentLevelForm(forms.Form):
    """One document or many: the same form serves the single and the bulk change.

    Only documents the admin may see can be chosen, and the level must be chosen: the form has
    no default that would change anything.
    """

    documents = forms.ModelMultipleChoiceField(label=_("Documents"), queryset=Document.objects.none())
    level = forms.ChoiceField(label=_("Level"))

    def __init__(self, *args: object, user: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        # With their levels: the bulk change's preview shows each chosen document's level (one statement, not one each).
        documents = visible_documents(user).select_related("level")
        self.fields["documents"].queryset = documents  # type: ignore[attr-defined]
        self.fields["level"].choices = _level_choices(str(_("— choose a level —")))  # type: ignore[attr-defined]

    def clean_level(self) -> SourceLevel | None:
        value = self.cleaned_data["level"]
        if value == KEEP:
            raise forms.ValidationError(_("Choose the level to set."), code="required")
        return chosen_level(value)


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """Several files under one name (Django's documented pattern); cleans to a list."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("widget", MultipleFileInput())
        # An empty file is the ingest's to refuse, as a blank one is: its own job fails ("empty"), the others go on.
        kwargs.setdefault("allow_empty_file", True)
        super().__init__(*args, **kwargs)

    def clean(self, data: Any, initial: Any = None) -> Any:
        single = super().clean
        if isinstance(data, list | tuple):
            return [single(item, initial) for item in data] or [single(None, initial)]
        return [single(data, initial)]


MAX_FILES_PER_UPLOAD = 50


class DocumentURLField(forms.URLField):
    """A document's URL as every entry point takes it (validation.url_problem: an intranet's one-word host too),
    a scheme assumed where none is typed, as Django's URL field does."""

    default_validators = [validate_url]

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("assume_scheme", "https")
        super().__init__(**kwargs)


class DocumentUploadForm(forms.Form):
    """Admins add documents or new versions of them: each file becomes an ingest job a worker runs.

    A new version keeps the document's level and access groups unless the form changes them:
    the level's default is "keep", groups chosen replace the current ones, and making a restricted
    document open to all staff takes its own checkbox.
    """

    file = MultipleFileField(
        label=_("Files"),
        help_text=_(
            "txt, md, html, pdf, Word (docx), PowerPoint (pptx), Excel (xlsx) or csv; choose several to add them"
            " together."
        ),
        widget=MultipleFileInput(attrs={"accept": ACCEPT}),
    )
    source_id = _source_id_field(
        required=False, help_text=_("Stable id; defaults to the file name. Only with a single file.")
    )
    title = forms.CharField(label=_("Title"), required=False, max_length=500, help_text=_("Only with a single file."))
    url = DocumentURLField(label=_("URL"), required=False, max_length=1000, help_text=_("Only with a single file."))
    level = forms.ChoiceField(label=_("Level"), required=False)
    groups = forms.ModelMultipleChoiceField(
        label=_("Access groups"),
        queryset=access_groups(),  # never the role groups (access.check_access_groups)
        required=False,
        to_field_name="name",
        help_text=_(
            "Chosen groups replace the document's current ones; none chosen keeps them"
            " (a new document is then open to all staff)."
        ),
    )
    clear_groups = forms.BooleanField(label=_("Open to all staff (remove every access group)"), required=False)
    effective_from = forms.DateField(
        label=_("Effective from"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    effective_until = forms.DateField(
        label=_("Effective until"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["level"].choices = _level_choices(  # type: ignore[attr-defined]
            str(_("— keep the current level (none for a new document) —"))
        )

    def clean(self) -> dict[str, object]:
        data = super().clean() or {}
        if data.get("clear_groups") and data.get("groups"):
            self.add_error("clear_groups", _("Choose groups or open the document to all staff, not both."))
        files = data.get("file") or []
        if len(files) > MAX_FILES_PER_UPLOAD:
            self.add_error("file", _("At most %(n)d files at once.") % {"n": MAX_FILES_PER_UPLOAD})
        if len(files) > 1:
            for name in ("source_id", "title", "url"):
                if data.get(name):
                    self.add_error(name, _("Only with a single file: several files are each named by their file name."))
        return data

    def ingest_options(self) -> dict[str, object]:
        """Only what the admin chose: the `level` and `groups` arguments of the ingest service."""
        data = self.cleaned_data
        options: dict[str, object] = {}
        if data["level"] != KEEP:
            options["level"] = None if data["level"] == NO_LEVEL else data["level"]
        if data["clear_groups"]:
            options["groups"] = []
        elif data["groups"]:
            options["groups"] = [group.name for group in data["groups"]]
        return options


class FeedbackForm(forms.Form):
    """A reader's feedback: helpful / not helpful, a citation flag, or "ask a reviewer"."""

    kind = forms.ChoiceField(choices=Feedback.Kind.choices)
    citation = forms.IntegerField(required=False, min_value=1)
    comment = forms.CharField(
        label=_("Comment (optional)"),
        required=False,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 2, "data-max-chars": MAX_COMMENT_CHARS}),
    )


class ReviewForm(forms.Form):
    """A reviewer's verdict on an answer, with a note."""

    verdict = forms.ChoiceField(label=_("Verdict"), choices=AnswerReview.Verdict.choices)
    note = forms.CharField(
        label=_("Note"),
        required=False,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 2, "data-max-chars": MAX_COMMENT_CHARS}),
    )
