"""Activities that keep the database tidy."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete, or_
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import col
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from ramp.db.tables import WalletNonce
from ramp.db.types import utcnow
from ramp.housekeeping import NoncePurge, NoncePurgeResult


class HousekeepingActivities:
    def __init__(self, db: async_sessionmaker[AsyncSession]) -> None:
        self._db = db

    @activity.defn
    async def purge_expired_nonces(self, request: NoncePurge) -> NoncePurgeResult:
        cutoff = utcnow() - timedelta(seconds=request.retention_seconds)
        async with self._db() as session:
            result = await session.exec(
                delete(WalletNonce).where(
                    or_(
                        col(WalletNonce.expires_at) < cutoff,
                        col(WalletNonce.consumed_at) < cutoff,
                    )
                )
            )
            await session.commit()
        return NoncePurgeResult(deleted=result.rowcount)
