"""The hosted onboarding as a customer drives it: intents that need onboarding, the
submission bodies of each step (with real PNG documents), and the onboarding API's calls."""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx
from temporalio.client import Client

from ramp.intents.lifecycle import workflow_id
from tests.helpers.payments import (
    create_intent,
    register_accounts,
)
from tests.helpers.projects import bearer


def png(width: int = 2, height: int = 2, padding: int = 0) -> bytes:
    """A real PNG (grey pixels); `padding` adds an ignorable chunk to make it larger."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    raw = b"".join(b"\x00" + b"\x80" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    extra = chunk(b"tEXt", b"Comment\x00" + b"x" * padding) if padding else b""
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + extra
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def document(content: bytes | None = None, content_type: str = "image/png") -> dict[str, str]:
    data = content if content is not None else png()
    return {
        "filename": "passport.png",
        "contentType": content_type,
        "data": base64.b64encode(data).decode(),
    }


# Values a test searches the workflow histories for: none may appear there.
FIRST_NAME = "Alexandrina"


LAST_NAME = "Quillfeather"


DOCUMENT_NUMBER = "X9876543"


def kyc_basic(last_name: str = LAST_NAME, **changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "firstName": FIRST_NAME,
        "lastName": last_name,
        "dateOfBirth": "1988-07-14",
        "nationality": "US",
        "address": {
            "line1": "350 Fifth Avenue",
            "city": "New York",
            "region": "NY",
            "postalCode": "10118",
            "country": "US",
        },
        "idDocument": {
            "documentType": "PASSPORT",
            "documentNumber": DOCUMENT_NUMBER,
            "file": document(),
        },
    }
    body.update(changes)
    return body


TERMS: dict[str, Any] = {"accepted": True, "termsVersion": "2026-01"}


def source_of_funds(description: str = "Salary from Acme Corp", **changes: Any) -> dict[str, Any]:
    return {"source": "SALARY", "description": description, **changes}


def onboarding_token(envelope: dict[str, Any]) -> str:
    url = envelope["frontendUrl"]
    assert url is not None, envelope
    return str(parse_qs(urlsplit(url).query)["token"][0])


async def start_onboarding(
    client: httpx.AsyncClient,
    token: str,
    amount: str = "100.00",
    accounts: tuple[str, str] | None = None,
    **fields: Any,
) -> tuple[str, str]:
    """A new intent that needs onboarding: (intent id, onboarding token)."""
    accounts = accounts or await register_accounts(client, token)
    response = await create_intent(client, token, accounts, amount=amount, **fields)
    assert response.status_code == 201, response.text
    envelope = response.json()
    return envelope["intent"]["id"], onboarding_token(envelope)


async def submit(
    client: httpx.AsyncClient, intent_id: str, token: str, code: str, body: dict[str, Any]
) -> httpx.Response:
    return await client.post(
        f"/v1/onboarding/{intent_id}/steps/{code}", json=body, headers=bearer(token)
    )


async def onboarding(client: httpx.AsyncClient, intent_id: str, token: str) -> dict[str, Any]:
    response = await client.get(f"/v1/onboarding/{intent_id}", headers=bearer(token))
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def step(view: dict[str, Any], code: str) -> dict[str, Any]:
    found: dict[str, Any] = next(s for s in view["steps"] if s["code"] == code)
    return found


async def history_json(temporal_client: Client, intent_id: str) -> str:
    handle = temporal_client.get_workflow_handle(workflow_id(intent_id))
    return (await handle.fetch_history()).to_json()
