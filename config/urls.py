from django.contrib import admin
from django.urls import include, path

from rag_app.views.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("rag_app.api.urls")),
    path("", include("rag_app.urls")),
]

# Styled error pages, JSON under /api/ (rag_app/views/errors.py): the 403 page always, the 404 and
# 500 pages when DEBUG is off (DEBUG shows Django's technical pages instead).
handler403 = "rag_app.views.errors.permission_denied"
handler404 = "rag_app.views.errors.page_not_found"
handler500 = "rag_app.views.errors.server_error"
