"""Scale-out on PostgreSQL, as a deployment runs it: one Temporal server, two `ramp api`,
two `ramp worker` and two `ramp dispatcher` processes on one database, the rate limits
in the Redis at 127.0.0.1:6379. The database is a PostgreSQL of the module's own, which
the second test stops and starts again; the processes are started once for the module.

A burst of keyed intents with webhooks is spread over both APIs; a quarter of the way
in, with a webhook POST being answered, one process of each kind is SIGKILLed. What
failed (a dropped connection, a 503) is made again with its key on the other API. Then
every key has exactly one intent (the same when the key is sent again), each PROCESSING
with its transaction; one in ten is settled to COMPLETED (the provider reports the
deposit, then the settlement) through whichever worker now runs it; every event stored
reaches the receiver at least once, as the delivery log says, and no event is POSTed
twice at once. Both APIs count one rate-limit budget.

Then the database going away: the PostgreSQL stopped for ten seconds in the middle of a
burst and started again, under the processes still running (see its test).

This replaces the PostgreSQL-only kills of `ramp dev`'s dispatcher
(tests/test_ramp_dev_faults.py) and of one of two dispatcher processes
(tests/test_webhook_dispatcher_process.py): the same kill, among the others here.
"""

from __future__ import annotations

import asyncio
import signal
import time
import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlmodel import col, func, select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client

from ramp.config import Settings
from ramp.db.engine import create_engine
from ramp.db.migrate import upgrade
from ramp.db.tables import IntentRow
from tests.helpers.own_postgres import OwnPostgres, own_postgres
from tests.helpers.projects import ProjectCredentials, make_project
from tests.helpers.scale_out import (
    Balancer,
    Deployment,
    balanced,
    deployment,
    execute,
    keyed_burst,
    onboarded_payer,
    settle,
)
from tests.helpers.servers import derive_settings
from tests.helpers.webhook_api import add_endpoint
from tests.helpers.webhook_bursts import RETRY_FOR_SECONDS, assert_everything_delivered
from tests.helpers.webhook_receiver import Received, receiving

pytestmark = [pytest.mark.postgresql_only]

# 60 intents from 20 callers, the kill once 15 are answered and a webhook POST is being
# answered (or, on a machine too loaded for deliveries to keep up, at the latest once
# KILL_BY are): 20 creates in flight on both APIs and at least 15 still to come,
# intents' workflows and deliveries on the processes killed and on those surviving. A burst of
# 200 proved nothing more and cost about 20 s of CPU more (docs/performance.md, the test
# suite's round four).
INTENTS = 60
CALLERS = 20
KILL_AT = INTENTS // 4  # creates answered, at least, before one of each kind is killed
KILL_BY = KILL_AT + CALLERS // 4  # ... and at the most
PUBLIC_LIMIT = 4
SETTLED_ONE_IN = 10


class Steps:
    """Prints how long each step took (pytest shows it when the test fails or with -s)."""

    def __init__(self) -> None:
        self.last = time.monotonic()

    def __call__(self, what: str) -> None:
        now = time.monotonic()
        print(f"[{now - self.last:6.1f} s] {what}")
        self.last = now


def unique_prefix() -> str:
    """Rate-limit counters of this module's own in the shared Redis."""
    return f"ramp-scale-{uuid.uuid4().hex[:8]}:"


@pytest.fixture(scope="module")
def postgres() -> Iterator[OwnPostgres]:
    with own_postgres() as server:
        yield server


@pytest.fixture(scope="module")
def outage_settings(own_settings: Settings, postgres: OwnPostgres) -> Settings:
    settings = derive_settings(
        own_settings,
        DATABASE_URL=postgres.url,
        RAMP_TASK_QUEUE=f"{own_settings.task_queue}-scale",
    )
    upgrade(settings)
    return settings


@pytest.fixture(scope="module")
async def engine(outage_settings: Settings) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(outage_settings)
    yield engine
    await engine.dispose()


@pytest.fixture
async def own_db(engine: AsyncEngine) -> AsyncIterator[AsyncSession]:
    async with AsyncSession(engine, expire_on_commit=False) as session:
        yield session


