"""Pages seen signed in (with a session cookie) are never kept by a shared cache or the browser's history cache.

Django sets no Cache-Control on a view's response unless the view asks for it, and an authenticated page
here may show text of a restricted document: a shared proxy that cached it (the session cookie is no
Authorization header, which would keep it out of a shared cache) could serve it to the next user, and after
signing out the back button could show it again. The API sets `no-store` itself (rag_app/api/base.py). Static
files never reach this middleware (WhiteNoise answers them above it), and a response that sets its own
Cache-Control is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.cache import add_never_cache_headers


class PrivatePagesMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        # A session cookie, not request.user: reading the user costs queries, and the 500 page must render with
        # none (the database may be what failed). A stale cookie of a signed-out visitor only costs a re-fetch.
        if "Cache-Control" not in response and settings.SESSION_COOKIE_NAME in request.COOKIES:
            add_never_cache_headers(response)  # private, no-cache, no-store, must-revalidate, max-age=0
        return response
