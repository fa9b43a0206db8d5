"""`POST /v1/intent` on its auto-complete path, beside a bare Temporal floor.

Starts the sandbox (`ramp dev`) on free ports in a temporary data dir, then, in one run:

- setup: a customer, an ACH -> USDC_ETHEREUM account pair, and one intent whose
  compliance steps are all verified through the sandbox endpoints. From then on every
  new intent for that customer and pair is created with its transaction before the
  response (the workflow's `open` update runs three local activities:
  select_and_check_requirements, provider_create_transfer, record_intent);
- service: `POST /v1/intent` (asserted 201 with a transaction), sequential latency
  (p50/p95/p99) after a warm-up, and throughput with N concurrent callers;
- service_with_webhooks, service_with_ten_webhooks: the same, with one then ten
  endpoints (a loopback receiver) subscribed to every event, until every event reached
  every endpoint; with one, the first attempts' times from the projection's commit to
  the receiver's 2xx during the throughput phase (bench/webhooks.py);
- the three service figures are measured in interleaved rounds (`--rounds`, 2 by
  default: no endpoint, one, ten, then ten, one, none: the service slows down as a run
  goes on, and the reversed order cancels that out) and each is pooled over its rounds
  (percentiles over all their sequential timings, mean throughput and CPU); each
  round's own p50 and throughput are printed beside it;
- floor: the same measures for a bare update-with-start of `FloorWorkflow` (defined
  here), whose update runs four local activities doing nothing (FLOOR_LOCAL_ACTIVITIES).
  Its worker runs in this process on its own task queue, against the sandbox's Temporal
  server, with the pydantic data converter and a sandbox that passes every module
  through: Temporal's own cost, without the re-import of workflow modules per run that
  the service's worker pays (docs/decisions.md, issue 30);
- http_floor: `GET /v1/no-such-path` on the same API (routing, error envelope, HTTP).

Each figure also gives the CPU time per request of the Temporal server, the service's
worker and API, and this process (the client; for the floor, its worker too), read from
/proc over the measured requests: on a small machine throughput is CPU-bound, and this
says whose CPU. Prints one JSON object with the figures, their ratios and the target.
Usage:

    .venv/bin/python -m bench.intents [--requests 200] [--throughput-requests 400]
        [--concurrency 20] [--warmup 20] [--rounds 2] [--strategy BEST_PRICE]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import json
import os
import platform
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from importlib import metadata
from pathlib import Path
from typing import Any

import httpx
import sqlalchemy
from sqlmodel import Session, select
from temporalio import activity, workflow
from temporalio.client import Client, WithStartWorkflowOperation
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from bench import webhooks
from bench.sandbox import SandboxProcess, descendants
from ramp.catalog import SANDBOX_PROVIDERS, route_requirements
from ramp.config import sync_database_url
from ramp.db.routing_tables import ProjectRouting
from ramp.db.tables import Project
from ramp.db.types import utcnow

FLOOR_TASK_QUEUE = "bench-floor"
# The floor as issue 30 defines its targets: four local activities, what
# IntentWorkflow.open ran on the auto-complete path until the two lookups became one
# (patch `lookup-one-activity`: three now). Kept at four so that ratios stay comparable
# across runs; fewer activities is one of the ways the issue names to close the gap.
FLOOR_LOCAL_ACTIVITIES = 4
TARGET = {
    "p50_ratio_max": 1.5,
    "throughput_ratio_min": 0.7,
    # Issue 16: the webhook figures beside the no-endpoint service of the same run.
    "webhooks": {
        "one_endpoint_throughput_vs_service_min": 0.85,
        "one_endpoint_p50_vs_service_max": 1.15,
        "ten_endpoints_throughput_vs_service_min": 0.6,
        "first_attempt_p50_ms_max": 50,
        "first_attempt_p99_ms_max": 500,
    },
}
# The route's own schema examples: an ACH account and an EVM address.
ROUTE = route_requirements("USD", "USDC_ETHEREUM", SANDBOX_PROVIDERS)

# One measured call; its argument is a sequence number, unique within the run.
Call = Callable[[int], Awaitable[None]]


# --- the floor workflow ------------------------------------------------------------


@activity.defn(name="bench_floor_step")
async def floor_step(value: str) -> str:
    """Does nothing: the floor measures Temporal's own cost of a local activity."""
    return value


