"""Activities that keep the database tidy."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, or_
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from ramp.config import DEFAULT_AUDIT_RETENTION_DAYS, DEFAULT_KYC_RETENTION_DAYS
from ramp.db.tables import WalletNonce
from ramp.db.types import utcnow
from ramp.housekeeping import (
    NoncePurge,
    NoncePurgeResult,
    SubmissionPurge,
    SubmissionPurgeResult,
)
from ramp.idempotency.store import purge_expired as purge_expired_keys
from ramp.onboarding.retention import purge_batch, purge_shared_records
from ramp.organizations import audit
from ramp.security.encryption import SecretBox


class HousekeepingActivities:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        secret_box: SecretBox,
        kyc_retention: timedelta = timedelta(days=DEFAULT_KYC_RETENTION_DAYS),
        audit_retention: timedelta = timedelta(days=DEFAULT_AUDIT_RETENTION_DAYS),
    ) -> None:
        self._db = db
        self._box = secret_box
        self._kyc_retention = kyc_retention
        self._audit_retention = audit_retention

    @activity.defn
    async def purge_expired_nonces(self, request: NoncePurge) -> NoncePurgeResult:
        """Nonces past their retention, Idempotency-Key records older than 24 hours and
        audit log entries older than the audit retention (in this activity so that the
        workflow, and its recorded histories, stay as they are)."""
        now = utcnow()
        cutoff = now - timedelta(seconds=request.retention_seconds)
        async with self._db() as session:
            keys = await purge_expired_keys(session, now)
            audited = await audit.purge_expired(session, now - self._audit_retention)
            result = await session.exec(
                delete(WalletNonce).where(
                    or_(
                        col(WalletNonce.expires_at) < cutoff,
                        col(WalletNonce.consumed_at) < cutoff,
                    )
                )
            )
            await session.commit()
        if keys:
            activity.logger.info("purged %d idempotency records", keys)
        if audited:
            activity.logger.info("purged %d audit log entries", audited)
        return NoncePurgeResult(deleted=result.rowcount)

    @activity.defn
    async def purge_ended_submissions(self, request: SubmissionPurge) -> SubmissionPurgeResult:
        """Onboarding submissions of intents that ended more than the retention period
        ago: deleted, each leaving its verdict (ramp/onboarding/retention.py). In
        batches, each committed, so a retry after a crash resumes where it stopped."""
        retention = (
            self._kyc_retention
            if request.retention_seconds is None
            else timedelta(seconds=request.retention_seconds)
        )
        purged = 0
        while True:
            async with self._db() as session:
                count = await purge_batch(session, self._box, retention)
            purged += count
            activity.heartbeat(purged)
            if count == 0:
                break
        # What customers gave for sharing with another provider: the same period.
        async with self._db() as session:
            shared = await purge_shared_records(session, retention)
        if shared:
            activity.logger.info("purged %d records kept for sharing", shared)
        return SubmissionPurgeResult(purged=purged)
