"""Routing across the roster (issue 26), as an API client sees it in the sandbox: the
mock providers made to misbehave (`POST /v1/sandbox/providers/{id}/behaviour`), their
health counted from their own calls and shown in `GET /v1/providers`, a DOWN provider
skipped by selection and back after its probe, and the sandbox's rates that make the
two strategies differ. Real HTTP, real Temporal, the module's worker."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import (
    AccountDetails,
    ProviderContext,
    ProviderCustomerRef,
    ProviderOutOfService,
    TransactionOrder,
)
from ramp.adapters.sandbox import SandboxConnector
from ramp.adapters.sandbox import behaviour as sandbox_behaviour
from ramp.adapters.sandbox.behaviour import Behaviour, MisbehavingConnector
from ramp.catalog import MovementType, Rail, provider_by_code
from ramp.db.routing_tables import HeldQuote, ProviderAccountHealth
from ramp.db.tables import ProviderAccount, WebhookEventRow
from ramp.routing import health
from ramp.routing.health import DOWN_AFTER, Health, apply_call
from tests.helpers.dashboard import join, new_organization, owner_api_key
from tests.helpers.payments import (
    ATLAS,
    BEACON,
    complete_onboarding,
    create_intent,
    get_intent,
    provider_event,
    register_accounts,
    step_outcome,
    wait_for_intent,
)
from tests.helpers.polling import pauses
from tests.helpers.projects import ProjectCredentials, bearer, make_customer
from tests.helpers.webhook_receiver import receiving

pytestmark = pytest.mark.usefixtures("worker")


async def wait_until(condition: Callable[[], Awaitable[bool]], within: float = 15.0) -> None:
    """Polls `condition` (health is written by the worker's activities, asynchronously)."""
    waits = pauses()  # tests/helpers/polling.py
    async with asyncio.timeout(within):
        while not await condition():  # noqa: ASYNC110  (state in the database: no event)
            await asyncio.sleep(next(waits))


NOW = datetime(2026, 11, 26, 3, 0, tzinfo=UTC)


def provider_id(code: str) -> str:
    provider = provider_by_code(code)
    assert provider is not None
    return provider.id


async def behave(
    client: httpx.AsyncClient, project: ProjectCredentials, code: str, mode: str, **extra: Any
) -> httpx.Response:
    return await client.post(
        f"/v1/sandbox/providers/{provider_id(code)}/behaviour",
        json={"mode": mode, **extra},
        headers=project.basic,
    )


async def statuses(client: httpx.AsyncClient, project: ProjectCredentials) -> dict[str, str]:
    response = await client.get("/v1/providers", headers=project.basic)
    assert response.status_code == 200, response.text
    return {p["code"]: p["status"] for p in response.json()}


async def quote(client: httpx.AsyncClient, project: ProjectCredentials, amount: str) -> Any:
    response = await client.get(
        "/v1/intent/quote",
        params={
            "srcCurrencyCode": "USD",
            "destCurrencyCode": "USDC_ETHEREUM",
            "srcAmount": amount,
            "rails": "ACH",
        },
        headers=project.basic,
    )
    assert response.status_code == 200, response.text
    return response.json()


# --- health, as computed from calls (pure) ---------------------------------------------


def test_failures_in_a_row_take_an_account_down_and_its_probe_brings_it_back() -> None:
    row: ProviderAccountHealth | None = None
    for n in range(1, DOWN_AFTER):
        row = apply_call(row, "acc", "503 from the provider", NOW)
        assert (row.state, row.consecutive_failures) == (Health.DEGRADED, n)
    row = apply_call(row, "acc", "timeout", NOW)
    assert row.state == Health.DOWN
    assert row.probe_at == NOW + health.PROBE_DELAY
    # Calls in flight from before decide nothing while DOWN: the probe does.
    row = apply_call(row, "acc", "timeout", NOW + timedelta(seconds=5))
    row = apply_call(row, "acc", None, NOW + timedelta(seconds=6))
    assert (row.state, row.probe_at) == (Health.DOWN, NOW + health.PROBE_DELAY)
    # A failed probe: DOWN until the next one.
    row.probing_since = NOW + timedelta(seconds=31)
    row = apply_call(row, "acc", "timeout", NOW + timedelta(seconds=32))
    assert (row.state, row.probing_since) == (Health.DOWN, None)
    assert row.probe_at == NOW + timedelta(seconds=32) + health.PROBE_DELAY
    row.probing_since = NOW + timedelta(seconds=70)
    row = apply_call(row, "acc", None, NOW + timedelta(seconds=71))
    assert (row.state, row.consecutive_failures, row.probe_at) == (Health.HEALTHY, 0, None)
    assert "x" not in row.recent_calls


def test_the_error_rate_over_the_window_degrades_then_takes_down() -> None:
    row: ProviderAccountHealth | None = None
    # Every other call fails: never three in a row, but the rate climbs to a half.
    states = []
    for _ in range(health.WINDOW // 2):
        row = apply_call(row, "acc", None, NOW)
        states.append(row.state)
        row = apply_call(row, "acc", "502", NOW)
        states.append(row.state)
    assert states[:4] == [Health.HEALTHY, Health.DEGRADED, Health.HEALTHY, Health.DEGRADED]
    assert Health.DOWN not in states[:-1]
    assert states[-1] is Health.DOWN
    assert row is not None
    assert row.consecutive_failures == 1


# --- the sandbox's behaviours ------------------------------------------------------------


async def test_behaviour_endpoint_validates_and_scopes_to_the_project(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    response = await behave(client, project, ATLAS, "SLOW", seconds=60)
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["providerCode"], body["mode"]) == (ATLAS, "SLOW")
    assert body["until"] is not None
    back = await behave(client, project, ATLAS, "UP")
    assert back.json()["mode"] == "UP"
    assert back.json()["until"] is None
    wrong = await behave(client, project, ATLAS, "SIDEWAYS")
    assert wrong.status_code == 400
    assert wrong.json()["code"] == "VALIDATION_ERROR"
    too_long = await behave(client, project, ATLAS, "DOWN", seconds=0)
    assert too_long.status_code == 400
    unknown = await client.post(
        "/v1/sandbox/providers/nope/behaviour", json={"mode": "DOWN"}, headers=project.basic
    )
    assert unknown.status_code == 404
    anonymous = await client.post(
        f"/v1/sandbox/providers/{provider_id(ATLAS)}/behaviour", json={"mode": "DOWN"}
    )
    assert anonymous.status_code == 401


async def test_a_down_provider_leaves_the_quotes_and_the_rates_cross_at_1000(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    def nets(body: Any) -> dict[str, str]:
        return {q["providerCode"]: q["destAmount"] for q in body["quotes"]}

    below, above = (
        nets(await quote(client, project, "999.99")),
        nets(await quote(client, project, "1000.00")),
    )
    assert float(below[ATLAS]) > float(below[BEACON])
    assert float(above[BEACON]) > float(above[ATLAS])
    assert above == {ATLAS: "983.557500", BEACON: "991.016250"}
    assert (await behave(client, project, ATLAS, "DOWN")).status_code == 200
    down = await quote(client, project, "100.00")
    assert [q["providerCode"] for q in down["quotes"]] == [BEACON]
    assert [(u["providerCode"], u["reason"]) for u in down["unavailable"]] == [
        (ATLAS, "PROVIDER_ERROR")
    ]
    # A quote is a call too: the failed one counts against Atlas's health, Beacon's
    # answer leaves it healthy.
    found = await statuses(client, project)
    assert (found[ATLAS], found[BEACON]) == ("DEGRADED", "HEALTHY")


# --- health through intents: DOWN skipped, both DOWN refused, back after the probe -------


async def test_a_down_provider_is_skipped_refused_when_all_are_and_back_after_its_probe(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    customer = await make_customer(client, project)
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    assert set((await statuses(client, project)).values()) == {"HEALTHY"}
    assert (await behave(client, project, ATLAS, "DOWN")).status_code == 200

    async def opened_on() -> str:
        response = await create_intent(client, token, accounts)
        assert response.status_code == 201, response.text
        return str(response.json()["intent"]["mmPlan"]["providerAccount"]["providerCode"])

    # Each intent's first call (its compliance hand-off) fails at Atlas: DOWN after three.
    for _ in range(DOWN_AFTER):
        assert await opened_on() == ATLAS
    await wait_until(lambda: _status_is(client, project, ATLAS, "DEGRADED", "DOWN"))
    await wait_until(lambda: _status_is(client, project, ATLAS, "DOWN"))
    assert await opened_on() == BEACON

    # Both DOWN: a 400 that names both reasons.
    assert (await behave(client, project, BEACON, "DOWN")).status_code == 200
    for _ in range(DOWN_AFTER):
        assert await opened_on() == BEACON
    await wait_until(lambda: _status_is(client, project, BEACON, "DOWN"))
    refused = await create_intent(client, token, accounts)
    assert refused.status_code == 400, refused.text
    error = refused.json()
    assert error["code"] == "NO_ELIGIBLE_PROVIDER"
    reasons = {e["providerCode"]: e["reasons"] for e in error["details"]["providers"]}
    assert reasons[ATLAS][0].startswith("DOWN: ")
    assert reasons[BEACON][0].startswith("DOWN: ")
    assert "sandbox behaviour DOWN" in reasons[ATLAS][0]

    # Atlas is UP again; once its probe is due, one intent routes through it and its
    # success brings it back.
    assert (await behave(client, project, ATLAS, "UP")).status_code == 200
    await _probe_now(sessions, project, ATLAS)
    assert await opened_on() == ATLAS
    await wait_until(lambda: _status_is(client, project, ATLAS, "HEALTHY"))
    assert (await statuses(client, project))[BEACON] == "DOWN"


async def _status_is(
    client: httpx.AsyncClient, project: ProjectCredentials, code: str, *wanted: str
) -> bool:
    return (await statuses(client, project))[code] in wanted


async def _probe_now(
    sessions: async_sessionmaker[AsyncSession], project: ProjectCredentials, code: str
) -> None:
    """The probe delay (30 s) has passed for the account: its `probe_at` moved to now,
    in place of waiting for the clock."""
    async with sessions() as session:
        account = (
            await session.exec(
                select(ProviderAccount).where(
                    ProviderAccount.project_id == project.project_id,
                    ProviderAccount.provider_code == code,
                )
            )
        ).one()
        row = await session.get(ProviderAccountHealth, account.id)
        assert row is not None
        assert row.state == "DOWN"
        assert row.probe_at is not None
        assert row.probe_at > datetime.now(UTC) + timedelta(seconds=5)
        row.probe_at = datetime.now(UTC)
        session.add(row)
        await session.commit()


# --- strategy: BEST_PRICE, the quote's ranking and a held quote ----------------------------


async def test_best_price_routes_by_net_amount_and_a_held_quote_pins_its_provider(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    admin = {"Authorization": f"Bearer {await owner_api_key(sessions, project)}"}
    path = f"/v1/admin/projects/{project.project_id}/routing"
    initial = await client.get(path, headers=admin)
    assert initial.status_code == 200, initial.text
    assert initial.json()["strategy"] == "FIRST_ELIGIBLE"
    listed = {p["providerCode"]: p for p in initial.json()["providers"]}
    assert listed[ATLAS]["status"] == "HEALTHY"
    assert listed[ATLAS]["consecutiveFailures"] == 0
    wrong = await client.put(path, json={"strategy": "CHEAPEST"}, headers=admin)
    assert wrong.status_code == 400

    customer = await make_customer(client, project)
    token = customer["access_token"]
    accounts = await register_accounts(client, token)

    async def opened_on(amount: str, **fields: Any) -> str:
        response = await create_intent(client, token, accounts, amount=amount, **fields)
        assert response.status_code == 201, response.text
        return str(response.json()["intent"]["mmPlan"]["providerAccount"]["providerCode"])

    # FIRST_ELIGIBLE: catalog order, whatever the price.
    first = await quote(client, project, "1000.00")
    assert [(q["providerCode"], q["selected"]) for q in first["quotes"]] == [
        (ATLAS, True),
        (BEACON, False),
    ]
    assert await opened_on("1000.00") == ATLAS

    put = await client.put(path, json={"strategy": "BEST_PRICE"}, headers=admin)
    assert put.status_code == 200, put.text
    assert put.json()["strategy"] == "BEST_PRICE"
    assert (await client.get(path, headers=admin)).json()["strategy"] == "BEST_PRICE"
    best = await quote(client, project, "1000.00")
    assert [(q["providerCode"], q["selected"]) for q in best["quotes"]] == [
        (BEACON, True),
        (ATLAS, False),
    ]
    assert {q["providerStatus"] for q in best["quotes"]} == {"HEALTHY"}
    assert await opened_on("1000.00") == BEACON
    assert await opened_on("100.00") == ATLAS

    # A held quote: its provider, while valid; 409 after; 400 for another payment.
    atlas_quote = next(q for q in best["quotes"] if q["providerCode"] == ATLAS)
    assert await opened_on("1000.00", quoteId=atlas_quote["quoteId"]) == ATLAS
    other = await create_intent(
        client, token, accounts, amount="999.00", quoteId=atlas_quote["quoteId"]
    )
    assert other.status_code == 400, other.text
    assert other.json()["code"] == "QUOTE_NOT_FOUND"
    async with sessions() as session:
        held = await session.get(HeldQuote, atlas_quote["quoteId"])
        assert held is not None
        held.expires_at = datetime.now(UTC) - timedelta(seconds=1)
        session.add(held)
        await session.commit()
    expired = await create_intent(
        client, token, accounts, amount="1000.00", quoteId=atlas_quote["quoteId"]
    )
    assert expired.status_code == 409, expired.text
    assert expired.json()["code"] == "QUOTE_EXPIRED"


# --- failover -------------------------------------------------------------------------------


async def test_an_order_refused_for_the_providers_own_reasons_fails_over_and_completes(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    customer = await make_customer(client, project)
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    assert (await behave(client, project, ATLAS, "REFUSE_TRANSFERS")).status_code == 200
    async with receiving() as hooks:
        endpoint = await client.post(
            "/v1/webhooks/endpoints",
            json={"url": hooks.url, "eventTypes": ["INTENT_STATUS_CHANGED"]},
            headers=project.basic,
        )
        assert endpoint.status_code == 201, endpoint.text
        opened = await create_intent(client, token, accounts, autoExecute=True)
        assert opened.status_code == 201, opened.text
        intent_id = opened.json()["intent"]["id"]
        frontend_url = opened.json()["frontendUrl"]
        assert opened.json()["intent"]["mmPlan"]["providerAccount"]["providerCode"] == ATLAS

        # Atlas's plan done, its order refused for Atlas's own reasons: the intent moves
        # to Beacon, whose plan (not yet satisfied for this customer) is rebuilt.
        for code in ("TERMS_OF_SERVICE", "KYC_BASIC", "SOURCE_OF_FUNDS"):
            verified = await step_outcome(client, project, intent_id, code, "VERIFIED")
            assert verified.status_code == 202, verified.text
            await wait_for_intent(
                client,
                token,
                intent_id,
                lambda body, code=code: _done(body, code),  # type: ignore[misc]
            )
        moved = await wait_for_intent(
            client,
            token,
            intent_id,
            lambda body: body["intent"]["mmPlan"]["providerAccount"]["providerCode"] == BEACON,
        )
        assert moved["intent"]["id"] == intent_id
        assert moved["intent"]["status"] == "PENDING"
        assert moved["transaction"] is None
        assert [s["code"] for s in moved["intent"]["compliancePlan"]["steps"]] == [
            "TERMS_OF_SERVICE",
            "KYC_BASIC",
        ]
        assert moved["intent"]["compliancePlan"]["status"] == "PENDING"
        [move] = moved["intent"]["mmPlan"]["providerMoves"]
        assert (move["fromProviderCode"], move["toProviderCode"]) == (ATLAS, BEACON)
        assert move["toProviderAccountId"] == moved["intent"]["mmPlan"]["providerAccountId"]
        assert "REFUSE_TRANSFERS" in move["reason"]
        assert moved.get("frontendUrl", frontend_url).split("?")[0] == frontend_url.split("?")[0]

        # Beacon's steps done on the same page: the order is placed there, and completes.
        done = await complete_onboarding(client, project, token, intent_id)
        with_transaction = await wait_for_intent(
            client, token, intent_id, lambda body: body["transaction"] is not None
        )
        transaction_id = with_transaction["transaction"]["id"]
        for event, status in (
            ("DEPOSIT_RECEIVED", "IN_PROGRESS"),
            ("PAYOUT_SENT", "IN_PROGRESS"),
            ("SETTLED", "SUCCESS"),
        ):
            response = await provider_event(client, project, transaction_id, event)
            assert response.status_code == 202, response.text
            last = with_transaction["transaction"]["lastActivityAt"]
            with_transaction = await wait_for_intent(
                client,
                token,
                intent_id,
                lambda b, last=last: b["transaction"]["lastActivityAt"] != last,  # type: ignore[misc]
            )
            assert with_transaction["transaction"]["status"] == status
        final = await wait_for_intent(
            client, token, intent_id, lambda body: body["intent"]["status"] == "COMPLETED"
        )
        assert final["intent"]["mmPlan"]["providerAccount"]["providerCode"] == BEACON
        assert done["intent"]["id"] == intent_id

        async with sessions() as session:
            rows = (
                await session.exec(
                    select(WebhookEventRow).where(WebhookEventRow.intent_id == intent_id)
                )
            ).all()
        moves = [
            json.loads(row.body)["data"]
            for row in rows
            if "movedToProviderCode" in json.loads(row.body)["data"]
        ]
        assert len(moves) == 1
        assert moves[0]["movedFromProviderCode"] == ATLAS
        assert moves[0]["movedToProviderCode"] == BEACON
        assert "REFUSE_TRANSFERS" in moves[0]["moveReason"]
        assert moves[0]["status"] == "PENDING"


def _done(body: dict[str, Any], code: str) -> bool:
    """The step is COMPLETED, or the plan it was in was replaced (a failover)."""
    steps = {s["code"]: s["status"] for s in body["intent"]["compliancePlan"]["steps"]}
    provider = body["intent"]["mmPlan"]["providerAccount"]["providerCode"]
    return steps.get(code) == "COMPLETED" or provider != ATLAS


async def test_a_refusal_of_the_transfer_never_fails_over(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    """The sandbox's declined test amount (.91) is the provider declining this order:
    the intent stays with its provider, as before failover existed."""
    customer = await make_customer(client, project)
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    opened = await create_intent(client, token, accounts, amount="100.91", autoExecute=True)
    intent_id = opened.json()["intent"]["id"]
    await complete_onboarding(client, project, token, intent_id)
    response = await client.post(
        f"/v1/intent/{intent_id}/transaction", json={}, headers=bearer(token)
    )
    assert response.status_code == 502, response.text
    body = await get_intent(client, token, intent_id)
    assert body["intent"]["mmPlan"]["providerAccount"]["providerCode"] == ATLAS
    assert body["intent"]["mmPlan"]["providerMoves"] == []
    assert body["transaction"] is None


async def test_the_dashboard_sets_the_strategy_and_shows_health(
    client: httpx.AsyncClient, sessions: async_sessionmaker[AsyncSession]
) -> None:
    owner = await join(client, await new_organization(sessions, "router@acme.test"))
    made = await client.post("/v1/admin/projects", json={"name": "Shop"}, headers=owner.write)
    assert made.status_code == 201, made.text
    pid = made.json()["projectId"]
    page = await client.get(f"/dashboard/projects/{pid}", headers=owner.read)
    assert page.status_code == 200
    assert 'id="routing"' in page.text
    assert (
        "<code>sandbox_atlas</code></td><td><code>default</code></td><td>100</td><td>HEALTHY</td>"
        in page.text
    )
    saved = await client.post(
        f"/dashboard/projects/{pid}/routing",
        data={"csrf_token": owner.csrf, "strategy": "BEST_PRICE"},
        headers=owner.read,
    )
    assert saved.status_code == 303, saved.text
    read = await client.get(f"/v1/admin/projects/{pid}/routing", headers=owner.read)
    assert read.json()["strategy"] == "BEST_PRICE"
    wrong = await client.post(
        f"/dashboard/projects/{pid}/routing",
        data={"csrf_token": owner.csrf, "strategy": "CHEAPEST"},
        headers=owner.read,
    )
    assert wrong.status_code == 400


# --- the misbehaving mock, call by call (pure) ---------------------------------------------


async def test_each_behaviour_fails_the_calls_it_names(monkeypatch: pytest.MonkeyPatch) -> None:
    provider = provider_by_code(ATLAS)
    assert provider is not None
    mock = SandboxConnector(provider)
    ctx = ProviderContext.without_credentials("account")
    customer = ProviderCustomerRef(provider_customer_id="customer")
    down = MisbehavingConnector(mock, Behaviour.DOWN)
    with pytest.raises(ProviderOutOfService, match="sandbox behaviour DOWN"):
        await down.compliance(ctx, customer, "KYC_BASIC")
    with pytest.raises(ProviderOutOfService):
        await down.get_transfer(ctx, "ref")
    refusing = MisbehavingConnector(mock, Behaviour.REFUSE_TRANSFERS)
    assert (await refusing.compliance(ctx, customer, "KYC_BASIC")).requirement == "KYC_BASIC"
    assert (await refusing.get_transfer(ctx, "ref")).provider_state == "pending"
    order = TransactionOrder(
        transaction_id="t",
        movement_type=MovementType.ONRAMP,
        amount=Decimal("100.00"),
        source=AccountDetails(currency_code="USD", rail=Rail.ACH, metadata={}),
        destination=AccountDetails(currency_code="USDC_ETHEREUM", metadata={}),
    )
    with pytest.raises(ProviderOutOfService, match="REFUSE_TRANSFERS"):
        await refusing.create_transfer(ctx, customer, order)
    # SLOW answers, late: past an in-process call's timeout (shortened here).
    monkeypatch.setattr(sandbox_behaviour, "SLOW_SECONDS", 0.05)
    slow = MisbehavingConnector(mock, Behaviour.SLOW)
    started = asyncio.get_running_loop().time()
    transfer = await slow.create_transfer(ctx, customer, order)
    assert asyncio.get_running_loop().time() - started >= 0.05
    assert transfer.provider_reference.startswith("atlas_")
