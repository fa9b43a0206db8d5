"""`ramp dev` survives a kill -9 of any child during a burst of idempotent creates.

The sandbox runs as a user runs it (a subprocess on free ports). A burst of
`POST /intent` with Idempotency-Keys is under way when one child (worker, Temporal dev
server or API) is SIGKILLed; every create is
retried with its key, on a 503 or a dropped connection, until it answers 201. The
supervisor restarts the child. Then every intent returned settles, and every status
change reaches a webhook receiver.

The three kills share one `ramp dev` (starting one costs more than a burst), one after
the other, the one the other `ramp dev` modules of the process share
(tests/helpers/sandbox.py): each burst has a customer, idempotency keys and a webhook
endpoint of its own, and ends once the supervisor has restarted its victim and every
intent has settled through the restarted child, so the next kill, and the next module,
starts from a whole stack.

A webhook dispatcher killed mid-burst (PostgreSQL) is in tests/test_scale_out.py, among
processes of every kind run as a deployment runs them.
"""

from __future__ import annotations

import asyncio
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from bench.sandbox import SandboxProcess
from tests.helpers.payments import ACH, wait_for_intent, wallet
from tests.helpers.sandbox import SharedSandbox
from tests.helpers.webhook_receiver import Received, receiving

BURST = 16
CONCURRENCY = 8
KILL_AFTER = 4  # creates answered before the kill
# A hang detector for each wait (a create answered, the burst settled, its webhooks): the
# supervisor's restart of the victim, its imports and the sticky queues' timeout take
# about 15 s on an idle machine, and a load of 20 on two cores stretched them past 50 s.
WITHIN = 180.0

# What identifies each child of `ramp dev` in its command line.
CHILD_MARKERS = {
    "temporal": "start-dev",
    "worker": "devstack\0worker",
    "api": "devstack\0api",
    "dispatcher": "devstack\0dispatcher",
}


@pytest.fixture(scope="module")
def sandbox(shared_sandbox: SharedSandbox) -> Iterator[SandboxProcess]:
    """The process's shared `ramp dev`, its log printed after the module (shown with a
    failure); its stop (exit 0, no child left) is checked where it stops."""
    yield shared_sandbox
    print(shared_sandbox.log)


def child_pid(dev: SandboxProcess, name: str) -> int:
    """The pid of the supervisor's direct child `name`."""
    for task in Path(f"/proc/{dev.process.pid}/task").glob("*"):
        for pid in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            if CHILD_MARKERS[name] in cmdline:
                return int(pid)
    raise AssertionError(f"no {name} child:\n{dev.log}")


async def logged(sandbox: SandboxProcess, text: str) -> None:
    """Until `ramp dev` has printed `text`."""
    async with asyncio.timeout(WITHIN):
        while True:
            if text in sandbox.log:
                return
            await asyncio.sleep(0.1)


class Seen:
    """What the retried calls met on their way to an answer."""

    dropped = 0  # connections lost (only the API's own death may cause these)
    unavailable = 0  # 503 TEMPORARILY_UNAVAILABLE answers


async def until_ok(call: Any, *args: Any, ok: tuple[int, ...], **kwargs: Any) -> httpx.Response:
    """Repeats a request while the service is recovering: 503, or no connection."""
    async with asyncio.timeout(WITHIN):
        while True:
            try:
                response: httpx.Response = await call(*args, **kwargs)
            except httpx.TransportError:
                Seen.dropped += 1
                await asyncio.sleep(0.2)
                continue
            if response.status_code in ok:
                return response
            assert response.status_code == 503, response.text
            assert response.json()["code"] == "TEMPORARILY_UNAVAILABLE", response.text
            Seen.unavailable += 1
            await asyncio.sleep(float(response.headers["retry-after"]))


def moved_past(step: str) -> Callable[[dict[str, Any]], bool]:
    return lambda body: body["intent"]["compliancePlan"]["currentStepCode"] != step


async def onboarded_customer(
    http: httpx.AsyncClient, auth: tuple[str, str], name: str
) -> tuple[str, dict[str, str]]:
    """A customer whose first intent went through onboarding and has a transaction: the
    burst's intents get their transaction at once. Returns its token and account ids."""
    created = await http.post("/v1/customers", json={"id": name}, auth=auth)
    assert created.status_code == 201, created.text
    token = created.json()["access_token"]
    bearer = {"Authorization": f"Bearer {token}"}
    pair = await http.post(
        "/v1/customers/external-accounts",
        json={
            "src": "USD",
            "dest": "USDC_ETHEREUM",
            "source": ACH,
            "destination": wallet("USDC_ETHEREUM"),
        },
        headers=bearer,
    )
    assert pair.status_code == 201, pair.text
    accounts = {
        "srcExternalAccountId": pair.json()["source"]["id"],
        "destExternalAccountId": pair.json()["destination"]["id"],
        "amount": "100.00",
    }
    first = await http.post(
        "/v1/intent", json=accounts, headers={**bearer, "Idempotency-Key": f"{name}-first"}
    )
    assert first.status_code == 201, first.text
    intent_id = first.json()["intent"]["id"]
    for _ in range(10):
        envelope = (await http.get(f"/v1/intent/{intent_id}", headers=bearer)).json()
        step = envelope["intent"]["compliancePlan"]["currentStepCode"]
        if step is None:
            break
        answer = await http.post(
            f"/v1/sandbox/intents/{intent_id}/compliance-steps/{step}",
            json={"outcome": "VERIFIED"},
            auth=auth,
        )
        assert answer.status_code == 202, answer.text
        await wait_for_intent(http, token, intent_id, moved_past(step))
    executed = await http.post(f"/v1/intent/{intent_id}/transaction", headers=bearer)
    assert executed.status_code == 201, executed.text
    return token, accounts