@workflow.defn(name="BenchFloorWorkflow")
class FloorWorkflow:
    """IntentWorkflow's shape without its work: an `open` update, then a long wait."""

    @workflow.init
    def __init__(self, name: str) -> None:
        self._name = name
        self._opened = False

    @workflow.run
    async def run(self, name: str) -> str:
        await workflow.wait_condition(lambda: self._opened)
        # Like an intent waiting for its deposit: a timer, the workflow stays open.
        await workflow.sleep(timedelta(days=1))
        return name

    @workflow.update
    async def open(self) -> str:
        value = self._name
        for _ in range(FLOOR_LOCAL_ACTIVITIES):
            value = await workflow.execute_local_activity(
                floor_step, value, start_to_close_timeout=timedelta(seconds=10)
            )
        self._opened = True
        return value


def floor_worker(client: Client) -> Worker:
    return Worker(
        client,
        task_queue=FLOOR_TASK_QUEUE,
        workflows=[FloorWorkflow],
        activities=[floor_step],
        workflow_runner=SandboxedWorkflowRunner(
            restrictions=SandboxRestrictions.default.with_passthrough_all_modules()
        ),
    )


def floor_call(client: Client, run_id: str) -> Call:
    async def call(i: int) -> None:
        workflow_id = f"bench-floor-{run_id}-{i}"
        result = await client.execute_update_with_start_workflow(
            FloorWorkflow.open,
            start_workflow_operation=WithStartWorkflowOperation(
                FloorWorkflow.run,
                workflow_id,
                id=workflow_id,
                task_queue=FLOOR_TASK_QUEUE,
                id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
            ),
            id="open",
        )
        assert result == workflow_id, result

    return call


# --- measuring ---------------------------------------------------------------------


async def sequential(call: Call, count: int, first: int) -> list[float]:
    timings: list[float] = []
    for i in range(first, first + count):
        start = time.perf_counter()
        await call(i)
        timings.append((time.perf_counter() - start) * 1000)
    return timings


