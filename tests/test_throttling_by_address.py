"""Throttles a stranger cannot turn against the owner (issue 23). The app is served over
real HTTP, so that the peer address is the client socket's: the attack comes from
127.0.0.2, the owner's calls from 127.0.0.1 (and, behind a trusted proxy, from the
addresses it forwards). Counters in memory and in the real Redis at 127.0.0.1:6379, each
test under a key prefix of its own; the limits are the defaults unless a test says."""

from __future__ import annotations

import asyncio
import base64
import re
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx
import pyotp
import pytest
from pydantic import ValidationError
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from api.app import create_app
from ramp.config import Settings
from tests.helpers.dashboard import PASSWORD, join, new_organization
from tests.helpers.projects import ProjectCredentials
from tests.helpers.servers import client_bound_to, derive_settings, serve, served_over_http

# About throttle counters and peer addresses, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

REDIS_URL = "redis://127.0.0.1:6379/0"
ATTACKER = "127.0.0.2"
OWNER = "127.0.0.1"
PROXY = "127.0.0.3"
OWNER_EMAIL = "owner@acme.test"
# Past every default free allowance (10 failures of one client id from one address,
# 50 from one address; 3 logins of one account from one address, 10 from one address).
ENOUGH = 80


@pytest.fixture(params=["memory", "redis"])
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def service_settings(migrated: Settings, backend: str) -> AsyncIterator[Settings]:
    prefix = f"ramp-test:{uuid.uuid4().hex}:"
    store = {"RAMP_RATE_LIMIT_REDIS_URL": REDIS_URL} if backend == "redis" else {}
    yield derive_settings(migrated, RAMP_RATE_LIMIT_PREFIX=prefix, **store)
    redis = Redis.from_url(REDIS_URL)
    keys = [key async for key in redis.scan_iter(match=prefix + "*")]
    if keys:
        await redis.delete(*keys)
    await redis.aclose()


def basic(client_id: str, secret: str) -> dict[str, str]:
    raw = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
    return {"Authorization": f"Basic {raw}"}


def retry_after(response: httpx.Response, code: str | None = None) -> int:
    """The 429's Retry-After (whole seconds); in the JSON envelope when `code` is given."""
    assert response.status_code == 429, response.text
    seconds = int(response.headers["retry-after"])
    assert seconds >= 1
    if code is not None:
        body = response.json()
        assert body["code"] == code
        assert body["details"] == {"retryAfterSeconds": seconds}
    return seconds


async def until_throttled(
    attempt: Callable[[int], Awaitable[httpx.Response]], refused: int
) -> tuple[int, httpx.Response]:
    """Makes attempts until one is answered 429, each other one `refused`; returns how
    many were refused before it, and the 429."""
    for made in range(ENOUGH):
        response = await attempt(made)
        if response.status_code == 429:
            return made, response
        assert response.status_code == refused, response.text
    raise AssertionError(f"{ENOUGH} attempts, and none was throttled")


async def test_wrong_secrets_for_a_client_id_throttle_the_guesser_not_the_project(
    service_settings: Settings, project: ProjectCredentials
) -> None:
    wrong = basic(project.client_id, "sk_sandbox_guess")
    async with (
        served_over_http(create_app(service_settings)) as base,
        client_bound_to(base, ATTACKER) as attacker,
        client_bound_to(base, OWNER) as owner,
    ):
        failed, throttled = await until_throttled(
            lambda _: attacker.get("/v1/providers", headers=wrong), 401
        )
        assert failed == 10  # RAMP_AUTH_FAILURES_PER_CLIENT_ADDRESS 10/300
        assert retry_after(throttled, "AUTH_THROTTLED") <= 300
        # From the guessing address even the right secret waits: the answer tells no guess.
        retry_after(await attacker.get("/v1/providers", headers=project.basic), "AUTH_THROTTLED")
        # The owner, from an address that has not been failing, is let in.
        for _ in range(3):
            mine = await owner.get("/v1/providers", headers=project.basic)
            assert mine.status_code == 200, mine.text
            assert (await attacker.get("/v1/providers", headers=wrong)).status_code == 429

        # Spraying other client ids from the same address: its own limit (50 failures
        # in all), and still nothing for the owner.
        def sprayed(_: int) -> Awaitable[httpx.Response]:
            other = f"ci_sandbox_{uuid.uuid4().hex[:24]}"
            return attacker.get("/v1/providers", headers=basic(other, "sk_sandbox_x"))

        failed, throttled = await until_throttled(sprayed, 401)
        assert failed == 50 - 10
        retry_after(throttled, "AUTH_THROTTLED")
        mine = await owner.post("/v1/customers", json={"id": "u-1"}, headers=project.basic)
        assert mine.status_code == 201, mine.text


