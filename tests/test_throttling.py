"""Throttling over HTTP against the app, with counters in memory and in the real Redis
at 127.0.0.1:6379 (each test under a key prefix of its own): failed client-credential
checks per (client id, address) and per address, per-project request budgets with `RateLimit-*`
headers, and the unauthenticated endpoints per address."""

from __future__ import annotations

import base64
import logging
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import httpx
import pytest
from asgi_lifespan import LifespanManager
from pydantic import ValidationError
from redis.asyncio import Redis
from sqlmodel import func, select
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from api.openapi import openapi_document
from ramp.config import Settings
from ramp.db.tables import WalletNonce
from tests.helpers.projects import ProjectCredentials, bearer, make_customer, make_project
from tests.helpers.servers import derive_settings

# About throttle counters (memory, Redis), not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

REDIS_URL = "redis://127.0.0.1:6379/0"
# Generous defaults, so that each test trips only the limit it is about.
ROOMY = {
    "RAMP_RATE_LIMIT_PROJECT": "1000/60",
    "RAMP_RATE_LIMIT_PUBLIC": "1000/60",
    "RAMP_AUTH_FAILURES_PER_CLIENT_ADDRESS": "1000/60",
    "RAMP_AUTH_FAILURES_PER_ADDRESS": "1000/60",
}


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def redis_prefix() -> AsyncIterator[str]:
    prefix = f"ramp-test:{uuid.uuid4().hex}:"
    yield prefix
    redis = Redis.from_url(REDIS_URL)
    keys = [key async for key in redis.scan_iter(match=prefix + "*")]
    if keys:
        await redis.delete(*keys)
    await redis.aclose()


def throttled_settings(migrated: Settings, backend: str, prefix: str, **limits: str) -> Settings:
    store = {"RAMP_RATE_LIMIT_REDIS_URL": REDIS_URL} if backend == "redis" else {}
    return derive_settings(
        migrated, **{**ROOMY, **store, "RAMP_RATE_LIMIT_PREFIX": prefix, **limits}
    )


@asynccontextmanager
async def running(settings: Settings) -> AsyncIterator[Callable[[str], httpx.AsyncClient]]:
    """One app (its lifespan running); yields a factory of clients by source address."""
    async with LifespanManager(create_app(settings)) as manager:
        clients: list[httpx.AsyncClient] = []

        def client_from(address: str) -> httpx.AsyncClient:
            transport = httpx.ASGITransport(app=manager.app, client=(address, 40000))
            http = httpx.AsyncClient(transport=transport, base_url="http://testserver")
            clients.append(http)
            return http

        try:
            yield client_from
        finally:
            for http in clients:
                await http.aclose()


def basic(client_id: str, secret: str) -> dict[str, str]:
    raw = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def assert_throttled(response: httpx.Response, code: str) -> int:
    """The 429 envelope with its Retry-After; returns the seconds to wait."""
    assert response.status_code == 429, response.text
    body = response.json()
    assert body["statusCode"] == 429
    assert body["error"] == "Too Many Requests"
    assert body["code"] == code
    retry_after = int(response.headers["retry-after"])
    assert 1 <= retry_after <= 60
    assert body["details"] == {"retryAfterSeconds": retry_after}
    return retry_after


async def test_failed_secrets_throttle_the_client_id_from_that_address_only(
    migrated: Settings,
    backend: str,
    redis_prefix: str,
    project: ProjectCredentials,
    db: AsyncSession,
) -> None:
    settings = throttled_settings(
        migrated, backend, redis_prefix, RAMP_AUTH_FAILURES_PER_CLIENT_ADDRESS="3/60"
    )
    other = await make_project(db, migrated, "Other project")
    wrong = basic(project.client_id, "sk_sandbox_guess")
    async with running(settings) as client_from:
        # Guesses from addresses of their own are not added up: the client id is no
        # secret, and counting it everywhere would let anyone lock its project out.
        for attempt in range(3):
            refused = await client_from(f"10.0.0.{attempt}").get(
                "/v1/currencies/supported", headers=wrong
            )
            assert refused.status_code == 401, refused.text
        attacker = client_from("10.0.0.9")
        for _ in range(3):
            refused = await attacker.get("/v1/currencies/supported", headers=wrong)
            assert refused.status_code == 401, refused.text
            assert refused.json()["code"] == "INVALID_CREDENTIALS"
        assert_throttled(
            await attacker.get("/v1/currencies/supported", headers=wrong), "AUTH_THROTTLED"
        )
        # From that address the right secret is refused too until the window closes: the
        # throttle answers no guess, so a correct one cannot be told from a wrong one.
        locked = await attacker.get("/v1/currencies/supported", headers=project.basic)
        assert_throttled(locked, "AUTH_THROTTLED")
        # From any other address it works.
        fine = await client_from("10.0.1.1").get("/v1/currencies/supported", headers=project.basic)
        assert fine.status_code == 200, fine.text
        # Another project is not affected, from the very same address.
        fine = await attacker.get("/v1/currencies/supported", headers=other.basic)
        assert fine.status_code == 200, fine.text


