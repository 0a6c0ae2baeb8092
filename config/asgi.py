import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()

from rag_app.services import warmup  # noqa: E402  (needs the settings and apps loaded above)

warmup.start()  # the first question does not wait for the dictionaries and the embedder
