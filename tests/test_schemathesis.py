"""Property-based conformance of the whole API to its OpenAPI document (schemathesis).

Every operation of `GET /v1/openapi.json` is exercised in-process (ASGI, the app served
through its lifespan, the session's Temporal and worker, the real database) with
generated requests, a fixed seed and real credentials of a project, a customer and an
onboarding link. Each answer must be no 5xx, a documented status, the documented
content type, headers and schema. Generation runs in a thread of its own; requests go
through the test's client on its event loop.

The run is bounded by its examples, not by the clock: MAX_EXAMPLES per operation, each
request by what the service itself may wait for (REQUEST_BOUND), so a busy machine makes
it slower, never red. No request outlives the test: however the test ends (done, failed
or cancelled) the thread stops and is waited for, before the fixtures close the app and
its database connections (a thread left running after a pytest timeout went on sending
requests, and the next test failed on an unclosed psycopg connection).
"""

from __future__ import annotations

import asyncio
import os
import threading
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, reject, seed, settings
from schemathesis import Case
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.intents.service import WRITE_TIMEOUT
from ramp.intents.waits import CANCEL_TIMEOUT, EXECUTE_TIMEOUT
from ramp.onboarding.service import SUBMIT_TIMEOUT
from tests.helpers.dashboard import owner_api_key
from tests.helpers.onboarding import onboarding_token
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials

pytestmark = pytest.mark.usefixtures("worker")

# Per operation and per pass; with a fixed seed every run of a pass sends the same
# requests. The two passes draw from different seeds: 30 requests per operation between
# them, as each pass sent before (where they cost 20 to 30 s of CPU per pass).
MAX_EXAMPLES = 15
SEED = 1 if os.environ.get("RAMP_TEST_DATABASE_URL") else 0
# The longest the service waits on Temporal before it answers 503, twice over for a
# loaded machine: a request without an answer by then is a hang.
REQUEST_BOUND = 2 * max(
    WRITE_TIMEOUT, SUBMIT_TIMEOUT, EXECUTE_TIMEOUT, CANCEL_TIMEOUT, key=timedelta.total_seconds
)
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


