from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from rag_app.views.health import healthz

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Signing in and out, and changing one's own password once signed in. No password reset by e-mail: accounts and
    # their passwords are an admin's to manage (docs/SECURITY.md); an anonymous reset form would send mail on request
    # and answer differently for an address that has an account.
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password_change/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password_change/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("rag_app.api.urls")),
    path("", include("rag_app.urls")),
]

# Styled error pages, JSON under /api/ (rag_app/views/errors.py): the 403 page always, the 404 and
# 500 pages when DEBUG is off (DEBUG shows Django's technical pages instead).
handler403 = "rag_app.views.errors.permission_denied"
handler404 = "rag_app.views.errors.page_not_found"
handler500 = "rag_app.views.errors.server_error"
