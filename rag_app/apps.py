from django.apps import AppConfig


class RagAppConfig(AppConfig):
    name = "rag_app"
    verbose_name = "Document assistant"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.conf import settings

        from config.celery import ensure_broker_folder
        from rag_app import checks  # noqa: F401  registers the data checks

        ensure_broker_folder(settings.CELERY_BROKER_URL)  # the embedded broker's SQLite file lives under var/
        from rag_app.search import signals

        signals.connect()
