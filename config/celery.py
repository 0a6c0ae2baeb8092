"""The Celery app: ingest runs in worker processes (`celery -A config worker`).

Settings come from Django's (CELERY_* in config/settings.py, all from the environment). The default
broker is kombu's SQLAlchemy transport on a SQLite file under var/, so `make run` needs no server;
production and the test suite use Redis (CELERY_BROKER_URL=redis://...). docs/DEPLOYMENT.md.
"""

from __future__ import annotations

import os
from pathlib import Path

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def ensure_broker_folder(url: str) -> None:
    """SQLite makes its file but not the folder: create var/ (or wherever the file lives) first."""
    prefix = "sqla+sqlite:///"
    if url.startswith(prefix) and url != prefix + ":memory:":
        Path(url[len(prefix) :]).parent.mkdir(parents=True, exist_ok=True)
