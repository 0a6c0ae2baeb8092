"""deadline.Watchdog over real sockets and the real openai client: a call whose server trickles (headers, a body, a
streamed reply; plain HTTP or TLS) ends at the watchdog's time, and a call under it leaves no thread or connection
behind. Every server here keeps its connections alive and is never silent long enough for a read timeout."""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest

from rag_app.deadline import NO_KEEPALIVE, Watchdog, watchdog_hooks
from tests.llm_server import stalling_server

MESSAGES: Any = [{"role": "user", "content": "q"}]
# Sockets close and threads end as the watchdog fires; what a loaded machine adds (the suite runs beside other work)
# stays under this, and a stall the watchdog missed runs on for the stalling server's ten seconds and more.
MARGIN_S = 1.5


def client(url: str, verify: ssl.SSLContext | bool = True) -> openai.OpenAI:
    """The openai client as OpenAICompatGenerator builds it; a read timeout far longer than any test."""
    http = openai.DefaultHttpxClient(limits=NO_KEEPALIVE, event_hooks=watchdog_hooks(), verify=verify)
    return openai.OpenAI(base_url=url, api_key="unused", max_retries=0, timeout=30.0, http_client=http)


def cut_after(seconds: float, call: Callable[[], object]) -> tuple[Watchdog, float, BaseException]:
    started = time.monotonic()
    with pytest.raises((openai.APIConnectionError, httpx.TransportError)) as info, Watchdog(seconds) as watchdog:
        call()
    return watchdog, time.monotonic() - started, info.value


@pytest.mark.parametrize("stall", ["headers", "body"])
def test_a_reply_that_trickles_is_cut_at_the_watchdogs_time(stall: str) -> None:
    with stalling_server(stall) as server:
        model = client(server.base_url)
        watchdog, elapsed, _ = cut_after(1.0, lambda: model.chat.completions.create(model="m", messages=MESSAGES))
    assert watchdog.fired
    assert 1.0 <= elapsed < 1.0 + MARGIN_S, elapsed


def test_a_streamed_reply_read_inside_the_watchdog_is_cut_too() -> None:
    events = 0

    def read() -> None:
        nonlocal events
        for _ in model.chat.completions.create(model="m", messages=MESSAGES, stream=True):
            events += 1

    with stalling_server("stream") as server:
        model = client(server.base_url)
        watchdog, elapsed, _ = cut_after(1.0, read)
    assert watchdog.fired and events >= 2  # the reply was flowing when it was cut
    assert 1.0 <= elapsed < 1.0 + MARGIN_S, elapsed


@pytest.fixture(scope="module")
def tls(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ssl.SSLContext, ssl.SSLContext]]:
    """A self-signed certificate for 127.0.0.1: the server's context and a client's that trusts it."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    folder: Path = tmp_path_factory.mktemp("tls")
    pem = cert.public_bytes(serialization.Encoding.PEM)
    (folder / "cert.pem").write_bytes(pem)
    (folder / "key.pem").write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(folder / "cert.pem", folder / "key.pem")
    yield server, ssl.create_default_context(cadata=pem.decode())


def test_a_reply_that_trickles_over_tls_is_cut_at_the_watchdogs_time(
    tls: tuple[ssl.SSLContext, ssl.SSLContext],
) -> None:
    """The socket to shut down is the TLS one (the plain socket it wraps is detached from its connection)."""
    server_context, client_context = tls
    with stalling_server("headers", tls=server_context) as server:
        model = client(server.base_url, verify=client_context)
        watchdog, elapsed, _ = cut_after(1.0, lambda: model.chat.completions.create(model="m", messages=MESSAGES))
    assert server.base_url.startswith("https://") and server.requests == 1
    assert watchdog.fired
    assert 1.0 <= elapsed < 1.0 + MARGIN_S, elapsed


def test_a_connection_opened_after_the_time_is_up_is_cut_at_once() -> None:
    with stalling_server("headers") as server:
        model = client(server.base_url)
        watchdog, elapsed, _ = cut_after(0.0, lambda: model.chat.completions.create(model="m", messages=MESSAGES))
    assert watchdog.fired and elapsed < MARGIN_S, elapsed


def open_sockets() -> int:
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            count += os.readlink(f"/proc/self/fd/{fd}").startswith("socket:")
        except OSError:  # the listing's own descriptor, closed by now
            continue
    return count


def settles(check: Callable[[], bool]) -> bool:
    """True once `check` holds (the test server's threads finish a request a moment after the client has it)."""
    until = time.monotonic() + 3.0
    while not check():
        if time.monotonic() > until:
            return False
        time.sleep(0.02)
    return True


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts open sockets through /proc")
def test_a_call_under_a_watchdog_leaves_no_thread_or_connection_behind() -> None:
    """A reply in time: the timer thread is stopped at once (not left to run out), and the connection is closed
    though the server would keep it open: a later call on it would be one whose socket the watchdog never sees."""
    threads, sockets = set(threading.enumerate()), open_sockets()
    with stalling_server("ok") as server:
        model = client(server.base_url)
        started = time.monotonic()
        for _ in range(2):
            with Watchdog(60.0) as watchdog:
                reply = model.chat.completions.create(model="m", messages=MESSAGES)
            assert reply.choices[0].message.content == "ok" and not watchdog.fired
        assert time.monotonic() - started < 5.0
        assert settles(lambda: open_sockets() <= sockets + 1), (open_sockets(), sockets)  # the server's listener
        assert server.requests == 2
    assert settles(lambda: set(threading.enumerate()) <= threads), set(threading.enumerate()) - threads


def test_a_watchdog_that_fired_leaves_no_thread_or_connection_behind() -> None:
    threads, sockets = set(threading.enumerate()), open_sockets()
    with stalling_server("body") as server:
        model = client(server.base_url)
        watchdog, _, _ = cut_after(0.5, lambda: model.chat.completions.create(model="m", messages=MESSAGES))
    assert watchdog.fired
    assert settles(lambda: set(threading.enumerate()) <= threads), set(threading.enumerate()) - threads
    assert settles(lambda: open_sockets() <= sockets), (open_sockets(), sockets)


def test_a_call_outside_any_watchdog_is_left_to_its_timeouts() -> None:
    """No watchdog is active: the request carries no trace and a read timeout still ends a silent server."""
    requests: list[httpx.Request] = []
    with stalling_server("body") as server:
        http = httpx.Client(limits=NO_KEEPALIVE, event_hooks=watchdog_hooks(), timeout=0.1)
        http.event_hooks["request"].append(requests.append)
        with pytest.raises(httpx.ReadTimeout), http:
            http.post(server.base_url + "/chat/completions", json={})
    assert requests and "trace" not in requests[0].extensions
