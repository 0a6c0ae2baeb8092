from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from . import views
from .errors import not_found
from .schema import schema_settings

urlpatterns = [
    path("ask", views.AskApi.as_view(), name="api_ask"),
    path("answers/", views.AnswerListApi.as_view(), name="api_answers"),
    path("answers/<int:answer_id>", views.AnswerDetailApi.as_view(), name="api_answer"),
    path("answers/<int:answer_id>/trace", views.AnswerTraceApi.as_view(), name="api_answer_trace"),
    path("answers/<int:answer_id>/feedback", views.AnswerFeedbackApi.as_view(), name="api_answer_feedback"),
    path("answers/<int:answer_id>/review", views.AnswerReviewApi.as_view(), name="api_answer_review"),
    path("documents/", views.DocumentListApi.as_view(), name="api_documents"),
    path("documents/<path:source_id>/versions/", views.DocumentVersionsApi.as_view(), name="api_document_versions"),
    path("documents/<path:source_id>/retire", views.DocumentRetireApi.as_view(), name="api_document_retire"),
    path("documents/<path:source_id>/restore", views.DocumentRestoreApi.as_view(), name="api_document_restore"),
    path("documents/<path:source_id>", views.DocumentDetailApi.as_view(), name="api_document"),
    path("ingest-jobs/", views.IngestJobListApi.as_view(), name="api_ingest_jobs"),
    path("ingest-jobs/<int:job_id>", views.IngestJobDetailApi.as_view(), name="api_ingest_job"),
    path("chunks/<path:chunk_id>", views.ChunkDetailApi.as_view(), name="api_chunk"),
    path("levels/", views.LevelListApi.as_view(), name="api_levels"),
    path("levels/<slug:slug>", views.LevelDetailApi.as_view(), name="api_level"),
    path("schema/", SpectacularAPIView.as_view(custom_settings=schema_settings()), name="api_schema"),
    # Split view: the init script is a separate file, so the page works under our CSP (no inline script).
    # (Redoc is not offered: its template loads web fonts from outside.)
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api_schema"), name="api_docs"),
    re_path(r"^[\s\S]*$", not_found),  # [\s\S]: paths with encoded newlines too
]
