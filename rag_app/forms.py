"""Forms of the web UI. Validation only; the work happens in services."""

from __future__ import annotations

from django import forms
from django.contrib.auth.models import Group
from django.utils.translation import gettext_lazy as _

from rag_app.models import Answer, Document, SourceLevel

QUESTION_MAX_CHARS = 2000


class AskForm(forms.Form):
    question = forms.CharField(
        label=_("Question"),
        max_length=QUESTION_MAX_CHARS,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3, "autofocus": True}),
    )


class ReviewFilterForm(forms.Form):
    FLAG_CHOICES = [
        ("", _("any")),
        ("insufficient", _("has insufficient paragraphs")),
        ("weak", _("has weak support")),
        ("conflict", _("flagged as conflicting")),
    ]

    state = forms.ChoiceField(label=_("State"), required=False, choices=[("", _("any")), *Answer.State.choices])
    flag = forms.ChoiceField(label=_("Flag"), required=False, choices=FLAG_CHOICES)
    user = forms.CharField(label=_("User"), required=False, max_length=150)
    document = forms.CharField(label=_("Document (source id)"), required=False, max_length=500)
    date_from = forms.DateField(label=_("From"), required=False, widget=forms.DateInput(attrs={"type": "date"}))
    date_to = forms.DateField(label=_("To"), required=False, widget=forms.DateInput(attrs={"type": "date"}))


class LevelCreateForm(forms.ModelForm):
    class Meta:
        model = SourceLevel
        fields = ["slug", "label", "weight", "description"]
        labels = {"slug": _("Slug"), "label": _("Label"), "weight": _("Weight"), "description": _("Description")}
        widgets = {"description": forms.Textarea(attrs={"rows": 2, "cols": 30})}


class LevelUpdateForm(forms.Form):
    label = forms.CharField(label=_("Label"), max_length=100)
    weight = forms.FloatField(label=_("Weight"))


class DocumentLevelForm(forms.Form):
    """One document or many: the same form serves the single and the bulk change."""

    documents = forms.ModelMultipleChoiceField(label=_("Documents"), queryset=Document.objects.all())
    level = forms.ModelChoiceField(
        label=_("Level"), queryset=SourceLevel.objects.all(), required=False, empty_label=_("(no level)")
    )


class DocumentUploadForm(forms.Form):
    """Admins add a document or a new version of one; the ingest service does the work."""

    file = forms.FileField(label=_("File"), help_text=_("txt, md, html or pdf"))
    source_id = forms.CharField(
        label=_("Source id"), required=False, max_length=500, help_text=_("Stable id; defaults to the file name.")
    )
    title = forms.CharField(label=_("Title"), required=False, max_length=500)
    url = forms.URLField(label=_("URL"), required=False, max_length=1000, assume_scheme="https")
    level = forms.ModelChoiceField(
        label=_("Level"), queryset=SourceLevel.objects.all(), required=False, to_field_name="slug"
    )
    groups = forms.ModelMultipleChoiceField(
        label=_("Access groups"),
        queryset=Group.objects.all(),
        required=False,
        to_field_name="name",
        help_text=_("None = all staff."),
    )
    effective_from = forms.DateField(
        label=_("Effective from"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    effective_until = forms.DateField(
        label=_("Effective until"), required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