async def test_forwarded_addresses_are_believed_from_trusted_proxies_only(
    migrated: Settings, service_settings: Settings, project: ProjectCredentials
) -> None:
    behind_proxy = derive_settings(
        migrated,
        RAMP_RATE_LIMIT_PREFIX=service_settings.rate_limit_key_prefix,
        RAMP_RATE_LIMIT_REDIS_URL=service_settings.rate_limit_redis_url.get_secret_value(),
        RAMP_TRUSTED_PROXIES=f"{PROXY},10.9.0.0/16",
    )
    wrong = basic(project.client_id, "sk_sandbox_guess")

    def forwarded(client: str) -> dict[str, str]:
        # What a proxy sends on: the client's claim (anything), then the peer it saw.
        return {"X-Forwarded-For": f"192.0.2.1, {client}"}

    async with (
        served_over_http(create_app(behind_proxy)) as base,
        client_bound_to(base, PROXY) as proxy,
        client_bound_to(base, ATTACKER) as attacker,
    ):
        # Through the proxy: each client is the address the proxy forwards.
        failed, _ = await until_throttled(
            lambda _: proxy.get("/v1/providers", headers={**wrong, **forwarded("203.0.113.9")}),
            401,
        )
        assert failed == 10
        owner_via_proxy = {**project.basic, **forwarded("198.51.100.7")}
        assert (await proxy.get("/v1/providers", headers=owner_via_proxy)).status_code == 200
        # Proxies chained inside the trusted network: the first untrusted hop counts.
        chained = {**wrong, "X-Forwarded-For": "203.0.113.9, 10.9.1.2"}
        assert (await proxy.get("/v1/providers", headers=chained)).status_code == 429

        # A client that is not a trusted proxy cannot choose its address: it is its
        # peer, whatever it forwards, so it cannot pose as the owner's address either.
        def posing(attempt: int) -> Awaitable[httpx.Response]:
            fake = {"X-Forwarded-For": f"198.51.100.7, 203.0.113.{attempt % 250}"}
            return attacker.get("/v1/providers", headers={**wrong, **fake})

        failed, throttled = await until_throttled(posing, 401)
        assert failed == 10
        retry_after(throttled, "AUTH_THROTTLED")
        assert (await proxy.get("/v1/providers", headers=owner_via_proxy)).status_code == 200


@pytest.mark.parametrize("proxies", ["proxy.internal", "10.0.0.1/8", "10.0.0.1,,x"])
def test_trusted_proxies_that_are_not_addresses_are_refused_at_start(
    migrated: Settings, proxies: str
) -> None:
    with pytest.raises(ValidationError, match="RAMP_TRUSTED_PROXIES"):
        derive_settings(migrated, RAMP_TRUSTED_PROXIES=proxies)


@pytest.fixture
async def owner_account(
    sessions: async_sessionmaker[AsyncSession], service_settings: Settings
) -> None:
    """An organization whose owner has set the password (through the setup link)."""
    link = await new_organization(sessions, OWNER_EMAIL)
    async with serve(create_app(service_settings)) as http:
        await join(http, link)


def login_form(email: str, password: str) -> dict[str, str]:
    return {"email": email, "password": password}


class LoginGuesser:
    """Wrong passwords from one address, with what the pacing must make of them: the
    k-th counted guess past `free` holds the address for 2^(k-1) s from its start."""

    def __init__(self, http: httpx.AsyncClient, free: int) -> None:
        self.http = http
        self.free = free
        self.counted = 0  # guesses let through (and answered 401)
        self.last_sent = 0.0  # when the last one let through was sent (monotonic)

    @property
    def hold(self) -> float:
        """The hold the last guess let through set (0 within the free ones)."""
        return 2.0 ** (self.counted - self.free - 1) if self.counted > self.free else 0.0

    async def until_waiting(self, form: Callable[[int], dict[str, str]]) -> int:
        """Guesses until one is answered 429; checks its Retry-After against the hold and
        returns it."""
        for _ in range(ENOUGH):
            sent = time.monotonic()
            response = await self.http.post("/dashboard/login", data=form(self.counted))
            if response.status_code == 429:
                seconds = retry_after(response)
                assert "try again in" in response.text
                # Whole seconds left of the hold: at most all of it, and at least what
                # can be left of it by now.
                assert seconds <= self.hold
                assert time.monotonic() - self.last_sent + seconds >= self.hold
                return seconds
            assert response.status_code == 401, response.text
            self.counted += 1
            self.last_sent = sent
        raise AssertionError(f"{ENOUGH} guesses, and none had to wait")

    async def refused_while_held(self, form: dict[str, str]) -> None:
        """Even the right password waits while the address is held (whenever the answer
        comes before the hold can have ended)."""
        response = await self.http.post("/dashboard/login", data=form)
        if time.monotonic() - self.last_sent < self.hold:
            retry_after(response)


