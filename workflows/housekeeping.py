"""Housekeeping: periodic clean-up, started by a Temporal schedule."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from activities.housekeeping import HousekeepingActivities
    from ramp.housekeeping import NoncePurge, NoncePurgeResult


@workflow.defn
class PurgeExpiredNonces:
    """Deletes wallet sign-in nonces that can no longer be used."""

    @workflow.run
    async def run(self, request: NoncePurge) -> NoncePurgeResult:
        return await workflow.execute_activity_method(
            HousekeepingActivities.purge_expired_nonces,
            request,
            start_to_close_timeout=timedelta(minutes=2),
            retry_policy=RetryPolicy(maximum_attempts=5),
        )
