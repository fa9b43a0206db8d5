"""Inputs and outputs of the housekeeping workflow, and its activities as the workflow
sees them (names and types; activities/housekeeping.py implements them)."""

from __future__ import annotations

from pydantic import BaseModel, Field
from temporalio import activity

SCHEDULE_ID = "ramp-housekeeping"
PURGE_INTERVAL_MINUTES = 15


class NoncePurge(BaseModel):
    """The input of a housekeeping run (named for its first task, nonces)."""

    # Consumed or expired nonces are kept this long before deletion, for forensics.
    retention_seconds: int = 24 * 3600
    # Onboarding submissions: None keeps the worker's RAMP_KYC_RETENTION_DAYS; an
    # operator's one-off run (an erasure request, say) may pass a shorter period.
    kyc_retention_seconds: float | None = Field(default=None, ge=0)
    # Webhook deliveries and events: None keeps the worker's RAMP_WEBHOOK_RETENTION_DAYS.
    webhook_retention_seconds: float | None = Field(default=None, ge=0)


class SubmissionPurge(BaseModel):
    retention_seconds: float | None = Field(default=None, ge=0)


class NoncePurgeResult(BaseModel):
    """What one housekeeping run did (named for its first task, nonces)."""

    deleted: int
    # Onboarding submissions past their retention, replaced by their verdicts.
    submissions_purged: int = 0
    # Ended webhook deliveries (with their attempts) and events past their retention.
    webhook_deliveries_purged: int = 0
    webhook_events_purged: int = 0


class SubmissionPurgeResult(BaseModel):
    purged: int


class WebhookLogPurge(BaseModel):
    retention_seconds: float | None = Field(default=None, ge=0)


class WebhookLogPurgeResult(BaseModel):
    deliveries: int
    events: int


# Definitions only: the workflow calls these by name; the worker registers the
# implementations (HousekeepingActivities) under the same names.
@activity.defn(name="purge_expired_nonces")
async def purge_expired_nonces(request: NoncePurge) -> NoncePurgeResult:
    raise NotImplementedError("runs in the worker: HousekeepingActivities.purge_expired_nonces")


@activity.defn(name="purge_ended_submissions")
async def purge_ended_submissions(request: SubmissionPurge) -> SubmissionPurgeResult:
    raise NotImplementedError("runs in the worker: HousekeepingActivities.purge_ended_submissions")


@activity.defn(name="purge_webhook_log")
async def purge_webhook_log(request: WebhookLogPurge) -> WebhookLogPurgeResult:
    raise NotImplementedError("runs in the worker: WebhookActivities.purge_webhook_log")
