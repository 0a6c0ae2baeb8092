import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()

from rag_app.services import warmup  # noqa: E402  (needs the settings and apps loaded above)

warmup.start()  # the first question does not wait for the dictionaries and the embedder
