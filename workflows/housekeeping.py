"""Housekeeping: periodic clean-up, started by a Temporal schedule."""

from __future__ import annotations

from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

from ramp import housekeeping
from ramp.housekeeping import NoncePurge, NoncePurgeResult, SubmissionPurge, WebhookLogPurge

# Runs started before submissions were purged replay without the second activity.
PURGE_SUBMISSIONS_PATCH = "purge-ended-submissions"
# Runs started before the webhook log had a retention period replay without the third.
PURGE_WEBHOOK_LOG_PATCH = "purge-webhook-log"


@workflow.defn
class PurgeExpiredNonces:
    """Deletes wallet sign-in nonces that can no longer be used, then onboarding
    submissions, then webhook deliveries and events, past their retention periods (the
    name predates the second task)."""

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
        if workflow.patched(PURGE_WEBHOOK_LOG_PATCH):
            webhook_log = await workflow.execute_activity(
                housekeeping.purge_webhook_log,
                WebhookLogPurge(retention_seconds=request.webhook_retention_seconds),
                start_to_close_timeout=timedelta(minutes=10),
                heartbeat_timeout=timedelta(minutes=2),
                retry_policy=RetryPolicy(maximum_attempts=5),
            )
            result = result.model_copy(
                update={
                    "webhook_deliveries_purged": webhook_log.deliveries,
                    "webhook_events_purged": webhook_log.events,
                }
            )
        return result