async def test_wrong_passwords_from_elsewhere_never_keep_the_owner_out(
    service_settings: Settings, owner_account: None
) -> None:
    wrong = login_form(OWNER_EMAIL, "not the password at all")
    right = login_form(OWNER_EMAIL, PASSWORD)
    async with (
        served_over_http(create_app(service_settings)) as base,
        client_bound_to(base, ATTACKER) as attacker,
        client_bound_to(base, OWNER) as owner,
    ):
        # The campaign's six wrong passwords (they locked the account), and twenty more.
        for _ in range(26):
            guess = await attacker.post("/dashboard/login", data=wrong)
            assert guess.status_code in (401, 429), guess.text
        mine = await owner.post("/dashboard/login", data=right)
        assert mine.status_code == 303, mine.text


async def test_wrong_passwords_slow_the_guesser_and_never_keep_the_owner_out(
    service_settings: Settings, owner_account: None
) -> None:
    wrong = login_form(OWNER_EMAIL, "not the password at all")
    right = login_form(OWNER_EMAIL, PASSWORD)
    async with (
        served_over_http(create_app(service_settings)) as base,
        client_bound_to(base, ATTACKER) as attacker,
        client_bound_to(base, OWNER) as owner,
    ):
        guesser = LoginGuesser(attacker, free=3)
        await guesser.until_waiting(lambda _: wrong)
        # Three at once, then one more that sets the first wait (more only if a guess
        # took longer than its wait on a busy machine).
        assert guesser.counted >= 4
        # The owner from an address that has not been failing: logged in.
        mine = await owner.post("/dashboard/login", data=right)
        assert mine.status_code == 303, mine.text
        # The guesser pays a wait that doubles with each guess.
        holds = [guesser.hold]
        for _ in range(2):
            await asyncio.sleep(holds[-1])
            await guesser.until_waiting(lambda _: wrong)
            holds.append(guesser.hold)
        assert holds[1] >= 2 * holds[0]
        assert holds[2] >= 2 * holds[1]
        await guesser.refused_while_held(right)
        mine = await owner.post("/dashboard/login", data=right)
        assert mine.status_code == 303, mine.text


async def test_an_address_guessing_many_accounts_waits_and_the_owner_does_not(
    service_settings: Settings, owner_account: None
) -> None:
    async with (
        served_over_http(create_app(service_settings)) as base,
        client_bound_to(base, ATTACKER) as attacker,
        client_bound_to(base, OWNER) as owner,
    ):
        # One guess per account (never three of one): the address's own pace.
        guesser = LoginGuesser(attacker, free=10)
        await guesser.until_waiting(lambda n: login_form(f"member{n}@acme.test", "wrong guess"))
        assert guesser.counted >= 11
        # Every account waits from that address, the owner's too; from elsewhere, not.
        await guesser.refused_while_held(login_form(OWNER_EMAIL, PASSWORD))
        mine = await owner.post("/dashboard/login", data=login_form(OWNER_EMAIL, PASSWORD))
        assert mine.status_code == 303, mine.text


async def test_guesses_sent_together_do_not_slip_through_together(
    service_settings: Settings, owner_account: None
) -> None:
    wrong = login_form(OWNER_EMAIL, "not the password at all")
    async with (
        served_over_http(create_app(service_settings)) as base,
        client_bound_to(base, ATTACKER) as attacker,
    ):
        # Each guess is counted (and the address held) before its password is compared.
        answers = await asyncio.gather(
            *(attacker.post("/dashboard/login", data=wrong) for _ in range(20))
        )
        statuses = sorted(answer.status_code for answer in answers)
        assert set(statuses) == {401, 429}
        # Three free, the fourth sets the first wait; more only if a guess outlived it.
        assert 4 <= statuses.count(401) < 10