def percentiles(timings: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(timings, n=100, method="inclusive")
    return {
        "p50_ms": round(statistics.median(timings), 1),
        "p95_ms": round(cuts[94], 1),
        "p99_ms": round(cuts[98], 1),
    }


async def throughput(call: Call, count: int, callers: int, first: int) -> float:
    numbers = iter(range(first, first + count))

    async def caller() -> None:
        for i in numbers:
            await call(i)

    start = time.perf_counter()
    await asyncio.gather(*(caller() for _ in range(callers)))
    return round(count / (time.perf_counter() - start), 1)


@dataclass(frozen=True)
class Plan:
    requests: int
    throughput_requests: int
    concurrency: int
    warmup: int
    rounds: int
    postgres: str | None = None
    # RAMP_WEBHOOK_DISPATCH for `ramp dev`; None: its own choice for the database.
    webhook_dispatch: str | None = None
    # The demo project's routing strategy (issue 26): BEST_PRICE asks every eligible
    # provider's quote in select_provider, on POST /intent's path.
    strategy: str = "FIRST_ELIGIBLE"


# Processes whose CPU time is counted, by a marker in their command line.
ROLES = {
    "start-dev": "temporal_server",
    "devstack worker": "ramp_worker",
    "devstack dispatcher": "ramp_dispatcher",
    "devstack api": "ramp_api",
    "webhooks.sender_process": "ramp_webhook_sender",
}
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def processes(sandbox: SandboxProcess) -> dict[str, int]:
    """The sandbox's server, worker, dispatcher and API, and this process (client; floor worker)."""
    found = {"bench_process": os.getpid()}
    for pid in descendants(sandbox.process.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except FileNotFoundError:
            continue
        found.update({role: pid for marker, role in ROLES.items() if marker in command})
    return found


def cpu_seconds(pid: int) -> float:
    """User and system time of a process, all its threads included."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
    except FileNotFoundError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


async def measure(call: Call, plan: Plan, pids: dict[str, int]) -> dict[str, Any]:
    """Warm-up, sequential latency, then throughput; CPU per request of each process.
    The sequential timings stay raw (`latencies_ms`) until `pooled` sums rounds up."""
    await sequential(call, plan.warmup, 0)
    before = {role: cpu_seconds(pid) for role, pid in pids.items()}
    figures: dict[str, Any] = {"latencies_ms": await sequential(call, plan.requests, 1_000_000)}
    started = time.time()
    figures["throughput_rps"] = await throughput(
        call, plan.throughput_requests, plan.concurrency, 2_000_000
    )
    figures["throughput_window"] = [started, time.time()]
    count = plan.requests + plan.throughput_requests
    figures["cpu_ms_per_request"] = {
        role: round((cpu_seconds(pid) - before[role]) * 1000 / count, 1)
        for role, pid in pids.items()
    }
    return figures


def pooled(rounds: list[dict[str, Any]]) -> dict[str, Any]:
    """One figure from the rounds of a measure: percentiles over every round's
    sequential timings, the mean throughput and CPU, and each round's own p50 and
    throughput beside them (how much the machine moved between rounds)."""
    figures: dict[str, Any] = percentiles([t for r in rounds for t in r["latencies_ms"]])
    figures["throughput_rps"] = round(statistics.mean(r["throughput_rps"] for r in rounds), 1)
    roles = {role for r in rounds for role in r["cpu_ms_per_request"]}
    figures["cpu_ms_per_request"] = {
        role: round(statistics.mean(r["cpu_ms_per_request"].get(role, 0.0) for r in rounds), 1)
        for role in sorted(roles)
    }
    extra = {key: value for key, value in rounds[-1].items() if key.startswith("webhooks_")}
    if "first_attempt" in rounds[0]:
        figures["first_attempt_ms"] = webhooks.first_attempt_figures(
            [r["first_attempt"] for r in rounds]
        )
    for key in extra:
        figures[key] = sum(r[key] for r in rounds)
    figures["rounds"] = [
        {
            "p50_ms": round(statistics.median(r["latencies_ms"]), 1),
            "throughput_rps": r["throughput_rps"],
        }
        for r in rounds
    ]
    return figures


# --- the service -------------------------------------------------------------------


def basic(client_id: str, client_secret: str) -> dict[str, str]:
    raw = f"{client_id}:{client_secret}".encode()
    return {"Authorization": "Basic " + base64.b64encode(raw).decode()}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def expect(response: httpx.Response, status: int) -> dict[str, Any]:
    assert response.status_code == status, (response.status_code, response.text)
    body: dict[str, Any] = response.json()
    return body


@dataclass(frozen=True)
class Payer:
    """A customer whose onboarding is done, with its account pair."""

    token: str
    source_id: str
    destination_id: str

    def intent_body(self) -> dict[str, str]:
        return {
            "srcExternalAccountId": self.source_id,
            "destExternalAccountId": self.destination_id,
            "amount": "100.00",
        }


async def register_payer(http: httpx.AsyncClient, project: dict[str, str]) -> Payer:
    customer = expect(
        await http.post("/v1/customers", json={"id": f"bench-{uuid.uuid4()}"}, headers=project),
        201,
    )
    token = customer["access_token"]
    accounts = expect(
        await http.post(
            "/v1/customers/external-accounts",
            json={
                "src": "USD",
                "dest": "USDC_ETHEREUM",
                "source": ROUTE.source["examples"][0],
                "destination": ROUTE.destination["examples"][0],
            },
            headers=bearer(token),
        ),
        201,
    )
    return Payer(token, accounts["source"]["id"], accounts["destination"]["id"])


def step_status(envelope: dict[str, Any], code: str) -> str:
    steps = envelope["intent"]["compliancePlan"]["steps"]
    return str(next(step["status"] for step in steps if step["code"] == code))


async def wait_for_step(
    http: httpx.AsyncClient, payer: Payer, intent_id: str, code: str
) -> dict[str, Any]:
    """Polls the intent (step outcomes are signals) until `code` is COMPLETED."""
    async with asyncio.timeout(15):
        while True:
            envelope = expect(
                await http.get(f"/v1/intent/{intent_id}", headers=bearer(payer.token)), 200
            )
            if step_status(envelope, code) == "COMPLETED":
                return envelope
            await asyncio.sleep(0.02)


async def onboard(http: httpx.AsyncClient, project: dict[str, str], payer: Payer) -> int:
    """Verifies every step of a first intent; returns how many steps there were."""
    envelope = expect(
        await http.post("/v1/intent", json=payer.intent_body(), headers=bearer(payer.token)), 201
    )
    intent_id = envelope["intent"]["id"]
    verified = 0
    while (code := envelope["intent"]["compliancePlan"]["currentStepCode"]) is not None:
        expect(
            await http.post(
                f"/v1/sandbox/intents/{intent_id}/compliance-steps/{code}",
                json={"outcome": "VERIFIED"},
                headers=project,
            ),
            202,
        )
        envelope = await wait_for_step(http, payer, intent_id, code)
        verified += 1
    return verified


def service_call(http: httpx.AsyncClient, payer: Payer) -> Call:
    headers = bearer(payer.token)
    body = payer.intent_body()

    async def call(_: int) -> None:
        response = await http.post("/v1/intent", json=body, headers=headers)
        assert expect(response, 201)["transaction"] is not None, response.text

    return call


def http_floor_call(http: httpx.AsyncClient) -> Call:
    async def call(_: int) -> None:
        response = await http.get("/v1/no-such-path")
        assert response.status_code == 404, response.text

    return call


# --- the run -----------------------------------------------------------------------


@asynccontextmanager
async def api_client(api: str, callers: int) -> AsyncIterator[httpx.AsyncClient]:
    limits = httpx.Limits(max_connections=callers, max_keepalive_connections=callers)
    async with httpx.AsyncClient(base_url=api, limits=limits, timeout=30) as http:
        yield http


async def measure_floor(temporal_address: str, plan: Plan, pids: dict[str, int]) -> dict[str, Any]:
    client = await Client.connect(temporal_address, data_converter=pydantic_data_converter)
    async with floor_worker(client):
        return pooled([await measure(floor_call(client, uuid.uuid4().hex[:8]), plan, pids)])


def route_by(database_url: str, client_id: str, strategy: str) -> None:
    """Sets the demo project's routing strategy, as the admin API would."""
    engine = sqlalchemy.create_engine(sync_database_url(database_url))
    try:
        with Session(engine) as session:
            project = session.exec(select(Project).where(Project.client_id == client_id)).one()
            session.add(
                ProjectRouting(project_id=project.id, strategy=strategy, updated_at=utcnow())
            )
            session.commit()
    finally:
        engine.dispose()


async def run(sandbox: SandboxProcess, plan: Plan, database_url: str) -> dict[str, Any]:
    client_id, secret = sandbox.credentials()
    project = basic(client_id, secret)
    if plan.strategy != "FIRST_ELIGIBLE":
        route_by(database_url, client_id, plan.strategy)
    pids = processes(sandbox)
    async with api_client(sandbox.api, plan.concurrency) as http:
        payer = await register_payer(http, project)
        steps = await onboard(http, project, payer)
        http_floor = pooled([await measure(http_floor_call(http), plan, pids)])
        intents = plan.warmup + plan.requests + plan.throughput_requests
        # Interleaved rounds, every other one in reverse order (no endpoint, one, ten;
        # ten, one, none; ...): the service slows down as a run goes on (its databases
        # grow; a shared VM's stolen time drifts), and in a fixed order the measures
        # taken later would always pay for it. Each figure is pooled over its rounds.
        rounds: dict[int, list[dict[str, Any]]] = {0: [], 1: [], 10: []}
        for number in range(plan.rounds):
            for endpoints in (0, 1, 10) if number % 2 == 0 else (10, 1, 0):
                # Its child processes (the worker's webhook sender) as they are now.
                pids = processes(sandbox)
                if endpoints == 0:
                    rounds[0].append(await measure(service_call(http, payer), plan, pids))
                    continue
                rounds[endpoints].append(
                    await webhooks.measure_with_endpoints(
                        http, project, measure_service(http, payer, plan, pids), intents, endpoints
                    )
                )
        service, with_webhooks, with_ten = (pooled(rounds[n]) for n in (0, 1, 10))
    floor = await measure_floor(sandbox.temporal_address, plan, pids)
    return {
        "service": {"request": "POST /v1/intent (auto-complete)", **service},
        "service_with_webhooks": {
            "request": "POST /v1/intent (auto-complete), one endpoint subscribed to all events",
            **with_webhooks,
            **versus(with_webhooks, service),
        },
        "service_with_ten_webhooks": {
            "request": "POST /v1/intent (auto-complete), ten endpoints subscribed to all events",
            **with_ten,
            **versus(with_ten, service),
        },
        "floor": {
            "request": f"update-with-start, {FLOOR_LOCAL_ACTIVITIES} no-op local activities",
            **floor,
        },
        "http_floor": {"request": "GET /v1/no-such-path", **http_floor},
        "ratios": {
            "p50": round(service["p50_ms"] / floor["p50_ms"], 2),
            "throughput": round(service["throughput_rps"] / floor["throughput_rps"], 2),
        },
        "onboarding_steps_verified": steps,
    }


def measure_service(
    http: httpx.AsyncClient, payer: Payer, plan: Plan, pids: dict[str, int]
) -> webhooks.Measure:
    """`measure` of the service, with the receiver's process counted too."""

    async def measured(receiver: dict[str, int]) -> dict[str, Any]:
        return await measure(service_call(http, payer), plan, pids | receiver)

    return measured


def versus(figures: dict[str, Any], service: dict[str, Any]) -> dict[str, float]:
    return {
        "p50_vs_service": round(figures["p50_ms"] / service["p50_ms"], 2),
        "throughput_vs_service": round(figures["throughput_rps"] / service["throughput_rps"], 2),
    }


def environment(database: str, load_before: tuple[float, float, float]) -> dict[str, Any]:
    return {
        "cpu_count": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "database": database,
        "temporal": "ramp dev's dev server (throttle lifted, SQLite WAL)",
        "temporalio": metadata.version("temporalio"),
        "python": platform.python_version(),
    }


def parse_plan() -> Plan:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200, help="sequential, per figure")
    parser.add_argument("--throughput-requests", type=int, default=400)
    parser.add_argument("--concurrency", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=20)
    parser.add_argument(
        "--rounds",
        type=int,
        default=2,
        help="interleaved rounds of the service figures (no endpoint, one, ten)",
    )
    parser.add_argument(
        "--postgres",
        metavar="URL",
        default=None,
        help="keep the service's data in a throwaway schema of this PostgreSQL database "
        "instead of SQLite (e.g. postgresql://127.0.0.1:5432/test)",
    )
    parser.add_argument(
        "--strategy",
        choices=["FIRST_ELIGIBLE", "BEST_PRICE"],
        default="FIRST_ELIGIBLE",
        help="the demo project's routing strategy (set in its database before measuring)",
    )
    parser.add_argument(
        "--webhook-dispatch",
        choices=["worker", "separate"],
        default=None,
        help="where webhooks are sent from (RAMP_WEBHOOK_DISPATCH); by default `ramp dev` "
        "chooses: the worker on SQLite, a dispatcher process on PostgreSQL",
    )
    args = parser.parse_args()
    return Plan(
        args.requests,
        args.throughput_requests,
        args.concurrency,
        args.warmup,
        args.rounds,
        args.postgres,
        args.webhook_dispatch,
        args.strategy,
    )


@contextlib.contextmanager
def database(postgres: str | None) -> Iterator[str | None]:
    """None (SQLite in the sandbox's data dir), or a fresh PostgreSQL schema's URL."""
    if postgres is None:
        yield None
        return
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    admin = sqlalchemy.create_engine(sync_database_url(postgres))
    with admin.begin() as connection:
        connection.execute(sqlalchemy.text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in postgres else "?"
    try:
        yield f"{postgres}{separator}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as connection:
            connection.execute(sqlalchemy.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def main() -> None:
    plan = parse_plan()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as data_dir, database(plan.postgres) as database_url:
        dispatch = {"RAMP_WEBHOOK_DISPATCH": plan.webhook_dispatch} if plan.webhook_dispatch else {}
        sandbox = SandboxProcess(Path(data_dir), database_url, env=dispatch)
        try:
            stored = database_url or f"sqlite:///{Path(data_dir) / 'ramp.db'}"
            results = asyncio.run(run(sandbox, plan, stored))
        finally:
            sandbox.interrupt()
    report = {
        "benchmark": "intents",
        **results,
        "target": TARGET,
        "plan": {
            "sequential_requests": plan.requests,
            "warmup": plan.warmup,
            "throughput_requests": plan.throughput_requests,
            "concurrency": plan.concurrency,
            "rounds": plan.rounds,
            "strategy": plan.strategy,
            # As observed: a dispatcher process ran, or the worker sent them.
            "webhook_dispatch": "separate"
            if "ramp_dispatcher" in results["service"]["cpu_ms_per_request"]
            else "worker",
        },
        "environment": environment(
            "PostgreSQL (throwaway schema)" if plan.postgres else "SQLite (data dir, WAL)",
            load_before,
        ),
    }
    print(json.dumps(report, indent=2))
    sys.stdout.flush()
    # The Temporal SDK's native threads can abort interpreter finalisation (exit 134,
    # sdk-python issue 300): everything is stopped and printed, so leave now.
    os._exit(0)


if __name__ == "__main__":
    # Run the importable copy of this module: the workflow sandbox re-imports a
    # workflow's module by name, which `__main__` does not have.
    from bench import intents

    intents.main()
