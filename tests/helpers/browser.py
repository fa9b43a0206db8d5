"""Helpers for tests that drive pages in a real browser: the system's headless Chromium
(Debian package `chromium`, installed by scripts/test) through Playwright, and apps
served over real HTTP on free loopback ports.

Playwright never downloads a browser here: it launches `/usr/bin/chromium`.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from playwright.async_api import Browser, Playwright, async_playwright, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from tests.serving import uvicorn_on

CHROMIUM = os.environ.get("RAMP_TEST_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
OUTPUT = Path(__file__).resolve().parents[2] / "test-output"
# How long an assertion on a page waits for its condition. Playwright's `expect` waits
# 5 s by default whatever the page's own default timeout says, and a step that waits on
# the workflow can take longer than that on a loaded CI machine (seen: a heading after
# the identity step missed by the 5 s default). Every browser test imports this module.
ASSERTION_WAIT_MS = 15_000
expect.set_options(timeout=ASSERTION_WAIT_MS)


def require_chromium() -> None:
    if shutil.which(CHROMIUM) is None:
        pytest.fail(f"{CHROMIUM} is missing: ./scripts/test installs it (apt-get install chromium)")


class _Launched:
    """The test process's one Chromium, launched at its first use and closed when the
    session ends (`close_chromium`, tests/conftest.py). A launch cost about a second of
    CPU, and the browser modules launched 19 in a run; each test still gets pages of its
    own context (`Browser.new_page`), so nothing passes from one test to the next."""

    playwright: Playwright | None = None
    browser: Browser | None = None


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    require_chromium()
    if _Launched.browser is None or not _Launched.browser.is_connected():
        if _Launched.playwright is None:
            _Launched.playwright = await async_playwright().start()
        _Launched.browser = await _Launched.playwright.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True
        )
    browser = _Launched.browser
    try:
        yield browser
    finally:
        # What the test left open is closed; the browser stays for the next.
        for context in browser.contexts:
            await context.close()


async def close_chromium() -> None:
    if _Launched.browser is not None:
        await _Launched.browser.close()
    if _Launched.playwright is not None:
        await _Launched.playwright.stop()
    _Launched.browser = _Launched.playwright = None


@asynccontextmanager
async def served(app: ASGIApp, sock: socket.socket) -> AsyncIterator[None]:
    """`app` served by uvicorn on `sock`, in this event loop, lifespan included."""
    async with uvicorn_on(app, sock, lifespan="on", http="h11", ws="none"):
        yield


# The embedding page: what a project's app does with frontendUrl. It records every
# message it receives (type, data and the sender's origin) for the test to read.
_HOST_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Example wallet app</title>
<style>
  body { margin: 0; font-family: system-ui, sans-serif; background: #0f1b2d; }
  header { color: #fff; padding: 10px 14px; font-weight: 600; }
  iframe { display: block; width: 100%; height: calc(100vh - 44px); border: 0; background: #fff; }
</style></head>
<body>
<header>Example wallet app</header>
<iframe id="onboarding" title="Verification" allow="clipboard-write"></iframe>
<script>
  window.received = [];
  window.addEventListener("message", (event) => {
    window.received.push({origin: event.origin, type: event.data.type, data: event.data.data});
  });
  document.getElementById("onboarding").src = SOURCE;
</script>
</body></html>
"""


async def _host(request: Request) -> Response:
    source = request.query_params.get("src", "about:blank")
    return HTMLResponse(_HOST_PAGE.replace("SOURCE", json.dumps(source)))


async def _done(request: Request) -> Response:
    return HTMLResponse("<!doctype html><title>Back in the app</title><h1>Back in the app</h1>")


def host_app() -> Starlette:
    """A project's web app: `/host?src=<frontendUrl>` embeds the onboarding in an iframe;
    `/done` is where `redirectUrl` points."""
    return Starlette(
        routes=[Route("/host", _host, methods=["GET"]), Route("/done", _done, methods=["GET"])]
    )


def screenshots_dir(test_name: str) -> Path:
    """Where a test saves its screenshots (test-output/ is ignored by git)."""
    folder = OUTPUT / "onboarding" / test_name
    folder.mkdir(parents=True, exist_ok=True)
    return folder