def wrong_code(seed: str) -> str:
    """A one-time code that is none of those accepted now (the current, one step either side)."""
    totp = pyotp.TOTP(seed)
    now = time.time()
    accepted = {totp.at(now + step * totp.interval) for step in (-1, 0, 1)}
    return next(code for code in ("000000", "111111", "222222", "333333") if code not in accepted)


async def test_one_time_code_guesses_are_paced_like_passwords(
    service_settings: Settings, sessions: async_sessionmaker[AsyncSession]
) -> None:
    link = await new_organization(sessions, OWNER_EMAIL)
    right = login_form(OWNER_EMAIL, PASSWORD)
    async with (
        served_over_http(create_app(service_settings)) as base,
        client_bound_to(base, ATTACKER) as attacker,
        client_bound_to(base, OWNER) as owner,
    ):
        member = await join(owner, link)
        page = await owner.get("/dashboard/security", headers=member.read)
        found = re.search(r'id="totp-seed">([A-Z2-7]+)<', page.text)
        assert found
        seed = found.group(1)
        enrolled = await owner.post(
            "/dashboard/security",
            data={
                "csrf_token": member.csrf,
                "action": "enroll",
                "seed": seed,
                "code": pyotp.TOTP(seed).now(),
            },
            headers=member.read,
        )
        assert enrolled.status_code == 303, enrolled.text
        # Someone who has the password guesses the code: each wrong code is a guess.
        guesser = LoginGuesser(attacker, free=3)
        await guesser.until_waiting(lambda _: {**right, "totp": wrong_code(seed)})
        assert guesser.counted >= 4
        # The owner's own login, in its two steps (the password alone is no guess).
        for _ in range(4):
            asked = await owner.post("/dashboard/login", data=right)
            assert asked.status_code == 401
            assert 'id="totp"' in asked.text
        coded = await owner.post("/dashboard/login", data={**right, "totp": pyotp.TOTP(seed).now()})
        assert coded.status_code == 303, coded.text


async def test_a_right_password_takes_back_its_attempt(
    service_settings: Settings, owner_account: None
) -> None:
    async with (
        served_over_http(create_app(service_settings)) as base,
        client_bound_to(base, OWNER) as owner,
    ):
        # Typos and logins from one address: a login forgets the account's failures from
        # there (not the address's: ten in all, of any account, still set its pace).
        for _ in range(3):
            for _ in range(3):
                typo = login_form(OWNER_EMAIL, PASSWORD + "!")
                assert (await owner.post("/dashboard/login", data=typo)).status_code == 401
            right = login_form(OWNER_EMAIL, PASSWORD)
            assert (await owner.post("/dashboard/login", data=right)).status_code == 303


async def test_a_password_step_sets_no_wait_for_the_code_that_follows(
    service_settings: Settings, sessions: async_sessionmaker[AsyncSession]
) -> None:
    """An owner with a second factor who mistyped the password (the free tries): the
    right password alone, then the code. The password step was counted, set the next
    wait on the owner's own address and was taken back, but the wait stayed: the code
    that followed was refused `429`."""
    link = await new_organization(sessions, OWNER_EMAIL)
    right = login_form(OWNER_EMAIL, PASSWORD)
    async with (
        served_over_http(create_app(service_settings)) as base,
        client_bound_to(base, OWNER) as owner,
    ):
        member = await join(owner, link)
        page = await owner.get("/dashboard/security", headers=member.read)
        found = re.search(r'id="totp-seed">([A-Z2-7]+)<', page.text)
        assert found
        seed = found.group(1)
        enrolled = await owner.post(
            "/dashboard/security",
            data={
                "csrf_token": member.csrf,
                "action": "enroll",
                "seed": seed,
                "code": pyotp.TOTP(seed).now(),
            },
            headers=member.read,
        )
        assert enrolled.status_code == 303, enrolled.text
        for _ in range(3):  # the free tries, all typos
            typo = login_form(OWNER_EMAIL, PASSWORD + "!")
            assert (await owner.post("/dashboard/login", data=typo)).status_code == 401
        asked = await owner.post("/dashboard/login", data=right)
        assert asked.status_code == 401
        assert 'id="totp"' in asked.text
        coded = await owner.post("/dashboard/login", data={**right, "totp": pyotp.TOTP(seed).now()})
        assert coded.status_code == 303, coded.text