# Bounded by examples and REQUEST_BOUND (above), not by pytest's wall-clock timeout, whose
# exception would land in whatever runs on the event loop at that moment.
@pytest.mark.timeout(0)
async def test_every_operation_answers_as_documented(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    opened = await create_intent(client, token, accounts)
    assert opened.status_code == 201, opened.text
    document = (await client.get("/v1/openapi.json")).json()
    credentials = {
        "basicAuth": project.basic["Authorization"],
        "bearerAuth": f"Bearer {token}",
        "onboardingToken": f"Bearer {onboarding_token(opened.json())}",
        # The admin API (issue 15), as an owner of the project's organization.
        "organizationApiKey": f"Bearer {await owner_api_key(sessions, project)}",
    }
    failures = await explore(document, credentials, client)
    assert failures == [], "\n\n".join(failures)


async def test_a_cancelled_exploration_leaves_no_request_behind(
    client: httpx.AsyncClient, project: ProjectCredentials
) -> None:
    """What a timeout or Ctrl-C does to the test above: once the cancellation is
    through, its thread has stopped and no request of it is on its way."""
    document = (await client.get("/v1/openapi.json")).json()
    credentials = dict.fromkeys(
        ("basicAuth", "bearerAuth", "onboardingToken", "organizationApiKey"),
        project.basic["Authorization"],
    )
    counting = _CountingClient(client)
    exploring = asyncio.create_task(explore(document, credentials, counting))  # type: ignore[arg-type]
    async with asyncio.timeout(REQUEST_BOUND.total_seconds()):
        while counting.sent < 5:  # noqa: ASYNC110  (requests of another thread)
            await asyncio.sleep(0.01)
    exploring.cancel()
    with pytest.raises(asyncio.CancelledError):
        await exploring
    assert _EXPLORING.count == 0, "the exploring thread outlived the test"
    assert counting.in_flight == 0


class _CountingClient:
    """The test's client, counting the requests sent through it and those unanswered."""

    def __init__(self, client: httpx.AsyncClient) -> None:
        self._client = client
        self.sent = 0
        self.in_flight = 0

    async def request(self, *args: Any, **kwargs: Any) -> httpx.Response:
        self.sent += 1
        self.in_flight += 1
        try:
            return await self._client.request(*args, **kwargs)
        finally:
            self.in_flight -= 1


class _Running:
    """How many exploring threads are running (thread-safe)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.count = 0

    def add(self, step: int) -> None:
        with self._lock:
            self.count += step


_EXPLORING = _Running()


class _Stopped(BaseException):
    """Raised in the exploring thread once the test has ended: not a failure of the API,
    and (a BaseException) not caught by Hypothesis."""


async def explore(
    document: dict[str, Any], credentials: dict[str, str], client: httpx.AsyncClient
) -> list[str]:
    """Every operation's failures, found by a thread of its own; returns (or raises)
    only once that thread has stopped."""
    loop = asyncio.get_running_loop()
    stop = threading.Event()
    exploring = asyncio.ensure_future(
        asyncio.to_thread(_explore, document, credentials, client, loop, stop)
    )
    try:
        return await asyncio.shield(exploring)
    finally:
        stop.set()  # its next request raises _Stopped; the one on its way is answered
        await asyncio.wait({exploring})
        if not exploring.cancelled():
            exploring.exception()  # retrieved: a _Stopped after a cancellation


def _explore(
    document: dict[str, Any],
    credentials: dict[str, str],
    client: httpx.AsyncClient,
    loop: asyncio.AbstractEventLoop,
    stop: threading.Event,
) -> list[str]:
    _EXPLORING.add(1)
    try:
        schema = schemathesis.openapi.from_dict(document)
        failures: list[str] = []
        operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
        assert len(operations) == sum(len(methods) for methods in document["paths"].values())
        for operation in operations:
            raw = document["paths"][operation.path][operation.method.lower()]
            schemes = [name for requirement in raw.get("security", []) for name in requirement]
            authorization = credentials[schemes[0]] if schemes else None

            try:
                _conforms(operation, authorization, client, loop, stop)
            except (KeyboardInterrupt, SystemExit, _Stopped):
                raise
            except BaseException as failure:  # its first failure (a group), for the report
                failures.append(f"{operation.label}: {_summary(failure)}")
        return failures
    finally:
        _EXPLORING.add(-1)


def _conforms(
    operation: Any,
    authorization: str | None,
    client: httpx.AsyncClient,
    loop: asyncio.AbstractEventLoop,
    stop: threading.Event,
) -> None:
    """Runs the operation's generated requests; raises its first failure."""

    @settings(
        max_examples=MAX_EXAMPLES,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: report the first
        suppress_health_check=list(HealthCheck),
    )
    @seed(SEED)
    @given(case=operation.as_strategy())
    def conforms(case: Case[Any]) -> None:
        response = _send(case, authorization, client, loop, stop)
        case.validate_response(response, checks=CHECKS)

    conforms()


def _send(
    case: Case[Any],
    authorization: str | None,
    client: httpx.AsyncClient,
    loop: asyncio.AbstractEventLoop,
    stop: threading.Event,
) -> httpx.Response:
    if stop.is_set():
        raise _Stopped
    kwargs = case.as_transport_kwargs(base_url="http://testserver/v1")
    headers = {k: v for k, v in (kwargs.get("headers") or {}).items() if k != "Authorization"}
    if authorization is not None:
        headers["Authorization"] = authorization
    url = urlsplit(kwargs["url"])
    body: dict[str, Any] = {}
    if "json" in kwargs:
        body["json"] = kwargs["json"]
    elif kwargs.get("data") is not None:
        body["content"] = kwargs["data"]
    request = client.request(
        kwargs["method"],
        url.path + (f"?{url.query}" if url.query else ""),
        params=kwargs.get("params") or None,
        headers=headers,
        **body,
    )
    answer = asyncio.run_coroutine_threadsafe(request, loop)
    try:
        return answer.result(timeout=REQUEST_BOUND.total_seconds())
    except (httpx.LocalProtocolError, UnicodeEncodeError):
        reject()  # not sendable over HTTP at all (a header no client could send)
        raise
    except TimeoutError:
        answer.cancel()  # not left running on the loop
        raise AssertionError(f"no answer within {REQUEST_BOUND}") from None


def _summary(failure: BaseException) -> str:
    """The failure's own lines, without the traceback."""
    lines = [line for line in str(failure).splitlines() if line.strip()]
    return "\n    ".join(lines[:12])
