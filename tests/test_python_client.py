"""The Python client (clients/python): in step with /v1/openapi.json, and used as an
integrator uses it: the README's walk over HTTP against the app (real Temporal and
worker, real database), the async client in-process, webhooks verified.

The client is imported from clients/python/src (./scripts/test also installs it).
"""

from __future__ import annotations

import asyncio
import json
import sys
import typing
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import BaseModel

from api.app import create_app
from ramp.config import Settings
from ramp.webhooks.signing import signature_headers
from tests.helpers.payments import ACH, wallet
from tests.helpers.projects import ProjectCredentials
from tests.helpers.servers import served_over_http

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "clients" / "python" / "src"))

import ramp_client  # noqa: E402
from ramp_client import AsyncRampClient, RampError, WebhookVerificationError, verify_webhook  # noqa: E402
from ramp_client import models as m  # noqa: E402
from ramp_client._endpoints import ADMIN_PREFIX, ENDPOINTS, NOT_CALLED  # noqa: E402

# About the Python client against the API, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

README = ROOT / "README.md"


# --- drift ----------------------------------------------------------------------------


def _ref(schema: dict[str, Any] | None) -> str | None:
    return schema["$ref"].rsplit("/", 1)[1] if schema and "$ref" in schema else None


def _document() -> dict[str, Any]:
    from api.openapi import openapi_document

    return openapi_document()


def test_every_model_has_the_fields_of_its_schema() -> None:
    """Each component is a model of the client with the same wire names, the same
    required ones and, for a field of an enum, the same values: a field added, renamed
    or made required in the service and not in the client (or the other way round)
    fails here. Regenerate with `python clients/python/generate.py`."""
    components = _document()["components"]["schemas"]
    drift: list[str] = []
    for name, schema in components.items():
        if "properties" not in schema:
            continue
        model = getattr(m, name, None)
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            drift.append(f"{name}: no model")
            continue
        fields = {field.alias or key: field for key, field in model.model_fields.items()}
        if set(fields) != set(schema["properties"]):
            drift.append(f"{name}: {sorted(fields)} != {sorted(schema['properties'])}")
            continue
        required = {alias for alias, field in fields.items() if field.is_required()}
        if required != set(schema.get("required", [])):
            drift.append(f"{name}: required {sorted(required)}")
        for alias, field in fields.items():
            documented = _enum_values(schema["properties"][alias], components)
            if documented != _literal_values(field.annotation):
                drift.append(f"{name}.{alias}: values differ from {sorted(documented)}")
    assert drift == [], "\n".join(drift)


def _enum_values(schema: Any, components: dict[str, Any]) -> set[str]:
    """The enum values a property's schema allows (through $ref, anyOf, items)."""
    if isinstance(schema, list):
        return set().union(*(_enum_values(item, components) for item in schema))
    if not isinstance(schema, dict):
        return set()
    if "$ref" in schema:
        target = components[schema["$ref"].rsplit("/", 1)[1]]
        return set(target.get("enum", [])) if "properties" not in target else set()
    own = set(schema.get("enum", [])) | ({schema["const"]} if "const" in schema else set())
    return own | _enum_values(
        [schema.get("items"), *schema.get("anyOf", []), *schema.get("oneOf", [])], components
    )


def _literal_values(annotation: Any) -> set[str]:
    """The values of the Literals in a field's type (through unions and lists)."""
    if typing.get_origin(annotation) is typing.Literal:
        return set(typing.get_args(annotation))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return set()  # a nested model: its own fields are checked as a component
    return set().union(*(_literal_values(arg) for arg in typing.get_args(annotation)))