@pytest.fixture(scope="module")
async def running(
    outage_settings: Settings, own_client: Client, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[Deployment]:
    """Two processes of each kind, started once: the kill test kills one of each, the
    outage test runs on those left (one of each; two when it runs alone)."""
    limits = {
        "RAMP_RATE_LIMIT_PREFIX": unique_prefix(),
        "RAMP_RATE_LIMIT_PUBLIC": f"{PUBLIC_LIMIT}/60",
        # The bursts' retries (409 until an event is applied) are many small requests.
        "RAMP_RATE_LIMIT_PROJECT": "100000/60",
    }
    logs = tmp_path_factory.mktemp("scale-out")
    async with deployment(outage_settings, own_client, logs, **limits) as started:
        step = Steps()
        await started.start(each=2)
        step("two of each started")
        yield started


def status_changes(hooks: list[Received]) -> set[tuple[str, str]]:
    changes = set()
    for hook in hooks:
        body = hook.json()
        if body["eventType"] == "INTENT_STATUS_CHANGED":
            changes.add((body["data"]["intentId"], body["data"]["status"]))
    return changes


async def assert_one_budget(lb: Balancer, other: ProjectCredentials) -> None:
    """Requests alternating between the two APIs draw on one budget (Redis): a project's
    remaining count falls by one at each, and the public limit refuses at the same count
    whichever API is asked."""
    a, b = lb.clients
    remaining = [
        int((await http.get("/v1/providers", headers=other.basic)).headers["ratelimit-remaining"])
        for http in (a, b, a, b)
    ]
    assert remaining == list(range(remaining[0], remaining[0] - 4, -1)), remaining
    statuses = [
        (await http.get("/v1/walletpay/auth/nonce")).status_code for http in (a, b) * PUBLIC_LIMIT
    ]
    assert statuses == [200] * PUBLIC_LIMIT + [429] * PUBLIC_LIMIT, statuses


async def test_two_of_each_process_one_of_each_killed_mid_burst_lose_nothing(
    running: Deployment, outage_settings: Settings, own_db: AsyncSession
) -> None:
    db = own_db
    assert [len(kind.running) for kind in running.kinds] == [2, 2, 2]
    project = await make_project(db, outage_settings, "Scale-out")
    other = await make_project(db, outage_settings, "Budget probe")
    step = Steps()
    async with receiving() as receiver:
        receiver.answer_delay = 0.01
        async with balanced(running.apis.running_urls, CALLERS) as lb:
            await assert_one_budget(lb, other)
            await add_endpoint(lb.clients[0], project, receiver.url)
            payer = await onboarded_payer(lb, project, "scale-out")
            step("budget checked, payer onboarded")

            victims = [kind.running[0] for kind in running.kinds]
            killed_at: list[int] = []

            async def kill_one_of_each(answered: int) -> None:
                # A POST in flight is looked for at each answer: it is answered in about
                # 10 ms, and a loaded machine may leave none open at those moments.
                if killed_at or answered < KILL_AT:
                    return
                if receiver.in_flight > 0 or answered >= KILL_BY:
                    for victim in victims:
                        victim.send_signal(signal.SIGKILL)
                    killed_at.append(answered)

            keys = [f"scale-out-{n}" for n in range(INTENTS)]
            answers = await keyed_burst(lb, payer, keys, CALLERS, kill_one_of_each)
            # The kill landed mid-burst (between KILL_AT and KILL_BY answers of INTENTS).
            assert len(killed_at) == 1
            for victim in victims:
                assert await victim.wait() == -signal.SIGKILL
            # The killed API's connections were dropped and made again on the other.
            assert lb.dropped > 0
            step("burst answered")

            # One intent per key, each with its transaction; a key sent again gets it.
            ids = {key: body["intent"]["id"] for key, body in answers.items()}
            assert len(set(ids.values())) == INTENTS
            # An order whose in-process call ran out of its budget (a loaded machine, the
            # worker that held it killed) leaves a valid intent without its transaction,
            # and the client asks for it, as docs/decisions.md says: nothing is lost.
            late = [key for key, body in answers.items() if body["transaction"] is None]
            for key in late:
                answers[key] = await execute(lb, payer.token, ids[key])
            assert all(body["transaction"] is not None for body in answers.values())
            step(f"transactions in place ({len(late)} asked for again)")
            again = await keyed_burst(lb, payer, keys[:: INTENTS // 10], CALLERS)
            assert {key: body["intent"]["id"] for key, body in again.items()} == {
                key: ids[key] for key in again
            }
            stored = (
                await db.exec(
                    select(func.count()).where(col(IntentRow.project_id) == project.project_id)
                )
            ).one()
            assert stored == INTENTS + 1  # and the onboarding intent
            step("one intent per key")

            # Every create went through: each intent is PROCESSING, its transaction
            # waiting for the deposit. One in ten is then settled to the end, through
            # whichever worker now runs its workflow.
            db.expire_all()
            statuses = (
                await db.exec(
                    select(IntentRow.status).where(col(IntentRow.id).in_(list(ids.values())))
                )
            ).all()
            assert statuses == ["PROCESSING"] * INTENTS
            sample = list(answers.values())[::SETTLED_ONE_IN]
            await asyncio.gather(
                *(settle(lb, project, body["transaction"]["id"]) for body in sample)
            )
            step("settlements accepted")
            expected = {(i, "PROCESSING") for i in ids.values()} | {
                (body["intent"]["id"], "COMPLETED") for body in sample
            }
            await receiver.wait_for(
                lambda got: expected <= status_changes(got), within=RETRY_FOR_SECONDS
            )
            step("status changes received")
            await assert_everything_delivered(db, project, receiver, at_least=INTENTS)
            step("delivery log checked")
            # The survivors still answer, and say they are healthy.
            for http in lb.clients[1:]:
                assert (await http.get("/healthz")).status_code == 200


DATABASE_GONE_SECONDS = 10.0
OUTAGE_BURST = 40
STOP_AT = OUTAGE_BURST // 5


async def test_the_database_stopped_mid_burst_and_started_again_loses_nothing(
    running: Deployment,
    postgres: OwnPostgres,
    outage_settings: Settings,
    engine: AsyncEngine,
) -> None:
    """The PostgreSQL stops for ten seconds in the middle of a burst, under the
    deployment's processes still running: meanwhile the API answers 503
    TEMPORARILY_UNAVAILABLE with Retry-After and /healthz names the database; the workers
    and the dispatchers wait and reconnect. Then every key has one intent and every event
    stored is delivered."""
    step = Steps()
    async with AsyncSession(engine, expire_on_commit=False) as db:
        project = await make_project(db, outage_settings, "Outage")
    async with receiving() as receiver, balanced(running.apis.running_urls, CALLERS) as lb:
        # A create refused while the database was gone is refused by its workflow
        # too (TEMPORARILY_UNAVAILABLE); the retry opens it in a new run.
        await add_endpoint(lb.clients[0], project, receiver.url)
        payer = await onboarded_payer(lb, project, "outage")
        step("payer onboarded")
        stopped = asyncio.Event()

        async def stop_the_database(answered: int) -> None:
            if answered == STOP_AT:
                await asyncio.to_thread(postgres.stop)
                stopped.set()

        keys = [f"outage-{n}" for n in range(OUTAGE_BURST)]
        creating = asyncio.create_task(keyed_burst(lb, payer, keys, CALLERS, stop_the_database))
        await stopped.wait()
        step("database stopped")
        health = await lb.clients[0].get("/healthz")
        assert health.status_code == 503, health.text
        assert health.json()["checks"]["database"].startswith("unavailable")
        await asyncio.sleep(DATABASE_GONE_SECONDS)  # the outage itself
        assert not creating.done()
        await asyncio.to_thread(postgres.start)
        step("database started again")
        answers = await creating
        step("burst answered")
        # Refused meanwhile, in the envelope, with the delay to wait.
        assert lb.unavailable > 0
        assert lb.retry_afters == {"1"}
        assert (await lb.clients[0].get("/healthz")).status_code == 200

        ids = {body["intent"]["id"] for body in answers.values()}
        assert len(ids) == OUTAGE_BURST
        async with AsyncSession(engine) as db:
            stored = (
                await db.exec(
                    select(func.count()).where(col(IntentRow.project_id) == project.project_id)
                )
            ).one()
            assert stored == OUTAGE_BURST + 1  # and the onboarding intent
            await assert_everything_delivered(db, project, receiver, at_least=OUTAGE_BURST)
        step("one intent per key, every event delivered")
