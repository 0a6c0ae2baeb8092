from django.urls import path

from rag_app.views import ask, documents, feedback, levels, review

urlpatterns = [
    path("", ask.ask, name="ask"),
    path("answers/<int:pk>/", ask.answer_detail, name="answer_detail"),
    path("answers/<int:pk>/feedback/", feedback.answer_feedback, name="answer_feedback"),
    path("history/", ask.history, name="history"),
    path("documents/", documents.document_list, name="document_list"),
    path("manage/documents/upload/", documents.document_upload, name="document_upload"),
    # The action comes first, so any source_id (slashes included) ends the path unambiguously.
    path("manage/documents/retire/<path:source_id>", documents.document_retire, name="document_retire"),
    path("manage/documents/restore/<path:source_id>", documents.document_restore, name="document_restore"),
    path("manage/documents/delete/<path:source_id>", documents.document_delete, name="document_delete"),
    # source_id may hold slashes: the path converter takes them, the "/v<n>/" tail ends it.
    path("documents/<path:source_id>/v<int:version>/", documents.document_version, name="document_version"),
    path("documents/<path:source_id>/", documents.document_latest, name="document_latest"),
    path("review/", review.answer_list, name="review_list"),
    path("review/answers/<int:pk>/", review.provenance, name="answer_provenance"),
    path("review/answers/<int:pk>/replay/", review.replay, name="answer_replay"),
    path("review/answers/<int:pk>/verdict/", feedback.answer_verdict, name="answer_verdict"),
    path("manage/levels/", levels.levels_page, name="levels"),
    path("manage/levels/new/", levels.level_create, name="level_create"),
    path("manage/levels/<int:pk>/", levels.level_update, name="level_update"),
    path("manage/documents/level/", levels.document_levels, name="document_levels"),
]
