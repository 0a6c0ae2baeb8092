"""Real headless Chromium (Debian `chromium`) driven by Playwright against pytest-django's live_server."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, sync_playwright

CHROMIUM = os.environ.get("RAG_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "pw-for-tests-only"


@pytest.fixture(scope="session", autouse=True)
def _allow_orm_next_to_playwright() -> Iterator[None]:
    """Playwright's sync API runs an event loop in this thread; Django's ORM would otherwise refuse
    to run next to it. Set only while browser tests run; the app itself never sets it."""
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    yield
    if previous is None:
        os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    else:
        os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture(scope="session")
def browser(_allow_orm_next_to_playwright: None) -> Iterator[Browser]:
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser: Browser, live_server) -> Iterator[Page]:
    """A fresh browser context on the live server; every JS dialog is recorded (and dismissed)."""
    context = browser.new_context(base_url=live_server.url, locale="en-US", viewport={"width": 1280, "height": 900})
    tab = context.new_page()
    tab.dialogs = []  # type: ignore[attr-defined]

    def on_dialog(dialog) -> None:
        tab.dialogs.append(dialog.message)  # type: ignore[attr-defined]
        dialog.dismiss()

    tab.on("dialog", on_dialog)
    tab.console_errors = []  # type: ignore[attr-defined]
    tab.on("console", lambda msg: msg.type == "error" and tab.console_errors.append(msg.text))  # type: ignore[attr-defined]
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


PHONE = {"width": 390, "height": 844}


@pytest.fixture
def phone(browser: Browser, live_server) -> Iterator[Page]:
    """A phone's browser context (390 px, touch) on the live server."""
    context = browser.new_context(base_url=live_server.url, has_touch=True, is_mobile=True, viewport=PHONE)
    tab = context.new_page()
    tab.set_default_timeout(15_000)
    yield tab
    context.close()


def login(page: Page, username: str, password: str = PASSWORD) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.click("button[type=submit]:has-text('Log in')")
    page.wait_for_url("**/")
