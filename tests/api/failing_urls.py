"""A URLconf with one API view that fails unexpectedly, to test what a client sees then."""

from django.urls import include, path
from rest_framework.request import Request
from rest_framework.response import Response

from rag_app.api.base import ApiView


class FailingApi(ApiView):
    permission_classes = []

    def get(self, request: Request) -> Response:
        raise RuntimeError("secret internal detail /etc/passwd")


urlpatterns = [
    path("api/v1/failing", FailingApi.as_view()),
    path("api/v1/", include("rag_app.api.urls")),
]