async def test_failed_checks_lock_the_address_out_whatever_client_id_it_tries(
    migrated: Settings, backend: str, redis_prefix: str, project: ProjectCredentials
) -> None:
    settings = throttled_settings(
        migrated, backend, redis_prefix, RAMP_AUTH_FAILURES_PER_ADDRESS="4/60"
    )
    async with running(settings) as client_from:
        attacker = client_from("203.0.113.7")
        guesses = [
            basic(f"ci_sandbox_{uuid.uuid4().hex[:24]}", "sk_sandbox_x"),  # unknown id
            basic(project.client_id, "sk_sandbox_x"),  # known id, wrong secret
            basic("not-a-client-id", "x"),  # malformed
            {"Authorization": "Basic !!!"},  # not base64
        ]
        for guess in guesses:
            refused = await attacker.post("/v1/customers", json={"id": "u"}, headers=guess)
            assert refused.status_code == 401, refused.text
        throttled = await attacker.post("/v1/customers", json={"id": "u"}, headers=project.basic)
        assert_throttled(throttled, "AUTH_THROTTLED")
        # Another address is not: the project itself was tried only once.
        other = await client_from("198.51.100.1").post(
            "/v1/customers", json={"id": "u"}, headers=project.basic
        )
        assert other.status_code == 201, other.text
        # Requests without credentials are not guesses and are not counted.
        missing = await client_from("198.51.100.2").get("/v1/currencies/supported")
        assert missing.json()["code"] == "MISSING_CREDENTIALS"


async def test_each_project_has_a_request_budget_announced_in_ratelimit_headers(
    migrated: Settings,
    backend: str,
    redis_prefix: str,
    project: ProjectCredentials,
    db: AsyncSession,
) -> None:
    settings = throttled_settings(migrated, backend, redis_prefix, RAMP_RATE_LIMIT_PROJECT="4/60")
    other = await make_project(db, migrated, "Other project")
    async with running(settings) as client_from:
        http = client_from("10.1.0.1")
        first = await http.get("/v1/currencies/supported", headers=project.basic)
        assert first.status_code == 200
        assert first.headers["ratelimit-limit"] == "4"
        assert first.headers["ratelimit-remaining"] == "3"
        assert 1 <= int(first.headers["ratelimit-reset"]) <= 60
        assert first.headers["ratelimit-policy"] == "4;w=60"
        # Customer tokens spend their project's budget too, errors included.
        customer = await make_customer(http, project, "budget-user")
        missing = await http.get(
            f"/v1/intent/{uuid.uuid4()}", headers=bearer(customer["access_token"])
        )
        assert missing.status_code == 404
        assert missing.headers["ratelimit-remaining"] == "1"
        last = await client_from("10.1.0.2").get("/v1/providers", headers=project.basic)
        assert last.headers["ratelimit-remaining"] == "0"
        over = await http.get("/v1/currencies/supported", headers=project.basic)
        retry_after = assert_throttled(over, "RATE_LIMITED")
        assert over.headers["ratelimit-remaining"] == "0"
        assert int(over.headers["ratelimit-reset"]) == retry_after
        assert_throttled(
            await http.get("/v1/intent", headers=bearer(customer["access_token"])),
            "RATE_LIMITED",
        )
        # Another project has its own budget.
        theirs = await http.get("/v1/currencies/supported", headers=other.basic)
        assert theirs.status_code == 200
        assert theirs.headers["ratelimit-remaining"] == "3"
        # Unauthenticated responses carry no budget.
        assert "ratelimit-limit" not in (await http.get("/v1/openapi.json")).headers