def test_every_endpoint_of_the_client_is_the_documented_operation() -> None:
    document = _document()
    operations = {
        operation["operationId"]: (method.upper(), path, operation)
        for path, methods in document["paths"].items()
        for method, operation in methods.items()
    }
    called = {
        operation_id
        for operation_id, (_, path, _) in operations.items()
        if not path.startswith(ADMIN_PREFIX) and operation_id not in NOT_CALLED
    }
    assert set(ENDPOINTS) == called
    for operation_id, endpoint in ENDPOINTS.items():
        method, path, operation = operations[operation_id]
        assert (endpoint.method, endpoint.path) == (method, path), operation_id
        schemes = {name for requirement in operation["security"] for name in requirement}
        auth = {"basicAuth": "basic", "bearerAuth": "bearer"}
        assert {auth[scheme] for scheme in schemes} == ({endpoint.auth} - {None}), operation_id
        body = (operation.get("requestBody") or {}).get("content", {}).get("application/json")
        requested = [_ref(body["schema"])] if body else []
        if body and "oneOf" in document["components"]["schemas"].get(requested[0] or "", {}):
            union = document["components"]["schemas"][requested[0]]["oneOf"]
            requested = [_ref(choice) for choice in union]
        assert [model.__name__ for model in endpoint.request] == requested, operation_id
        _, answer = next(
            (status, answer) for status, answer in operation["responses"].items()
            if status.startswith("2")
        )  # fmt: skip
        schema = answer.get("content", {}).get("application/json", {}).get("schema")
        listed = bool(schema) and schema.get("type") == "array"
        item = _ref(schema["items"] if listed else schema) if schema else None
        assert endpoint.listed == listed, operation_id
        assert (endpoint.response.__name__ if endpoint.response else None) == item, operation_id
        assert endpoint.text == ("text/plain" in answer.get("content", {})), operation_id
        parameters = {parameter["name"] for parameter in operation.get("parameters", [])}
        assert endpoint.paged == ("cursor" in parameters), operation_id
        assert endpoint.creates == ("Idempotency-Key" in parameters), operation_id


# --- against the app --------------------------------------------------------------------


@pytest.fixture(scope="module")
async def served(migrated: Settings) -> Any:
    async with served_over_http(create_app(migrated)) as base_url:
        yield base_url


def _python_walk() -> str:
    section = README.read_text(encoding="utf-8").split("### Using the Python client", 1)[1]
    return section.split("```python\n", 1)[1].split("```", 1)[0]


@pytest.mark.usefixtures("worker")
async def test_the_readme_walk_with_the_client(
    served: str, project: ProjectCredentials, capsys: pytest.CaptureFixture[str]
) -> None:
    code = _python_walk()
    assert len(code.splitlines()) <= 20
    runnable = code.replace("http://127.0.0.1:8000", served).replace(
        '"ci_sandbox_...", "sk_sandbox_..."', f'"{project.client_id}", "{project.client_secret}"'
    )
    assert runnable.count(project.client_secret) == 1
    namespace: dict[str, Any] = {}
    # Sync calls: in a thread, off the loop that serves them.
    await asyncio.to_thread(exec, compile(runnable, "README.md", "exec"), namespace)
    printed = capsys.readouterr().out.strip().splitlines()
    # What it prints, as the README shows it (`# > `: ruff formats the README's code).
    shown = [line[4:] for line in code.splitlines() if line.startswith("# > ")]
    assert shown
    assert printed[-1:] == shown
    namespace["ramp"].close()


