"""Housekeeping: periodic clean-up, started by a Temporal schedule."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

from ramp import housekeeping
from ramp.housekeeping import NoncePurge, NoncePurgeResult, SubmissionPurge

# Runs started before submissions were purged replay without the second activity.
PURGE_SUBMISSIONS_PATCH = "purge-ended-submissions"


@workflow.defn
class PurgeExpiredNonces:
    """Deletes wallet sign-in nonces that can no longer be used, then onboarding
    submissions past their retention period (the name predates the second task)."""

    @workflow.run
    async def run(self, request: NoncePurge) -> NoncePurgeResult:
        result = await workflow.execute_activity(
            housekeeping.purge_expired_nonces,
            request,
            start_to_close_timeout=timedelta(minutes=2),
            retry_policy=RetryPolicy(maximum_attempts=5),
        )
        if workflow.patched(PURGE_SUBMISSIONS_PATCH):
            submissions = await workflow.execute_activity(
                housekeeping.purge_ended_submissions,
                SubmissionPurge(retention_seconds=request.kyc_retention_seconds),
                start_to_close_timeout=timedelta(minutes=10),
                heartbeat_timeout=timedelta(minutes=2),
                retry_policy=RetryPolicy(maximum_attempts=5),
            )
            result = NoncePurgeResult(deleted=result.deleted, submissions_purged=submissions.purged)
        return result
