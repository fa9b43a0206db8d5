"""A deployment as processes (`ramp api`, `ramp worker`, `ramp dispatcher`, several of
each), a client that spreads requests over the APIs as a load balancer would, and a
burst of keyed intents retried until each is answered.

Used by tests/test_scale_out.py (processes killed mid-burst; the database stopped and
started again).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import socket
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
from temporalio.client import Client

from ramp.config import Settings
from tests.helpers.payments import ACH, wallet
from tests.helpers.polling import pauses
from tests.helpers.processes import (
    WORKER_START_TIMEOUT,
    DispatcherProcesses,
    ServiceProcesses,
    WorkerProcesses,
    worker_environment,
)
from tests.helpers.projects import ProjectCredentials, bearer
from tests.helpers.webhook_bursts import RETRY_FOR_SECONDS

# Six processes starting at once on a busy 2-core machine: each imports for seconds.
START_TIMEOUT = 4 * WORKER_START_TIMEOUT
RAMP = [sys.executable, "-m", "devstack"]  # `ramp ...`, as the console script runs it
REDIS_URL = "redis://127.0.0.1:6379/0"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class ApiProcesses(ServiceProcesses):
    """`ramp api` processes on free ports of loopback, started once /healthz answers 200
    (its database and Temporal reachable)."""

    name = "api"

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        super().__init__([*RAMP, "api", "--host", "127.0.0.1"], env, logs)
        self._url_by_log: dict[Path, str] = {}

    @property
    def urls(self) -> list[str]:
        """Each started process's base URL, in the order of `started`."""
        return [self._url_by_log[log] for _, log in self.started]

    @property
    def running_urls(self) -> list[str]:
        """The base URLs of the processes not (yet) seen to exit."""
        return [
            self._url_by_log[log] for process, log in self.started if process.returncode is None
        ]

    def _command_for(self, log: Path) -> list[str]:
        port = free_port()
        self._url_by_log[log] = f"http://127.0.0.1:{port}"
        return [*self.command, "--port", str(port)]

    async def _until_ready(self, process: asyncio.subprocess.Process, log: Path) -> None:
        url = self._url_by_log[log]
        waits = pauses(first=0.05)
        async with httpx.AsyncClient(base_url=url, timeout=5) as http:
            try:
                async with asyncio.timeout(self.start_timeout):
                    while process.returncode is None:
                        with contextlib.suppress(httpx.TransportError):
                            if (await http.get("/healthz")).status_code == 200:
                                return
                        await asyncio.sleep(next(waits))
            except TimeoutError:
                pass
        raise AssertionError(
            f"api {process.pid} is not answering (exit status {process.returncode}):\n"
            + self.output()
        )


@dataclass
class Deployment:
    """The service's three kinds of process, as a deployment runs them: several APIs
    behind a balancer, workers, and webhook dispatchers (RAMP_WEBHOOK_DISPATCH=separate),
    sharing one database, one Temporal server and one Redis for the rate limits."""

    apis: ApiProcesses
    workers: WorkerProcesses
    dispatchers: DispatcherProcesses

    @property
    def kinds(self) -> tuple[ServiceProcesses, ...]:
        return (self.apis, self.workers, self.dispatchers)

    async def start(self, each: int) -> None:
        """`each` processes of every kind, all starting at once."""
        await asyncio.gather(*(kind.start() for kind in self.kinds for _ in range(each)))

    def output(self) -> str:
        return "\n".join(kind.output() for kind in self.kinds)


@contextlib.asynccontextmanager
async def deployment(
    settings: Settings, client: Client, logs: Path, **extra: str
) -> AsyncIterator[Deployment]:
    """Processes of `settings` (none started yet), all killed on leaving, their logs
    printed (pytest shows them when the test fails)."""
    env = worker_environment(
        settings,
        RAMP_WEBHOOK_DISPATCH="separate",
        RAMP_WEBHOOK_TIMEOUT="2",
        # Retries come fast here (the service's schedule: tests/test_webhook_schedule.py).
        RAMP_WEBHOOK_RETRY_DELAYS="0.5,1,1,2,2",
        RAMP_RATE_LIMIT_REDIS_URL=REDIS_URL,
        **extra,
    )
    async with (
        ApiProcesses(env, logs) as apis,
        WorkerProcesses(client, env, logs, command=[*RAMP, "worker"]) as workers,
        DispatcherProcesses(env, logs) as dispatchers,
    ):
        for kind in (apis, workers, dispatchers):
            kind.start_timeout = START_TIMEOUT
        yield Deployment(apis, workers, dispatchers)


