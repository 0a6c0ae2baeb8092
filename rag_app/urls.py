from django.urls import path

from rag_app.views import ask, documents, review

urlpatterns: list = []
