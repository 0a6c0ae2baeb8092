"""A wall-clock limit on one HTTP call made through httpx (the openai client's transport).

httpx applies its timeouts to each network operation (connecting, each read, each write), never to a call as a whole
(encode/httpx#1450): a server that sends a header line or a byte of its reply every few seconds holds a call as long
as it likes, and a read that has begun gets its whole timeout whatever time is left. A `Watchdog` bounds the calls made
inside it: a timer that, when the time is up, shuts down the sockets those calls opened, so the read or write in
progress ends at once with an error (closing a socket does not wake a thread blocked on it; shutting it down does) and
`fired` says why. The sockets are learnt through httpcore's `trace` request extension, which `watchdog_hooks()` (an
httpx request event hook) sets on every request made while a Watchdog is active in the calling context.

The trace sees a socket when it is opened, not when a pooled connection is taken again: an http client used under a
Watchdog must keep no connection alive between calls (`NO_KEEPALIVE`). The name lookup before connecting is the
system resolver's, which no timeout here bounds.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable
from contextvars import ContextVar, Token
from types import TracebackType
from typing import Any, TypeVar

import httpx

# Every call opens its own connection, so the trace sees every socket a call uses (see above).
NO_KEEPALIVE = httpx.Limits(max_connections=100, max_keepalive_connections=0)

T = TypeVar("T")

_ACTIVE: ContextVar[Watchdog | None] = ContextVar("http_watchdog", default=None)
# httpcore's trace events that hand over a new network stream: a connection (a proxy's too), and the TLS stream that
# replaces it (the socket object a TLS wrap detaches is no longer the one to shut down).
_NEW_STREAM_EVENTS = ("connect_tcp.complete", "start_tls.complete")


class Watchdog:
    """`with Watchdog(seconds) as watchdog:` ends the HTTP calls made inside at `seconds` from entering, by shutting
    down their sockets; `watchdog.fired` then tells the caller that the error it got was the time running out. The
    timer thread is stopped and joined on leaving. A streamed reply must be read inside the `with` to be bounded."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.fired = False
        self._lock = threading.Lock()
        self._sockets: list[socket.socket] = []
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._token: Token[Watchdog | None] | None = None

    def __enter__(self) -> Watchdog:
        self._token = _ACTIVE.set(self)
        self._timer.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._timer.cancel()
        self._timer.join()
        if self._token is not None:
            _ACTIVE.reset(self._token)
        with self._lock:
            self._sockets.clear()

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace extension: keep each socket the call opens; one opened after the time is up is shut down
        at once (its connect ended just then)."""
        if not event.endswith(_NEW_STREAM_EVENTS):
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        if not isinstance(sock, socket.socket):
            return
        with self._lock:
            self._sockets.append(sock)
            fired = self.fired
        if fired:
            _shut_down(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut_down(sock)


def _shut_down(sock: socket.socket) -> None:
    # socket.socket's own shutdown, also on a TLS socket: only the TCP connection is shut down, and the TLS state is
    # left to the thread reading through it. The connection's owner (httpcore) still closes the socket.
    with contextlib.suppress(OSError):  # already closed, or never connected
        socket.socket.shutdown(sock, socket.SHUT_RDWR)


def watchdog_hooks() -> dict[str, list[Any]]:
    """httpx event hooks that put the active Watchdog's trace on each request (after any trace already there)."""

    def on_request(request: httpx.Request) -> None:
        watchdog = _ACTIVE.get()
        if watchdog is None:
            return
        earlier = request.extensions.get("trace")

        def trace(event: str, info: dict[str, Any]) -> None:
            watchdog.trace(event, info)
            if earlier is not None:
                earlier(event, info)

        request.extensions["trace"] = trace

    return {"request": [on_request]}


def openai_call_within(seconds: float, call: Callable[[], T]) -> T:
    """`call()`, a request of the openai client made with this module's hooks, ended `seconds` from now in wall-clock
    time. The error a connection the Watchdog cut gives (a read or write failing) is the call's timeout,
    openai.APITimeoutError, as the client's own timeouts give it."""
    import openai

    with Watchdog(seconds) as watchdog:
        try:
            return call()
        except openai.APIConnectionError as exc:
            if watchdog.fired and not isinstance(exc, openai.APITimeoutError):
                raise openai.APITimeoutError(request=exc.request) from exc
            raise
