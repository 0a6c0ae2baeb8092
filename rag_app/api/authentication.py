"""The API's token authentication (its own module: DRF imports it from settings while loading its views)."""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _
from rest_framework.authentication import TokenAuthentication
from rest_framework.exceptions import AuthenticationFailed

# What a token key can be (DRF makes 40 hex digits; the column holds 40 characters): printable ASCII.
_TOKEN_KEY = re.compile(r"[!-~]{1,40}")


class KeyTokenAuthentication(TokenAuthentication):
    """DRF's token authentication, but a key that cannot be one is refused (401, as an unknown key) before the
    lookup: `Token a<NUL>b` made PostgreSQL raise a DataError, a 500."""

    def authenticate_credentials(self, key: str) -> Any:
        if not _TOKEN_KEY.fullmatch(key):
            raise AuthenticationFailed(_("Invalid token."))
        return super().authenticate_credentials(key)