async def test_the_wallet_nonce_endpoint_is_limited_per_address(
    migrated: Settings, backend: str, redis_prefix: str, db: AsyncSession
) -> None:
    settings = throttled_settings(migrated, backend, redis_prefix, RAMP_RATE_LIMIT_PUBLIC="3/60")
    async with running(settings) as client_from:
        flood = client_from("192.0.2.10")
        statuses = [(await flood.get("/v1/walletpay/auth/nonce")).status_code for _ in range(5)]
        assert statuses == [200, 200, 200, 429, 429]
        assert_throttled(await flood.get("/v1/walletpay/auth/nonce"), "RATE_LIMITED")
        # A refused call stores nothing: three rows, not six.
        assert (await db.exec(select(func.count()).select_from(WalletNonce))).one() == 3
        assert (await client_from("192.0.2.11").get("/v1/walletpay/auth/nonce")).status_code == 200
        # The challenge has a budget of its own.
        for _ in range(3):
            attempt = await flood.post("/v1/walletpay/auth/challenge", json={})
            assert attempt.status_code == 400, attempt.text
        assert_throttled(await flood.post("/v1/walletpay/auth/challenge", json={}), "RATE_LIMITED")


async def test_an_ipv6_network_of_one_subscriber_shares_one_budget(
    migrated: Settings, backend: str, redis_prefix: str
) -> None:
    settings = throttled_settings(migrated, backend, redis_prefix, RAMP_RATE_LIMIT_PUBLIC="2/60")
    async with running(settings) as client_from:
        # One /64, three addresses in it: one budget.
        for address in ("2001:db8:1:2::1", "2001:db8:1:2::2"):
            nonce = await client_from(address).get("/v1/walletpay/auth/nonce")
            assert nonce.status_code == 200
        over = await client_from("2001:db8:1:2:ffff::9").get("/v1/walletpay/auth/nonce")
        assert_throttled(over, "RATE_LIMITED")
        # The next /64 is someone else.
        other = await client_from("2001:db8:1:3::1").get("/v1/walletpay/auth/nonce")
        assert other.status_code == 200


async def test_the_onboarding_page_is_limited_per_address(
    migrated: Settings, backend: str, redis_prefix: str
) -> None:
    settings = throttled_settings(migrated, backend, redis_prefix, RAMP_RATE_LIMIT_PUBLIC="2/60")
    path = f"/onboarding/{uuid.uuid4()}"
    async with running(settings) as client_from:
        prober = client_from("192.0.2.20")
        assert (await prober.get(path)).status_code == 200
        assert (await prober.get(path, params={"token": "x"})).status_code == 401
        assert_throttled(await prober.get(path), "RATE_LIMITED")
        assert (await client_from("192.0.2.21").get(path)).status_code == 200


async def test_two_api_processes_sharing_redis_share_one_budget(
    migrated: Settings, redis_prefix: str, project: ProjectCredentials
) -> None:
    settings = throttled_settings(
        migrated,
        "redis",
        redis_prefix,
        RAMP_RATE_LIMIT_PROJECT="4/60",
        RAMP_AUTH_FAILURES_PER_CLIENT_ADDRESS="2/60",
        RAMP_RATE_LIMIT_PUBLIC="2/60",
    )
    async with running(settings) as one, running(settings) as two:
        first, second = one("10.2.0.1"), two("10.2.0.1")
        remaining = []
        for http in (first, second, first, second):
            response = await http.get("/v1/currencies/supported", headers=project.basic)
            remaining.append(response.headers["ratelimit-remaining"])
        assert remaining == ["3", "2", "1", "0"]
        assert_throttled(
            await first.get("/v1/currencies/supported", headers=project.basic), "RATE_LIMITED"
        )
        assert_throttled(
            await second.get("/v1/currencies/supported", headers=project.basic), "RATE_LIMITED"
        )
        # Failed checks and unauthenticated calls add up across the processes too.
        wrong = basic(project.client_id, "sk_sandbox_wrong")
        assert (await first.get("/v1/providers", headers=wrong)).status_code == 401
        assert (await second.get("/v1/providers", headers=wrong)).status_code == 401
        assert_throttled(await first.get("/v1/providers", headers=wrong), "AUTH_THROTTLED")
        assert (await first.get("/v1/walletpay/auth/nonce")).status_code == 200
        assert (await second.get("/v1/walletpay/auth/nonce")).status_code == 200
        assert_throttled(await first.get("/v1/walletpay/auth/nonce"), "RATE_LIMITED")