@dataclass
class Balancer:
    """Requests spread over the APIs in turn; one that meets a dropped connection or a
    503 is made again, on the next API, after the Retry-After (as a client of a load
    balancer would). Counts what the retries met. `within` bounds one request's retries
    against a hang, not a speed: on a loaded 2-core machine the survivors of a kill took
    over a minute to answer again (as in the webhook bursts, RETRY_FOR_SECONDS)."""

    clients: list[httpx.AsyncClient]
    within: float = RETRY_FOR_SECONDS
    dropped: int = 0
    unavailable: int = 0
    retry_afters: set[str] = field(default_factory=set)
    _turn: itertools.count[int] = field(default_factory=itertools.count)

    async def request(
        self,
        method: str,
        path: str,
        *,
        ok: tuple[int, ...],
        retry_on: tuple[int, ...] = (),
        **kwargs: Any,
    ) -> httpx.Response:
        async with asyncio.timeout(self.within):
            while True:
                http = self.clients[next(self._turn) % len(self.clients)]
                try:
                    response = await http.request(method, path, **kwargs)
                except httpx.TransportError:
                    self.dropped += 1
                    await asyncio.sleep(0.1)
                    continue
                if response.status_code in ok:
                    return response
                if response.status_code in retry_on:
                    await asyncio.sleep(0.1)
                    continue
                assert response.status_code == 503, response.text
                assert response.json()["code"] == "TEMPORARILY_UNAVAILABLE", response.text
                self.unavailable += 1
                self.retry_afters.add(response.headers["retry-after"])
                await asyncio.sleep(float(response.headers["retry-after"]))


@contextlib.asynccontextmanager
async def balanced(urls: list[str], callers: int) -> AsyncIterator[Balancer]:
    limits = httpx.Limits(max_connections=callers, max_keepalive_connections=callers)
    async with contextlib.AsyncExitStack() as stack:
        clients = [
            await stack.enter_async_context(
                httpx.AsyncClient(base_url=url, limits=limits, timeout=30)
            )
            for url in urls
        ]
        yield Balancer(clients)


@dataclass(frozen=True)
class Payer:
    """A customer whose onboarding is done: its intents take the auto-complete path
    (the transaction in the create's answer)."""

    token: str
    body: dict[str, str]


async def onboarded_payer(lb: Balancer, project: ProjectCredentials, name: str) -> Payer:
    created = await lb.request(
        "POST", "/v1/customers", json={"id": name}, headers=project.basic, ok=(201,)
    )
    token = created.json()["access_token"]
    pair = await lb.request(
        "POST",
        "/v1/customers/external-accounts",
        json={
            "src": "USD",
            "dest": "USDC_ETHEREUM",
            "source": ACH,
            "destination": wallet("USDC_ETHEREUM"),
        },
        headers=bearer(token),
        ok=(201,),
    )
    body = {
        "srcExternalAccountId": pair.json()["source"]["id"],
        "destExternalAccountId": pair.json()["destination"]["id"],
        "amount": "100.00",
    }
    first = await lb.request(
        "POST",
        "/v1/intent",
        json=body,
        headers={**bearer(token), "Idempotency-Key": f"{name}-onboarding"},
        ok=(201,),
    )
    intent_id = first.json()["intent"]["id"]
    step = first.json()["intent"]["compliancePlan"]["currentStepCode"]
    while step is not None:
        # 409 STEP_NOT_CURRENT: the previous outcome is not applied yet.
        await lb.request(
            "POST",
            f"/v1/sandbox/intents/{intent_id}/compliance-steps/{step}",
            json={"outcome": "VERIFIED"},
            headers=project.basic,
            ok=(202,),
            retry_on=(409,),
        )
        waits = pauses()  # tests/helpers/polling.py
        async with asyncio.timeout(lb.within):
            while True:
                envelope = await lb.request(
                    "GET", f"/v1/intent/{intent_id}", headers=bearer(token), ok=(200,)
                )
                current = envelope.json()["intent"]["compliancePlan"]["currentStepCode"]
                if current != step:
                    step = current
                    break
                await asyncio.sleep(next(waits))
    assert (await execute(lb, token, intent_id))["transaction"] is not None
    return Payer(token, body)


async def execute(lb: Balancer, token: str, intent_id: str) -> dict[str, Any]:
    """`POST /v1/intent/{id}/transaction` until it answers 201 (after a 502 nothing was
    created and the call may be repeated, docs/decisions.md): the envelope."""
    executed = await lb.request(
        "POST",
        f"/v1/intent/{intent_id}/transaction",
        headers=bearer(token),
        ok=(201,),
        retry_on=(502,),
    )
    body: dict[str, Any] = executed.json()
    return body


async def keyed_burst(
    lb: Balancer,
    payer: Payer,
    keys: list[str],
    callers: int,
    answered: Callable[[int], Awaitable[None]] | None = None,
) -> dict[str, dict[str, Any]]:
    """`POST /v1/intent` once per key, `callers` at a time, each retried with its key
    until it answers 201; `answered(n)` is awaited after the n-th answer."""
    pending = iter(keys)
    answers: dict[str, dict[str, Any]] = {}

    async def caller() -> None:
        for key in pending:
            response = await lb.request(
                "POST",
                "/v1/intent",
                json=payer.body,
                headers={**bearer(payer.token), "Idempotency-Key": key},
                ok=(201,),
            )
            answers[key] = response.json()
            if answered is not None:
                await answered(len(answers))

    await asyncio.gather(*(caller() for _ in range(callers)))
    return answers


async def settle(lb: Balancer, project: ProjectCredentials, transaction_id: str) -> None:
    """The provider reports the deposit, then the payout settled: the intent is
    COMPLETED. Each event is applied moments after its 202; until the deposit is, the
    settlement is refused (409 INVALID_TRANSITION) and sent again."""
    for event in ("DEPOSIT_RECEIVED", "SETTLED"):
        await lb.request(
            "POST",
            f"/v1/sandbox/transactions/{transaction_id}/events",
            json={"type": event},
            headers=project.basic,
            ok=(202,),
            retry_on=(409,),
        )
