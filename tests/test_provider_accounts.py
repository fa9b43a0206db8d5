"""Provider accounts: credentials checked with the provider (the Bridge simulator),
stored sealed, never shown back; routing follows the accounts' health."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from activities.routing import route_payment
from ramp import projects
from ramp.adapters.registry import Connectors
from ramp.catalog import AccountFacts, AccountType, Rail, providers_for
from ramp.config import Environment, Settings
from ramp.db.tables import ProviderAccount
from ramp.db.types import utcnow
from ramp.errors import Conflict, InvalidInput, NotFound, Unavailable
from ramp.intents.models import IntentRequest
from ramp.projects import RoutingAccount
from ramp.provider_accounts import service
from ramp.provider_accounts.credentials import CredentialsMismatch
from ramp.routing.candidates import ProjectRoute, project_route
from ramp.routing.health import DOWN_AFTER, Health, apply_call
from ramp.routing.strategy import Strategy, rank_accounts, set_routing_strategy
from ramp.security.encryption import SecretBox
from tests.helpers.cli import ramp, ramp_in_process
from tests.simulators.bridge import BridgeSimulator, Fault, running

GOOD_KEY = "sk-test-provider-accounts-key"


@pytest.fixture(scope="module")
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={GOOD_KEY})) as simulator:
        yield simulator


@pytest.fixture(autouse=True)
def _fresh(bridge: BridgeSimulator) -> None:
    bridge.reset()


async def production_project(db: AsyncSession, settings: Settings) -> str:
    created = await projects.create_project(
        db,
        name="Production",
        environment=Environment.PRODUCTION,
        secret_box=SecretBox.from_settings(settings),
    )
    return created.projectId


def bridge_credentials(bridge: BridgeSimulator, key: str = GOOD_KEY) -> dict[str, str]:
    return {"apiKey": key, "environment": "sandbox", "baseUrl": bridge.url}


async def connect(
    db: AsyncSession,
    settings: Settings,
    project_id: str,
    credentials: dict[str, str],
    name: str | None = None,
    priority: int | None = None,
) -> service.ProviderAccountView:
    return await service.set_provider_account(
        db,
        project_id=project_id,
        provider_code="BRIDGE",
        credentials=credentials,
        secret_box=SecretBox.from_settings(settings),
        public_url=settings.public_url,
        connectors=Connectors.from_settings(settings),
        name=name,
        priority=priority,
    )


async def test_set_checks_seals_and_registers_the_webhook(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    project_id = await production_project(db, migrated)
    account = await connect(db, migrated, project_id, bridge_credentials(bridge))
    assert account.status == "HEALTHY"
    assert account.webhook_url == f"http://testserver/v1/provider-webhooks/{account.id}"
    assert account.webhook_registered
    # Checked with the provider, with the key as Bridge wants it.
    assert [r.api_key for r in bridge.requests if r.path == "/v0/customers"] == [GOOD_KEY]
    # Our endpoint registered at Bridge, then enabled.
    [endpoint] = bridge.webhooks.values()
    assert endpoint["url"] == account.webhook_url
    assert endpoint["status"] == "active"
    # Never shown back: a masked hint only, in the view and in its JSON.
    shown = json.dumps(account.as_json())
    assert GOOD_KEY not in shown
    assert account.credentials_hint == "apiKey: sk-t…-key"
    row = await db.get(ProviderAccount, account.id)
    assert row is not None
    assert row.credentials_encrypted is not None
    assert GOOD_KEY not in row.credentials_encrypted
    assert row.webhook_public_key == bridge.webhook_public_key
    # Activities open it into a context with the decrypted key.
    _, connector, ctx = await service.provider_context(
        db, provider_account_id=account.id, secret_box=SecretBox.from_settings(migrated)
    )
    assert connector.code == "BRIDGE"
    assert ctx.credentials.secret("apiKey") == GOOD_KEY
    assert ctx.base_url == bridge.url
    assert GOOD_KEY not in repr(ctx)
    # Routing: the production project routes through exactly this account.
    routed = await projects.routing_accounts(db, project_id)
    assert [(p.code, a) for p, a in routed] == [("BRIDGE", account.id)]


async def test_set_again_without_a_name_replaces_the_default_account(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    project_id = await production_project(db, migrated)
    first = await connect(db, migrated, project_id, bridge_credentials(bridge))
    bridge.api_keys.add("sk-test-rotated-key-0002")
    second = await connect(
        db, migrated, project_id, bridge_credentials(bridge, "sk-test-rotated-key-0002")
    )
    assert second.id == first.id
    assert second.credentials_hint == "apiKey: sk-t…0002"
    # The endpoint registered the first time is found again, not registered twice.
    assert len(bridge.webhooks) == 1
    listed = await service.list_provider_accounts(
        db, project_id=project_id, public_url=migrated.public_url
    )
    assert [a.id for a in listed] == [first.id]


async def test_several_accounts_of_a_provider_route_by_priority_then_name(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    project_id = await production_project(db, migrated)
    # No account yet: select_provider's read finds an empty route, FIRST_ELIGIBLE.
    assert await project_route(db, project_id) == ProjectRoute()
    await set_routing_strategy(db, project_id, "BEST_PRICE")
    first = await connect(db, migrated, project_id, bridge_credentials(bridge))
    b = await connect(db, migrated, project_id, bridge_credentials(bridge), "entity-b", 10)
    c = await connect(db, migrated, project_id, bridge_credentials(bridge), "entity-c", 10)
    assert len({first.id, b.id, c.id}) == 3
    # Each account registers its own webhook endpoint (its own URL).
    assert {w["url"] for w in bridge.webhooks.values()} == {
        first.webhook_url,
        b.webhook_url,
        c.webhook_url,
    }

    async def order() -> list[tuple[str, int]]:
        found = await projects.routing_candidates(db, project_id)
        # select_provider's one statement: the same accounts, their health, the strategy.
        route = await project_route(db, project_id)
        assert (route.accounts, route.strategy) == (found, Strategy.BEST_PRICE)
        assert {i: h.state for i, h in route.health.items()} == {
            a.account_id: Health.HEALTHY for a in found
        }
        return [(a.name, a.priority) for a in found]

    assert await order() == [("entity-b", 10), ("entity-c", 10), ("default", 100)]
    # What is asked per provider (quotes, GET /v1/providers) goes to its first account.
    assert [a for _, a in await projects.routing_accounts(db, project_id)] == [b.id]
    await service.set_priority(
        db, project_id=project_id, provider_account_id=first.id, priority=1, public_url=""
    )
    assert await order() == [("default", 1), ("entity-b", 10), ("entity-c", 10)]
    # Set again by name without a priority: it keeps its own.
    again = await connect(db, migrated, project_id, bridge_credentials(bridge), "entity-c")
    assert (again.id, again.priority) == (c.id, 10)
    await service.disable_provider_account(
        db, project_id=project_id, public_url="", provider_code="BRIDGE", name="entity-b"
    )
    assert await order() == [("default", 1), ("entity-c", 10)]
    for priority in (-1, 1_000_001):
        with pytest.raises(InvalidInput):
            await service.set_priority(
                db, project_id=project_id, provider_account_id=c.id, priority=priority,
                public_url="",
            )  # fmt: skip
    with pytest.raises(InvalidInput):
        await connect(db, migrated, project_id, bridge_credentials(bridge), "-starts-badly")


async def test_invalid_credentials_are_refused_with_the_providers_reason(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    project_id = await production_project(db, migrated)
    with pytest.raises(InvalidInput) as refused:
        await connect(db, migrated, project_id, bridge_credentials(bridge, "sk-test-wrong-key-1"))
    assert refused.value.code == "INVALID_CREDENTIALS"
    assert "Invalid API key" in refused.value.message
    # Schema violations name the field, never the value.
    with pytest.raises(InvalidInput) as bad:
        await connect(db, migrated, project_id, {"apiKey": "short", "environment": "sandbox"})
    assert bad.value.details["fields"][0]["pointer"] == "/apiKey"
    assert "short" not in json.dumps(bad.value.details) + bad.value.message
    # The provider down: nothing stored, try again.
    bridge.fail_next(Fault(status=503))
    with pytest.raises(Unavailable):
        await connect(db, migrated, project_id, bridge_credentials(bridge))
    rows = (
        await db.exec(select(ProviderAccount).where(ProviderAccount.project_id == project_id))
    ).all()
    assert rows == []
    with pytest.raises(InvalidInput) as unknown:
        await service.set_provider_account(
            db,
            project_id=project_id,
            provider_code="NOPE",
            credentials={},
            secret_box=SecretBox.from_settings(migrated),
            public_url=migrated.public_url,
        )
    assert unknown.value.code == "UNKNOWN_PROVIDER"


async def test_refusals_name_what_was_tried_and_what_to_do(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    project_id = await production_project(db, migrated)
    # A wrong environment: the allowed values, checked here, nothing sent to Bridge.
    before = len(bridge.requests)
    with pytest.raises(InvalidInput) as wrong:
        await connect(db, migrated, project_id, {"apiKey": GOOD_KEY, "environment": "staging"})
    assert wrong.value.code == "INVALID_CREDENTIALS"
    assert "/environment must be one of sandbox, production" in wrong.value.message
    assert "nothing was sent to BRIDGE" in wrong.value.message
    assert wrong.value.details["fields"] == [
        {"pointer": "/environment", "reason": "must be one of sandbox, production"}
    ]
    assert "staging" not in wrong.value.message
    assert len(bridge.requests) == before
    # A field that is not Bridge's is named with the ones that are; a missing one too.
    with pytest.raises(InvalidInput) as unknown:
        await connect(db, migrated, project_id, {"apiKey": GOOD_KEY, "env": "sandbox"})
    reasons = {f["pointer"]: f["reason"] for f in unknown.value.details["fields"]}
    assert reasons["/environment"] == "is required"
    assert reasons["/env"] == "is not one of the fields: apiKey, environment, baseUrl"
    # Nothing answers at the address: the refusal names it, once, and says what to do.
    dead = f"http://127.0.0.1:{_closed_port()}/v0"
    with pytest.raises(Unavailable) as unreachable:
        await connect(db, migrated, project_id, {**bridge_credentials(bridge), "baseUrl": dead})
    assert unreachable.value.code == "PROVIDER_UNREACHABLE"
    assert unreachable.value.message.count(dead) == 1
    assert "try again" in unreachable.value.message
    assert unreachable.value.details == {"provider": "BRIDGE", "url": dead}


def _closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_sandbox_projects_keep_their_mock_providers(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    created = await projects.create_project(
        db,
        name="Sandbox",
        environment=Environment.SANDBOX,
        secret_box=SecretBox.from_settings(migrated),
    )
    with pytest.raises(Conflict):
        await connect(db, migrated, created.projectId, bridge_credentials(bridge))


async def test_unhealthy_and_disabled_accounts_leave_routing(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    project_id = await production_project(db, migrated)
    account = await connect(db, migrated, project_id, bridge_credentials(bridge))
    await service.mark_unhealthy(
        db, provider_account_id=account.id, reason="Bridge rejected the API key (401)"
    )
    shown = await service.get_provider_account(
        db, project_id=project_id, provider_account_id=account.id, public_url=migrated.public_url
    )
    assert (shown.status, shown.status_reason) == ("UNHEALTHY", "Bridge rejected the API key (401)")
    assert await projects.routing_accounts(db, project_id) == ()
    # Working credentials set again: healthy, routed again.
    await connect(db, migrated, project_id, bridge_credentials(bridge))
    assert len(await projects.routing_accounts(db, project_id)) == 1
    disabled = await service.disable_provider_account(
        db, project_id=project_id, provider_code="bridge", public_url=migrated.public_url
    )
    assert disabled.status == "DISABLED"
    assert await projects.routing_accounts(db, project_id) == ()
    # A disabled account is not made "unhealthy" by a late failure.
    await service.mark_unhealthy(db, provider_account_id=account.id, reason="late")
    row = await db.get(ProviderAccount, account.id)
    assert row is not None
    await db.refresh(row)
    assert row.status == "DISABLED"
    with pytest.raises(NotFound):
        await service.get_provider_account(
            db, project_id="another", provider_account_id=account.id, public_url=migrated.public_url
        )


async def test_sealed_credentials_are_bound_to_their_account(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    one = await connect(
        db, migrated, await production_project(db, migrated), bridge_credentials(bridge)
    )
    other = await connect(
        db, migrated, await production_project(db, migrated), bridge_credentials(bridge)
    )
    first = await db.get(ProviderAccount, one.id)
    second = await db.get(ProviderAccount, other.id)
    assert first is not None
    assert second is not None
    second.credentials_encrypted = first.credentials_encrypted
    db.add(second)
    await db.commit()
    with pytest.raises(CredentialsMismatch):
        await service.provider_context(
            db, provider_account_id=other.id, secret_box=SecretBox.from_settings(migrated)
        )


async def test_cli_sets_lists_and_disables(tmp_path: Path, bridge: BridgeSimulator) -> None:
    # The simulator serves on this event loop: the command runs in a thread. The two
    # refusals run as processes (what the process prints on stderr, its log lines
    # included, is their subject); the other commands in this process (each `ramp`
    # process costs about 1 s of CPU in imports).
    data = tmp_path / "prod"
    # The simulator is on loopback: the operator allows it, as a staging proxy.
    env = {"RAMP_ENV": "production", "RAMP_PROVIDER_NETWORKS": "127.0.0.1/32", **_cli_keys()}
    created = await asyncio.to_thread(
        ramp_in_process, "project", "create", "--name", "Shop", "--data-dir", str(data), env=env
    )
    assert created.returncode == 0, created.stderr
    project_id = json.loads(created.stdout)["projectId"]
    good = tmp_path / "bridge.json"
    good.write_text(json.dumps(bridge_credentials(bridge)))
    result = await asyncio.to_thread(
        ramp_in_process,
        "provider-account", "set", "--project-id", project_id, "--provider", "BRIDGE",
        "--credentials-file", str(good), "--data-dir", str(data), env=env,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    printed = json.loads(result.stdout)
    assert set(printed) == {"providerAccountId", "name", "priority", "webhookUrl", "status"}
    assert printed["status"] == "HEALTHY"
    # Without --name: the account named "default", at the default priority.
    assert (printed["name"], printed["priority"]) == ("default", 100)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(bridge_credentials(bridge, "sk-test-not-a-key")))
    refused = await asyncio.to_thread(
        ramp,
        "provider-account", "set", "--project-id", project_id, "--provider", "BRIDGE",
        "--credentials-file", str(bad), "--data-dir", str(data), env=env,
    )  # fmt: skip
    assert refused.returncode != 0
    assert "INVALID_CREDENTIALS" in refused.stderr
    assert "Invalid API key" in refused.stderr
    assert "sk-test-not-a-key" not in refused.stderr
    # An address where nothing answers: one line naming it (no log line repeating it).
    dead = f"http://127.0.0.1:{_closed_port()}/v0"
    unreachable = tmp_path / "dead.json"
    unreachable.write_text(json.dumps({**bridge_credentials(bridge), "baseUrl": dead}))
    refused = await asyncio.to_thread(
        ramp,
        "provider-account", "set", "--project-id", project_id, "--provider", "BRIDGE",
        "--credentials-file", str(unreachable), "--data-dir", str(data), env=env,
    )  # fmt: skip
    assert refused.returncode != 0
    assert refused.stderr.count(dead) == 1, refused.stderr
    assert refused.stderr.strip().count("\n") == 0, refused.stderr
    assert refused.stderr.startswith("Error: PROVIDER_UNREACHABLE: ")
    # A second Bridge account, named, routed before the first (service-level checks of
    # names and priorities: the tests above).
    second = await asyncio.to_thread(
        ramp_in_process,
        "provider-account", "set", "--project-id", project_id, "--provider", "BRIDGE",
        "--credentials-file", str(good), "--name", "entity-b", "--priority", "10",
        "--data-dir", str(data), env=env,
    )  # fmt: skip
    assert second.returncode == 0, second.stderr
    named = json.loads(second.stdout)
    assert (named["name"], named["priority"]) == ("entity-b", 10)
    assert named["providerAccountId"] != printed["providerAccountId"]
    listed = await asyncio.to_thread(
        ramp_in_process, "provider-account", "list", "--project-id", project_id,
        "--data-dir", str(data), env=env,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    both = json.loads(listed.stdout)
    assert [(a["name"], a["priority"]) for a in both] == [("entity-b", 10), ("default", 100)]
    assert both[1]["providerAccountId"] == printed["providerAccountId"]
    assert GOOD_KEY not in listed.stdout
    # Without --name: the account named "default"; with it, that one.
    for name in (None, "entity-b"):
        disabled = await asyncio.to_thread(
            ramp_in_process,
            "provider-account", "disable", "--project-id", project_id, "--provider", "BRIDGE",
            *(("--name", name) if name else ()), "--data-dir", str(data), env=env,
        )  # fmt: skip
        assert disabled.returncode == 0, disabled.stderr
        assert json.loads(disabled.stdout)["status"] == "DISABLED"
        assert json.loads(disabled.stdout)["name"] == (name or "default")


def _cli_keys() -> dict[str, str]:
    from ramp.security.keys import generated_keys

    return generated_keys()


async def test_a_refusal_of_credentials_since_replaced_leaves_the_account_healthy(
    db: AsyncSession, migrated: Settings, bridge: BridgeSimulator
) -> None:
    """A call still in flight with the old key fails after the owner set a new one: the
    account stays as the owner left it (seen under load in tests/test_bridge_polling.py's
    rotation, where the late refusal took the rotated account out of routing again)."""
    project_id = await production_project(db, migrated)
    account = await connect(db, migrated, project_id, bridge_credentials(bridge))
    old = await db.get(ProviderAccount, account.id)
    assert old is not None
    old_sealed = old.credentials_encrypted
    await connect(db, migrated, project_id, bridge_credentials(bridge))  # sealed anew
    await service.mark_unhealthy(
        db, provider_account_id=account.id, reason="late 401", rejected_credentials=old_sealed
    )
    row = await db.get(ProviderAccount, account.id)
    assert row is not None
    await db.refresh(row)
    assert row.credentials_encrypted != old_sealed
    assert row.status == "HEALTHY"
    # The current credentials refused: out of routing.
    await service.mark_unhealthy(
        db,
        provider_account_id=account.id,
        reason="Bridge rejected the API key (401)",
        rejected_credentials=row.credentials_encrypted,
    )
    await db.refresh(row)
    assert row.status == "UNHEALTHY"


async def test_down_accounts_are_skipped_one_by_one_with_their_reasons(
    db: AsyncSession,
    sessions: async_sessionmaker[AsyncSession],
    migrated: Settings,
    bridge: BridgeSimulator,
) -> None:
    project_id = await production_project(db, migrated)
    a = await connect(db, migrated, project_id, bridge_credentials(bridge))
    b = await connect(db, migrated, project_id, bridge_credentials(bridge), "entity-b", 10)
    candidates = await projects.routing_candidates(db, project_id)
    eligible = [candidates[0].provider]
    request = IntentRequest(
        intent_id="i", project_id=project_id, customer_id="c", src_account_id="s",
        dest_account_id="d", amount=Decimal("100"), lifetime_seconds=60, fingerprint="f",
    )  # fmt: skip
    facts = (
        AccountFacts(currency_code="USD", account_type=AccountType.BANK_ACCOUNT, rail=Rail.ACH),
        AccountFacts(currency_code="USDC_ETHEREUM", account_type=AccountType.CRYPTO_ADDRESS),
    )

    async def route(**changes: Any) -> tuple[list[str], dict[str, list[str]]]:
        async with sessions() as session:
            # As select_provider reads it: the accounts with their health, the strategy.
            found = await project_route(session, project_id)
            assert found.accounts == candidates
            routed = await route_payment(
                session, request.model_copy(update=changes), found, eligible, {}, facts
            )
        return [c.account_id for c in routed.ranked], routed.rejected

    assert await route() == ([b.id, a.id], {})
    # The account tried is excluded, not its provider: the other account remains.
    assert await route(excluded_accounts=[b.id]) == ([a.id], {})
    # Runs from before several accounts exclude the provider.
    ranked, rejected = await route(excluded_providers=["BRIDGE"])
    assert ranked == []
    assert rejected["BRIDGE"] == [
        "account 'entity-b': failed over from it already",
        "account 'default': failed over from it already",
    ]
    # A DOWN account is skipped (its probe not due); both DOWN: a reason per account.
    for account in (b.id, a.id):
        row = None
        for _ in range(DOWN_AFTER):
            row = apply_call(row, account, "Bridge unavailable (503)", utcnow())
        db.add(row)
        await db.commit()
        if account == b.id:
            assert await route() == ([a.id], {})
    ranked, rejected = await route()
    assert ranked == []
    assert [reason.split(": ")[0] for reason in rejected["BRIDGE"]] == [
        "account 'entity-b'",
        "account 'default'",
    ]
    assert all("DOWN: 3 failed calls in a row" in reason for reason in rejected["BRIDGE"])


def test_accounts_rank_by_priority_or_by_net_then_health_then_priority() -> None:
    bridge, monerium = (p for p in providers_for("production") if p.code in ("BRIDGE", "MONERIUM"))
    b1, b2 = RoutingAccount(bridge, "b1", "b", 5), RoutingAccount(bridge, "b2", "c", 5)
    m1 = RoutingAccount(monerium, "m1", "default", 1)
    # Selection order, as routing_candidates gives it: catalog, then priority, then name.
    accounts = [b1, b2, m1]
    assert rank_accounts(Strategy.FIRST_ELIGIBLE, accounts, {}, {}) == accounts
    nets = {"BRIDGE": Decimal("99"), "MONERIUM": Decimal("98")}
    ranked = rank_accounts(Strategy.BEST_PRICE, accounts, nets, {"b1": Health.DEGRADED})
    assert ranked == [b2, b1, m1]  # the better net; among equals healthy first
    nets["MONERIUM"] = Decimal("100")
    assert rank_accounts(Strategy.BEST_PRICE, accounts, nets, {})[0] is m1
    # No quote: after every account with one.
    assert rank_accounts(Strategy.BEST_PRICE, accounts, {"MONERIUM": Decimal(1)}, {}) == [
        m1,
        b1,
        b2,
    ]