async def settle(
    http: httpx.AsyncClient, auth: tuple[str, str], bearer: dict[str, str], intent_id: str
) -> None:
    envelope = (
        await until_ok(http.get, f"/v1/intent/{intent_id}", headers=bearer, ok=(200,))
    ).json()
    transaction = envelope["transaction"]
    assert transaction is not None, envelope
    # Each event is accepted (202) and applied asynchronously: wait for its effect
    # before the next one, which would be refused (409) against the old status.
    for event, transaction_status in (("DEPOSIT_RECEIVED", "IN_PROGRESS"), ("SETTLED", "SUCCESS")):
        await until_ok(
            http.post,
            f"/v1/sandbox/transactions/{transaction['id']}/events",
            json={"type": event},
            auth=auth,
            ok=(202,),
        )
        async with asyncio.timeout(WITHIN):
            while envelope["transaction"]["status"] != transaction_status:
                await asyncio.sleep(0.1)
                envelope = (
                    await until_ok(http.get, f"/v1/intent/{intent_id}", headers=bearer, ok=(200,))
                ).json()
    assert envelope["intent"]["status"] == "COMPLETED", envelope


def status_changes(hooks: list[Received]) -> set[tuple[str, str]]:
    received = set()
    for hook in hooks:
        body = hook.json()
        if body["eventType"] == "INTENT_STATUS_CHANGED":
            received.add((body["data"]["intentId"], body["data"]["status"]))
    return received


@pytest.mark.parametrize("victim", ["worker", "temporal", "api"])
async def test_a_killed_child_loses_no_intent_and_no_webhook(
    sandbox: SandboxProcess, victim: str
) -> None:
    await burst_with_a_kill(sandbox, victim)


async def burst_with_a_kill(sandbox: SandboxProcess, victim: str) -> None:
    auth = sandbox.credentials()
    Seen.dropped = Seen.unavailable = 0
    async with receiving() as receiver, httpx.AsyncClient(base_url=sandbox.api, timeout=30) as http:
        endpoint = await http.post(
            "/v1/webhooks/endpoints",
            json={"url": receiver.url, "eventTypes": ["INTENT_STATUS_CHANGED"]},
            auth=auth,
        )
        assert endpoint.status_code == 201, endpoint.text
        token, accounts = await onboarded_customer(http, auth, f"burst-{victim}")
        bearer = {"Authorization": f"Bearer {token}"}

        answered: dict[str, dict[str, Any]] = {}
        enough = asyncio.Event()
        gate = asyncio.Semaphore(CONCURRENCY)

        async def create(key: str) -> None:
            async with gate:
                response = await until_ok(
                    http.post,
                    "/v1/intent",
                    json=accounts,
                    headers={**bearer, "Idempotency-Key": key},
                    ok=(201,),
                )
            answered[key] = response.json()
            if len(answered) >= KILL_AFTER:
                enough.set()

        burst = asyncio.gather(*(create(f"burst-{victim}-{n}") for n in range(BURST)))
        await enough.wait()
        os.kill(child_pid(sandbox, victim), signal.SIGKILL)
        await burst

        # The supervisor saw the death (a dead dispatcher delays no create: the burst may
        # end before its line is printed).
        await logged(sandbox, f"[ramp] {victim} exited unexpectedly with signal SIGKILL")
        ids = {body["intent"]["id"] for body in answered.values()}
        assert len(ids) == BURST
        for body in answered.values():
            assert body["transaction"] is not None, body
        await asyncio.gather(*(settle(http, auth, bearer, intent_id) for intent_id in ids))

        expected = {
            (intent_id, status) for intent_id in ids for status in ("PROCESSING", "COMPLETED")
        }
        await receiver.wait_for(lambda got: expected <= status_changes(got), within=WITHIN)
        # The next burst's events are not for this receiver, about to close.
        removed = await http.delete(f"/v1/webhooks/endpoints/{endpoint.json()['id']}", auth=auth)
        assert removed.status_code == 204, removed.text
