"""Checks that a response is the one error envelope, with the status and code expected."""

from __future__ import annotations

from typing import Any

import httpx

ENVELOPE_KEYS = {"statusCode", "error", "code", "message", "details", "requestId"}


def assert_envelope(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    body: dict[str, Any] = response.json()
    assert set(body) == ENVELOPE_KEYS
    assert body["statusCode"] == status
    assert body["code"] == code
    assert isinstance(body["message"], str)
    assert body["message"]
    assert "Traceback" not in response.text
    # The id a client quotes to support: the one its answer's header carries.
    assert body["requestId"] == response.headers["X-Request-Id"]
    return body
