"""The worker's webhook sender process (ramp/webhooks/sender_process.py), on its own:
attempts signed and POSTed from a real child process to a receiver on loopback, and
a child killed under its attempts replaced at the next one."""

from __future__ import annotations

import asyncio
import os
import signal

from standardwebhooks import Webhook

from bench.sandbox import alive
from ramp.db.types import utcnow
from ramp.webhooks.sender_process import SenderGone, SenderProcess, sender_process
from ramp.webhooks.sending import Outgoing, Signer
from tests.helpers.webhook_receiver import receiving

# A project's client secret signs (its UTF-8 bytes are the key).
SECRET = "sk_sandbox_sender-process-test"
SIGNER = Signer(client_id="client-1", secrets=(SECRET,), public_only=False)


def event(number: int) -> Outgoing:
    return Outgoing(f"evt-{number}", "INTENT_STATUS_CHANGED", b'{"n":%d}' % number)


async def test_attempts_are_signed_and_sent_from_a_child_process() -> None:
    async with receiving() as receiver, sender_process(8) as sender:
        sent = await asyncio.gather(
            *(sender.send(receiver.url, event(n), SIGNER, 5, utcnow()) for n in range(20))
        )
        assert isinstance(sender, SenderProcess)
        child = sender.pid
        assert child is not None
        assert child != os.getpid()
    assert [s.status_code for s in sent] == [200] * 20
    assert all(s.acknowledged and s.error is None for s in sent)
    assert sorted(hook.body for hook in receiver.received) == sorted(
        event(n).body for n in range(20)
    )
    for hook in receiver.received:
        Webhook(SECRET.encode()).verify(hook.body, hook.headers)
    # Closed with the sender: the child left.
    assert not alive(child)


async def test_an_endpoints_failure_is_an_outcome_not_an_error() -> None:
    async with receiving() as receiver, sender_process(8) as sender:
        receiver.statuses = [503]
        sent = await sender.send(receiver.url, event(1), SIGNER, 5, utcnow())
        refused = await sender.send("http://127.0.0.1:9/none", event(2), SIGNER, 5, utcnow())
    assert (sent.status_code, sent.error) == (503, "HTTP 503")
    assert refused.status_code is None
    assert refused.error is not None
    assert refused.error.startswith("ConnectError")


async def test_a_killed_child_fails_its_attempts_and_the_next_attempt_starts_another() -> None:
    async with receiving() as receiver, sender_process(8) as sender:
        assert isinstance(sender, SenderProcess)
        await sender.send(receiver.url, event(0), SIGNER, 5, utcnow())
        first = sender.pid
        assert first is not None
        receiver.hold.set()
        held = asyncio.create_task(sender.send(receiver.url, event(1), SIGNER, 30, utcnow()))
        await receiver.wait_for(lambda got: len(got) == 2)
        os.kill(first, signal.SIGKILL)
        try:
            await asyncio.wait_for(held, timeout=10)
        except SenderGone:
            pass
        else:
            raise AssertionError("an attempt of a killed child must not report an outcome")
        receiver.hold.clear()
        receiver.release()

        again = await sender.send(receiver.url, event(1), SIGNER, 5, utcnow())
        assert again.status_code == 200
        assert sender.pid not in (None, first)
