"""Checks that a response is the one error envelope, with the status and code expected."""

from __future__ import annotations

from typing import Any

import httpx

ENVELOPE_KEYS = {"statusCode", "error", "code", "message", "details"}


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
    return body
