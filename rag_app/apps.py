from django.apps import AppConfig


class RagAppConfig(AppConfig):
    name = "rag_app"
    verbose_name = "Document assistant"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from rag_app import checks  # noqa: F401  registers the data checks
        from rag_app.search import signals

        signals.connect()
