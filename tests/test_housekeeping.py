"""The worker's housekeeping: expired wallet nonces, and onboarding submissions past
their retention period, are purged by a workflow."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import httpx
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client, WorkflowHistory
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.worker import Replayer, Worker

import worker as service_worker
from ramp.config import Settings
from ramp.db.tables import (
    AuditEvent,
    OnboardingSubmission,
    OnboardingVerdict,
    Organization,
    WalletNonce,
)
from ramp.db.types import utcnow
from ramp.housekeeping import SCHEDULE_ID, NoncePurge, NoncePurgeResult
from tests.helpers.onboarding import (
    DOCUMENT_NUMBER,
    FIRST_NAME,
    TERMS,
    kyc_basic,
    start_onboarding,
    submit,
)
from tests.helpers.payments import get_intent, step_status
from tests.histories.record import HISTORIES
from worker import workflow_runner
from workflows.housekeeping import PurgeExpiredNonces


async def test_purge_deletes_only_dead_nonces(
    temporal_client: Client, worker: Worker, db: AsyncSession, migrated: Settings
) -> None:
    now = utcnow()
    day = timedelta(days=1)
    db.add_all(
        [
            WalletNonce(nonce="fresh", created_at=now, expires_at=now + timedelta(minutes=5)),
            WalletNonce(nonce="expiredlongago", created_at=now - 3 * day, expires_at=now - 2 * day),
            WalletNonce(
                nonce="usedlongago",
                created_at=now - 3 * day,
                expires_at=now + day,
                consumed_at=now - 2 * day,
            ),
            WalletNonce(
                nonce="justexpired", created_at=now - day, expires_at=now - timedelta(hours=1)
            ),
        ]
    )
    await db.commit()
    # The session's worker: a second one on the same task queue is refused.
    result = await temporal_client.execute_workflow(
        PurgeExpiredNonces.run,
        NoncePurge(retention_seconds=24 * 3600),
        id=f"purge-{uuid.uuid4()}",
        task_queue=migrated.task_queue,
    )
    assert result == NoncePurgeResult(deleted=2)
    left = set((await db.exec(select(WalletNonce.nonce))).all())
    assert left == {"fresh", "justexpired"}


async def test_worker_creates_the_housekeeping_schedule_once(temporal_client: Client) -> None:
    await service_worker.ensure_schedules(temporal_client)
    await service_worker.ensure_schedules(temporal_client)  # a second worker start must not fail
    description = await temporal_client.get_schedule_handle(SCHEDULE_ID).describe()
    assert description.schedule.spec.intervals[0].every == timedelta(minutes=15)
    await temporal_client.get_schedule_handle(SCHEDULE_ID).delete()


async def test_submissions_are_purged_after_retention_leaving_the_verdict(
    client: httpx.AsyncClient,
    customer: dict[str, Any],
    temporal_client: Client,
    worker: Worker,
    migrated: Settings,
    db: AsyncSession,
) -> None:
    token = customer["access_token"]
    ended, link = await start_onboarding(client, token)
    await submit(client, ended, link, "TERMS_OF_SERVICE", TERMS)
    rejected = await submit(client, ended, link, "KYC_BASIC", kyc_basic(last_name="Reject"))
    assert rejected.json()["status"] == "FAILED"
    # The terms are on record now; this one's identity waits for a manual review.
    running, running_link = await start_onboarding(client, token)
    review = await submit(client, running, running_link, "KYC_BASIC", kyc_basic("Review"))
    assert review.status_code == 200, review.text

    async def housekeeping(kyc_retention_seconds: float | None) -> NoncePurgeResult:
        return await temporal_client.execute_workflow(
            PurgeExpiredNonces.run,
            NoncePurge(kyc_retention_seconds=kyc_retention_seconds),
            id=f"purge-{uuid.uuid4()}",
            task_queue=migrated.task_queue,
        )

    # Ended moments ago: within an hour's retention, and the worker's 90 days, all stay.
    assert (await housekeeping(3600)).submissions_purged == 0
    assert (await housekeeping(None)).submissions_purged == 0
    assert (await housekeeping(0)).submissions_purged == 2
    left = (await db.exec(select(OnboardingSubmission.intent_id))).all()
    assert left == [running]

    verdicts = {
        row.step_code: row
        for row in (
            await db.exec(select(OnboardingVerdict).where(OnboardingVerdict.intent_id == ended))
        ).all()
    }
    assert {code: row.verdict for code, row in verdicts.items()} == {
        "TERMS_OF_SERVICE": "VERIFIED",
        "KYC_BASIC": "REJECTED",
    }
    kyc = verdicts["KYC_BASIC"]
    assert kyc.customer_id == customer["id"]
    assert kyc.decided_at is not None
    assert kyc.submitted_at <= kyc.decided_at
    assert len(kyc.content_hash) == 64
    # The verdict holds no personal data; the intent reads as before.
    assert FIRST_NAME not in repr(kyc)
    assert DOCUMENT_NUMBER not in repr(kyc)
    envelope = await get_intent(client, token, ended)
    assert step_status(envelope, "KYC_BASIC") == "REJECTED"
    assert (await housekeeping(0)).submissions_purged == 0


async def test_runs_recorded_before_submissions_were_purged_still_replay() -> None:
    """`housekeeping_nonces_only.json` is a run of the workflow as it was before it
    purged submissions (one activity); the `workflow.patched` guard keeps it replaying."""
    history = WorkflowHistory.from_json(
        "replay-housekeeping", (HISTORIES / "housekeeping_nonces_only.json").read_text()
    )
    replayer = Replayer(
        workflows=[PurgeExpiredNonces],
        data_converter=pydantic_data_converter,
        workflow_runner=workflow_runner(),
    )
    result = await replayer.replay_workflow(history)
    assert result.replay_failure is None


async def test_audit_entries_are_kept_for_their_retention_period(
    temporal_client: Client, worker: Worker, db: AsyncSession, migrated: Settings
) -> None:
    """Issue 23: the audit log is kept RAMP_AUDIT_RETENTION_DAYS (365 by default), then
    purged by the housekeeping run (the session's worker keeps the default)."""
    organization = Organization(id=str(uuid.uuid4()), name="Audited")
    db.add(organization)
    await db.commit()
    now = utcnow()
    ages = {"kept": timedelta(days=364), "purged": timedelta(days=366)}
    db.add_all(
        AuditEvent(
            id=str(uuid.uuid4()),
            organization_id=organization.id,
            actor="owner@audited.test",
            action="project.created",
            target=name,
            details={},
            ip="127.0.0.1",
            created_at=now - age,
        )
        for name, age in ages.items()
    )
    await db.commit()
    await temporal_client.execute_workflow(
        PurgeExpiredNonces.run,
        NoncePurge(retention_seconds=24 * 3600),
        id=f"purge-{uuid.uuid4()}",
        task_queue=migrated.task_queue,
    )
    left = (
        await db.exec(
            select(AuditEvent.target).where(AuditEvent.organization_id == organization.id)
        )
    ).all()
    assert list(left) == ["kept"]