@pytest.mark.usefixtures("worker")
async def test_the_async_client_pages_keys_and_raises_the_envelope(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    ramp = AsyncRampClient(
        "http://testserver", project.client_id, project.client_secret, http=client
    )
    customer = await ramp.create_customer(m.CreateCustomer(id="async-1"))
    assert customer.access_token is not None
    alice = ramp.as_customer(customer.access_token)
    inline = m.CreateIntentWithAccounts(
        src="USD", dest="USDC_ETHEREUM", source=ACH, destination=wallet("USDC_ETHEREUM"),
        amount="10.00",
    )  # fmt: skip
    # A fresh Idempotency-Key per call by default: two calls, two intents.
    first = await alice.create_intent(inline)
    second = await alice.create_intent(inline)
    assert first.intent.id != second.intent.id
    # A key of one's own: the retry is the same intent (and the same inline pair).
    keyed = [await alice.create_intent(inline, idempotency_key="order-9") for _ in range(2)]
    assert keyed[0].intent.id == keyed[1].intent.id
    by_id = await alice.create_intent(
        m.CreateIntent(
            src_external_account_id=first.intent.src.id,
            dest_external_account_id=first.intent.dest.id,
            amount="20.00",
        )
    )
    created = {first.intent.id, second.intent.id, keyed[0].intent.id, by_id.intent.id}
    # Every page, one intent a page: the Link header followed to the end.
    assert {envelope.intent.id async for envelope in alice.list_intents(limit=1)} == created
    found = {envelope.intent.id async for envelope in ramp.search_intents(limit=2)}
    assert found == created
    accounts = [account async for account in alice.list_external_accounts(limit=2)]
    assert len(accounts) == 6
    # The error envelope as an exception: its code, status and fields.
    bad = inline.model_copy(update={"source": {**ACH, "accountIdentifier": {"routingNumber": "1"}}})
    with pytest.raises(ramp_client.InvalidRequestError) as refused:
        await alice.create_intent(bad)
    assert refused.value.code == "SCHEMA_VALIDATION_FAILED"
    assert refused.value.status_code == 400
    assert "/source/accountIdentifier/routingNumber" in [f["pointer"] for f in refused.value.fields]
    with pytest.raises(ramp_client.NotFoundError) as missing:
        await alice.get_intent("00000000-0000-4000-8000-000000000000")
    assert missing.value.code == "NOT_FOUND"
    assert isinstance(missing.value, RampError)
    with pytest.raises(ramp_client.InvalidRequestError) as reused:
        await alice.create_intent(
            inline.model_copy(update={"amount": "11.00"}), idempotency_key="order-9"
        )
    assert reused.value.code == "IDEMPOTENCY_KEY_REUSED"
    with pytest.raises(ramp_client.AuthenticationError):
        await AsyncRampClient("http://testserver", "nobody", "wrong", http=client).list_providers()


@pytest.mark.usefixtures("worker")
async def test_the_events_and_the_sandbox_calls(
    client: httpx.AsyncClient, served: str, project: ProjectCredentials, customer: dict[str, Any]
) -> None:
    ramp = AsyncRampClient(
        "http://testserver", project.client_id, project.client_secret, http=client
    )
    alice = ramp.as_customer(customer["access_token"])
    inline = m.CreateIntentWithAccounts(
        src="USD", dest="USDC_ETHEREUM", source=ACH, destination=wallet("USDC_ETHEREUM"),
        amount="10.00",
    )  # fmt: skip
    first = (await alice.create_intent(inline)).intent
    second = (await alice.create_intent(inline)).intent
    # Each intent's creation, typed, one event a page: newest first, the filters kept.
    created = [
        event
        async for event in ramp.list_events(
            event_type=["INTENT_STATUS_CHANGED", "MONEY_MOVEMENT_UPDATED"], limit=1
        )
        if isinstance(event.data, m.IntentStatusChanged) and event.data.previous_status is None
    ]
    assert [event.data.intent_id for event in created] == [second.id, first.id]
    assert {event.project_id for event in created} == {project.project_id}
    of_first = [event async for event in ramp.list_events(intent_id=first.id)]
    assert of_first
    assert {event.data.intent_id for event in of_first} == {first.id}
    assert [event async for event in ramp.list_events(event_type="DEPOSIT_UNMATCHED")] == []
    assert await ramp.get_event(created[0].event_id) == created[0]
    with pytest.raises(ramp_client.NotFoundError):
        await ramp.get_event("00000000-0000-4000-8000-000000000000")
    # The sync client, over HTTP, reads the same events.
    sync = ramp_client.RampClient(served, project.client_id, project.client_secret)
    listed = await asyncio.to_thread(lambda: list(sync.list_events(customer_id=customer["id"])))
    assert {event.event_id for event in created} <= {event.event_id for event in listed}
    assert await asyncio.to_thread(sync.get_event, created[1].event_id) == created[1]
    sync.close()

    # The sandbox's clock and its providers' behaviour.
    moved = await ramp.advance_sandbox_intent_clock(first.id, m.SandboxClockAdvance(seconds=60))
    assert (moved.intent_id, moved.advanced_seconds) == (first.id, 60)
    provider = (await ramp.list_providers())[0]
    slow = await ramp.set_sandbox_provider_behaviour(
        provider.id, m.SandboxProviderBehaviourBody(mode="SLOW", seconds=60)
    )
    assert (slow.provider_code, slow.mode) == (provider.code, "SLOW")
    assert slow.until is not None
    up = await ramp.set_sandbox_provider_behaviour(
        provider.id, m.SandboxProviderBehaviourBody(mode="UP")
    )
    assert (up.mode, up.until) == ("UP", None)


# --- webhooks ---------------------------------------------------------------------------


def test_verify_webhook_takes_either_signature_and_refuses_the_rest() -> None:
    body = json.dumps(
        {
            "eventId": "evt-1",
            "eventType": "INTENT_STATUS_CHANGED",
            "timestamp": "2026-11-26T10:00:00.000Z",
            "projectId": "p",
            "data": {
                "intentId": "i",
                "customerId": "c",
                "status": "PENDING",
                "previousStatus": None,
                "failureReason": None,
            },
        }
    ).encode()
    at = datetime.now(UTC)
    headers = signature_headers(
        message_id="evt-1",
        event_type="INTENT_STATUS_CHANGED",
        client_id="ci",
        secrets=["sk_new", "sk_old"],  # a rotation's grace period: both sign
        body=body,
        at=at,
    )
    ours = {k: v for k, v in headers.items() if not k.startswith("webhook-")}
    for secret in ("sk_new", "sk_old"):
        assert verify_webhook(headers, body, secret).event_id == "evt-1"
        assert verify_webhook(ours, body.decode(), secret).event_type == "INTENT_STATUS_CHANGED"
    later = (at + timedelta(minutes=6)).timestamp()
    refused: list[Callable[[], object]] = [
        lambda: verify_webhook(headers, body, "sk_other"),
        lambda: verify_webhook(ours, body, "sk_other"),
        lambda: verify_webhook(headers, body + b" ", "sk_new"),
        lambda: verify_webhook(headers, body, "sk_new", now=later),
        lambda: verify_webhook(ours, body, "sk_new", now=later),
        lambda: verify_webhook({"content-type": "application/json"}, body, "sk_new"),
    ]
    for wrong in refused:
        with pytest.raises(WebhookVerificationError):
            wrong()


class _LosesTheFirstAnswer(httpx.AsyncBaseTransport):
    """The app's own transport, but the answer to the first creating call is lost on
    its way back (the request was handled): what a dropped connection does."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self._inner = inner
        self.lost = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self._inner.handle_async_request(request)
        if request.method == "POST" and self.lost == 0:
            self.lost += 1
            await response.aread()
            raise httpx.ReadError("connection reset", request=request)
        return response


@pytest.mark.usefixtures("worker")
async def test_a_lost_answer_is_retried_with_the_same_key(
    client: httpx.AsyncClient, customer: dict[str, Any]
) -> None:
    losing = _LosesTheFirstAnswer(client._transport)
    async with httpx.AsyncClient(transport=losing, base_url="http://testserver") as http:
        ramp = AsyncRampClient("http://testserver", "unused", "unused", http=http)
        alice = ramp.as_customer(customer["access_token"])
        inline = m.CreateIntentWithAccounts(
            src="USD", dest="USDC_ETHEREUM", source=ACH, destination=wallet("USDC_ETHEREUM"),
            amount="10.00",
        )  # fmt: skip
        created = await alice.create_intent(inline)
        assert losing.lost == 1
        listed = [envelope async for envelope in alice.list_intents()]
        # One intent, one pair: the retry carried the first attempt's key.
        assert [envelope.intent.id for envelope in listed] == [created.intent.id]
        assert len([account async for account in alice.list_external_accounts()]) == 2