async def test_in_memory_counters_are_per_process(
    migrated: Settings, project: ProjectCredentials
) -> None:
    settings = throttled_settings(migrated, "memory", "", RAMP_RATE_LIMIT_PROJECT="1/60")
    async with running(settings) as one, running(settings) as two:
        for client_from in (one, two):
            response = await client_from("10.3.0.1").get("/v1/providers", headers=project.basic)
            assert response.status_code == 200
            assert response.headers["ratelimit-remaining"] == "0"


async def test_an_unreachable_redis_lets_requests_through(
    migrated: Settings, project: ProjectCredentials, caplog: pytest.LogCaptureFixture
) -> None:
    settings = derive_settings(
        migrated,
        RAMP_RATE_LIMIT_REDIS_URL="redis://127.0.0.1:1/0",
        RAMP_RATE_LIMIT_PROJECT="1/60",
        RAMP_RATE_LIMIT_PUBLIC="1/60",
    )
    caplog.set_level(logging.WARNING, logger="ramp.ratelimit")
    async with running(settings) as client_from:
        http = client_from("10.4.0.1")
        for _ in range(2):
            assert (await http.get("/v1/providers", headers=project.basic)).status_code == 200
            assert (await http.get("/v1/walletpay/auth/nonce")).status_code == 200
    # Said once, not once a request.
    warnings = [r for r in caplog.records if "store unavailable" in r.getMessage()]
    assert len(warnings) == 1


async def test_each_limit_can_be_turned_off(
    migrated: Settings, project: ProjectCredentials
) -> None:
    settings = derive_settings(
        migrated,
        RAMP_RATE_LIMIT_PROJECT="off",
        RAMP_RATE_LIMIT_PUBLIC="1/60",
        RAMP_AUTH_FAILURES_PER_CLIENT_ADDRESS="off",
        RAMP_AUTH_FAILURES_PER_ADDRESS="off",
    )
    async with running(settings) as client_from:
        http = client_from("10.5.0.1")
        ok = await http.get("/v1/providers", headers=project.basic)
        assert ok.status_code == 200
        assert "ratelimit-limit" not in ok.headers
        wrong = basic(project.client_id, "nope")
        for _ in range(3):
            assert (await http.get("/v1/providers", headers=wrong)).status_code == 401
        # The limit left on still holds.
        assert (await http.get("/v1/walletpay/auth/nonce")).status_code == 200
        assert_throttled(await http.get("/v1/walletpay/auth/nonce"), "RATE_LIMITED")


def test_the_former_name_of_the_client_limit_is_still_read(migrated: Settings) -> None:
    # RAMP_AUTH_FAILURES_PER_CLIENT counted a client id from every address; a deployment
    # that set it keeps its figure, now per client id and address.
    settings = derive_settings(migrated, RAMP_AUTH_FAILURES_PER_CLIENT="7/60")
    assert str(settings.rate_limits.auth_failures_per_client_address) == "7/60"


@pytest.mark.parametrize("rate", ["60", "0/60", "10/0", "ten/60", "10/60s"])
def test_a_rate_that_is_not_count_per_seconds_is_refused_at_start(
    migrated: Settings, rate: str
) -> None:
    with pytest.raises(ValidationError, match="COUNT/SECONDS"):
        derive_settings(migrated, RAMP_RATE_LIMIT_PROJECT=rate)


def test_the_openapi_document_announces_the_limits() -> None:
    paths = openapi_document()["paths"]
    providers = paths["/providers"]["get"]["responses"]
    assert set(providers["200"]["headers"]) >= {
        "RateLimit-Limit",
        "RateLimit-Remaining",
        "RateLimit-Reset",
    }
    for path, method in (("/providers", "get"), ("/walletpay/auth/nonce", "get")):
        throttled = paths[path][method]["responses"]["429"]
        assert "Retry-After" in throttled["headers"]
