"""Input that used to be stored and then could not be served: refused at parse time, in
the error envelope, on SQLite and PostgreSQL alike."""

from __future__ import annotations

import asyncio
import base64
import json
import socket
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import uvicorn

from api.app import create_app
from api.body import MAX_JSON_DEPTH
from api.protocol import ENVELOPE_PROTOCOL, EnvelopeH11Protocol
from ramp.config import Settings
from tests.helpers.errors import assert_envelope
from tests.helpers.projects import ProjectCredentials, bearer

JSON = {"Content-Type": "application/json"}


def nested(levels: int) -> Any:
    value: Any = "deep"
    for _ in range(levels):
        value = {"k": value}
    return value


async def post_raw(
    client: httpx.AsyncClient, path: str, raw: bytes, headers: dict[str, str]
) -> httpx.Response:
    return await client.post(path, content=raw, headers={**JSON, **headers})


async def test_deep_metadata_is_refused_and_the_customer_stays_usable(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    for levels in (MAX_JSON_DEPTH, 300, 940):
        body = {"id": "deep", "metadata": nested(levels)}
        response = await client.post("/v1/customers", json=body, headers=project.basic)
        refused = assert_envelope(response, 400, "INVALID_JSON")
        assert f"must not nest deeper than {MAX_JSON_DEPTH} levels" in refused["message"]
        if levels == MAX_JSON_DEPTH:
            pointer = "/metadata" + "/k" * (MAX_JSON_DEPTH - 1)
            assert refused["details"]["fields"][0]["pointer"] == pointer
    # The body at the limit (its top object being level 1) is stored and served back.
    deepest = nested(MAX_JSON_DEPTH - 2)
    created = await client.post(
        "/v1/customers", json={"id": "deep", "metadata": deepest}, headers=project.basic
    )
    assert created.status_code == 201, created.text
    again = await client.post("/v1/customers", json={"id": "deep"}, headers=project.basic)
    assert again.status_code == 200, again.text
    assert again.json()["metadata"] == deepest
    assert again.json()["access_token"]


async def test_lone_surrogates_and_nul_are_refused_wherever_they_are(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    cases = [
        (b'{"id": "s", "metadata": {"note": "a\\udfffb"}}', "/metadata/note"),
        (b'{"id": "s", "metadata": {"\\ud800": 1}}', "/metadata/\\ud800"),
        (b'{"id": "s", "metadata": {"list": ["ok", "\\udc00"]}}', "/metadata/list/1"),
        (b'{"id": "\\ud83d"}', "/id"),
        (b'{"id": "s", "metadata": {"k": "v\\u0000"}}', "/metadata/k"),
    ]
    for raw, pointer in cases:
        response = await post_raw(client, "/v1/customers", raw, project.basic)
        body = assert_envelope(response, 400, "INVALID_JSON")
        assert [field["pointer"] for field in body["details"]["fields"]] == [pointer]
    # Account text (external accounts' free-form metadata) goes through the same parser.
    account = (
        b'{"src": "USD", "dest": "USDC_ETHEREUM", "source": {"accountHolderName": "\\udfff"},'
        b' "destination": {}}'
    )
    response = await post_raw(
        client, "/v1/customers/external-accounts", account, bearer(customer["access_token"])
    )
    body = assert_envelope(response, 400, "INVALID_JSON")
    assert body["details"]["fields"][0]["pointer"] == "/source/accountHolderName"
    # A proper pair (an emoji as two escapes) is a character and is kept.
    emoji = b'{"id": "s", "metadata": {"note": "\\ud83d\\ude00"}}'
    stored = await post_raw(client, "/v1/customers", emoji, project.basic)
    assert stored.status_code == 201, stored.text
    again = await client.post("/v1/customers", json={"id": "s"}, headers=project.basic)
    assert again.json()["metadata"] == {"note": "\U0001f600"}


async def test_non_finite_numbers_are_refused(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    for number in (b"1e309", b"-1e400", b"NaN", b"Infinity", b"-Infinity"):
        raw = b'{"id": "n", "metadata": {"x": ' + number + b"}}"
        response = await post_raw(client, "/v1/customers", raw, project.basic)
        assert_envelope(response, 400, "INVALID_JSON")
    listed = await client.post("/v1/customers", json={"id": "n"}, headers=project.basic)
    assert listed.status_code == 201  # nothing was stored by the refused requests
    raw = b'{"id": "m", "metadata": {"x": 1.5e308, "y": 1e-400}}'
    kept = await post_raw(client, "/v1/customers", raw, project.basic)
    assert kept.status_code == 201, kept.text
    assert kept.json()["metadata"] == {"x": 1.5e308, "y": 0.0}


async def test_duplicate_keys_are_refused(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    intent = (
        b'{"srcExternalAccountId": "a", "destExternalAccountId": "b",'
        b' "amount": "100.00", "amount": "20000.00"}'
    )
    response = await post_raw(client, "/v1/intent", intent, bearer(customer["access_token"]))
    body = assert_envelope(response, 400, "INVALID_JSON")
    assert body["details"]["fields"] == [{"pointer": "/amount", "reason": "is a duplicate key"}]
    nested_duplicate = b'{"id": "d", "metadata": {"a": {"b": 1, "b": 2}}}'
    response = await post_raw(client, "/v1/customers", nested_duplicate, project.basic)
    body = assert_envelope(response, 400, "INVALID_JSON")
    assert body["details"]["fields"][0]["pointer"] == "/metadata/a/b"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/v1/webhooks/endpoints"),
        ("PUT", "/v1/project/onboarding-origins"),
        ("POST", "/v1/sandbox/transactions/00000000-0000-4000-8000-000000000000/events"),
        (
            "POST",
            "/v1/sandbox/intents/00000000-0000-4000-8000-000000000000/compliance-steps/KYC_BASIC",
        ),
        ("POST", "/v1/sandbox/intents/00000000-0000-4000-8000-000000000000/advance"),
    ],
)
async def test_every_body_goes_through_the_strict_parser(
    client: httpx.AsyncClient, project: ProjectCredentials, method: str, path: str
) -> None:
    raw = b'{"url": "https://a.example", "url": "https://b.example"}'
    response = await client.request(method, path, content=raw, headers={**JSON, **project.basic})
    assert_envelope(response, 400, "INVALID_JSON")


async def test_only_utf8_json_is_read(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    text = '{"id": "utf16"}'
    for raw in (text.encode("utf-16"), text.encode("utf-16-be"), text.encode("utf-32")):
        response = await post_raw(client, "/v1/customers", raw, project.basic)
        assert_envelope(response, 400, "INVALID_JSON")
    bom = await post_raw(client, "/v1/customers", b"\xef\xbb\xbf" + text.encode(), project.basic)
    assert_envelope(bom, 400, "INVALID_JSON")
    declared = await client.post(
        "/v1/customers",
        content=text.encode("utf-16"),
        headers={**project.basic, "Content-Type": "application/json; charset=utf-16"},
    )
    assert_envelope(declared, 415, "UNSUPPORTED_MEDIA_TYPE")
    utf8 = await client.post(
        "/v1/customers",
        content=text.encode(),
        headers={**project.basic, "Content-Type": "application/json; charset=UTF-8"},
    )
    assert utf8.status_code == 201, utf8.text


async def test_integer_query_parameters_take_ascii_digits_only(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    for path, headers in (
        ("/v1/intent", bearer(customer["access_token"])),
        ("/v1/webhooks/deliveries", project.basic),
        ("/v1/events", project.basic),
    ):
        for limit in (
            "\uff11",
            "\uff15\uff10",
            "\u0663",
            "\u00b2",
            "",
            "-1",
            "0",
            "101",
            "1.0",
            "1" * 5000,
        ):
            response = await client.get(path, params={"limit": limit}, headers=headers)
            body = assert_envelope(response, 400, "VALIDATION_ERROR")
            assert body["details"]["fields"][0]["pointer"] == "/limit"
        assert (await client.get(path, params={"limit": "1"}, headers=headers)).status_code == 200


def _cursor(value: Any) -> str:
    raw = value if isinstance(value, bytes) else json.dumps(value).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


CRAFTED_CURSORS = {
    "nul in the id": _cursor(["2026-01-01T00:00:00+00:00", "a\u0000b"]),
    "id not a uuid": _cursor(["2026-01-01T00:00:00+00:00", "x" * 5000]),
    "lone surrogate": _cursor(b'["2026-01-01T00:00:00+00:00", "\\udfff"]'),
    "year 1 before utc": _cursor(["0001-01-01T00:00:00+05:00", "00000000-0000-4000-8000-0"]),
    "offset out of utc": _cursor(["0001-01-01T00:30:00+01:00", str("1" * 32)]),
    "deep": _cursor(b"[" * 5000 + b"]" * 5000),
    "object": _cursor({"2026-01-01T00:00:00+00:00": 1, "x": 2}),
}


@pytest.mark.parametrize("name", sorted(CRAFTED_CURSORS))
async def test_crafted_cursors_are_refused(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any], name: str
) -> None:
    for path, headers in (
        ("/v1/intent", bearer(customer["access_token"])),
        ("/v1/webhooks/deliveries", project.basic),
    ):
        response = await client.get(path, params={"cursor": CRAFTED_CURSORS[name]}, headers=headers)
        assert_envelope(response, 400, "INVALID_CURSOR")
    # A well-formed position is refused too: it is not signed (issue 23).
    good = _cursor(["2026-01-01T00:00:00+00:00", "00000000-0000-4000-8000-000000000000"])
    response = await client.get(
        "/v1/intent", params={"cursor": good}, headers=bearer(customer["access_token"])
    )
    assert_envelope(response, 400, "INVALID_CURSOR")


async def test_control_characters_in_the_url_are_refused(
    client: httpx.AsyncClient, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    token = bearer(customer["access_token"])
    cases = [
        ("GET", "/v1/intent/%00", token),
        ("POST", "/v1/intent/a%00b/transaction", token),
        ("GET", "/v1/webhooks/deliveries/%00", project.basic),
        ("DELETE", "/v1/webhooks/endpoints/%1f", project.basic),
        ("GET", "/v1/webhooks/deliveries?endpointId=%00", project.basic),
        ("GET", "/v1/webhooks/deliveries?intentId=x%7F", project.basic),
    ]
    for method, path, headers in cases:
        response = await client.request(method, path, headers=headers)
        assert_envelope(response, 400, "INVALID_URL")
    fine = await client.get("/v1/webhooks/deliveries?intentId=x%20y", headers=project.basic)
    assert fine.status_code == 200, fine.text


async def test_method_not_allowed_lists_every_method_of_the_path(
    client: httpx.AsyncClient,
) -> None:
    cases = {
        "/v1/intent": "GET, HEAD, POST",
        "/v1/webhooks/endpoints": "GET, HEAD, POST",
        "/v1/webhooks/endpoints/some-id": "DELETE, PATCH",
        "/v1/project/onboarding-origins": "GET, HEAD, PUT",
        "/v1/customers": "GET, HEAD, POST",
        "/v1/intent/some-id/transaction": "GET, HEAD, POST",
        "/onboarding/assets/onboarding.js": "GET, HEAD",
        "/onboarding/some-intent": "GET, HEAD",
    }
    for path, allowed in cases.items():
        response = await client.request("OPTIONS", path)
        assert_envelope(response, 405, "METHOD_NOT_ALLOWED")
        assert response.headers["allow"] == allowed, path


async def test_field_errors_read_like_ours_with_pointers(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    cases: list[tuple[str, Any, dict[str, str]]] = [
        ("/v1/customers", {}, {"/id": "is required"}),
        ("/v1/customers", {"id": 5}, {"/id": "must be a string"}),
        ("/v1/customers", {"id": ""}, {"/id": "must not be empty"}),
        ("/v1/customers", {"id": "x" * 201}, {"/id": "must be at most 200 characters"}),
        ("/v1/customers", {"id": "x", "metadata": []}, {"/metadata": "must be an object"}),
        ("/v1/customers", {"id": "x", "a/b~c": 1}, {"/a~1b~0c": "is not allowed"}),
        (
            "/v1/webhooks/endpoints",
            {"url": "ftp://x", "enabled": "yes", "eventTypes": []},
            {
                "/url": "must be an absolute http(s) URL",
                "/enabled": "must be true or false",
                "/eventTypes": "must not be empty",
            },
        ),
        (
            "/v1/webhooks/endpoints",
            {"url": "https://x.example", "eventTypes": ["NOPE"]},
            {"/eventTypes/0": "must be one of 'INTENT_STATUS_CHANGED', "},
        ),
    ]
    for path, body, expected in cases:
        response = await client.post(path, json=body, headers=project.basic)
        refused = assert_envelope(response, 400, "VALIDATION_ERROR")
        reasons = {field["pointer"]: field["reason"] for field in refused["details"]["fields"]}
        assert set(reasons) == set(expected), reasons
        for pointer, reason in expected.items():
            assert reasons[pointer].startswith(reason), reasons
        for reason in reasons.values():
            assert reason[0].islower(), reason
            assert "Input should" not in reason
            assert "Field required" not in reason


# --- HTTP framing, answered by the server before the application ---------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


async def _exchange(port: int, raw: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(raw)
    await writer.drain()
    answer = await asyncio.wait_for(reader.read(), timeout=10)
    writer.close()
    return answer


@pytest.fixture(params=["httptools", "h11"])
async def served_port(request: pytest.FixtureRequest, migrated: Settings) -> AsyncIterator[int]:
    """The app behind a real uvicorn, with the protocol `ramp api` uses."""
    protocol = ENVELOPE_PROTOCOL if request.param == "httptools" else EnvelopeH11Protocol
    port = _free_port()
    config = uvicorn.Config(
        create_app(migrated), host="127.0.0.1", port=port, http=protocol, log_level="warning"
    )
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    for _ in range(200):
        if server.started:
            break
        await asyncio.sleep(0.05)
    assert server.started
    yield port
    server.should_exit = True
    await task


MALFORMED = {
    "garbage": b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n",
    "space in header name": b"GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
    "two content lengths": b"POST /v1/customers HTTP/1.1\r\nHost: x\r\n"
    b"Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
    "bad chunk": b"POST /v1/customers HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
    b"Content-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
    # HTTP/1.1 needs exactly one Host (issue 23: httptools served these with a 200).
    "no host": b"GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n",
    "two hosts": b"GET /healthz HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n",
}


async def test_malformed_http_gets_the_envelope(served_port: int) -> None:
    for name, raw in MALFORMED.items():
        answer = await _exchange(served_port, raw)
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 400"), (name, answer)
        assert b"content-type: application/json" in head.lower(), (name, answer)
        envelope = json.loads(body)
        assert envelope["code"] == "MALFORMED_REQUEST", name
        assert envelope["statusCode"] == 400
    # A well-formed request on the same server is served as usual.
    answer = await _exchange(
        served_port, b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    assert answer.startswith(b"HTTP/1.1 200"), answer
    # HTTP/1.0 has no Host requirement.
    answer = await _exchange(served_port, b"GET /healthz HTTP/1.0\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 200"), answer
