"""Inputs and outputs of the webhook delivery workflow and its activity.

Plain pydantic models, apart from the SQL tables: the workflow imports this module and
never the database.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

# Delays between attempts: the first attempt goes at once, then 1 min, 5 min, 30 min,
# 2 h and 24 h later (6 attempts in all, about 26.6 hours).
RETRY_DELAYS_SECONDS = (60, 300, 1800, 7200, 86400)
REQUEST_TIMEOUT_SECONDS = 30.0


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class DeliveryStatus(StrEnum):
    PENDING = "PENDING"  # created, first attempt not made yet
    RETRYING = "RETRYING"  # an attempt failed; another is scheduled (`nextAttemptAt`)
    SUCCEEDED = "SUCCEEDED"  # the endpoint answered 2xx
    EXHAUSTED = "EXHAUSTED"  # every attempt failed
    GONE = "GONE"  # the endpoint answered 410: it is disabled, nothing more is sent
    CANCELLED = "CANCELLED"  # the endpoint was disabled or removed before the attempt


FINAL_DELIVERY_STATUSES = frozenset(
    {
        DeliveryStatus.SUCCEEDED,
        DeliveryStatus.EXHAUSTED,
        DeliveryStatus.GONE,
        DeliveryStatus.CANCELLED,
    }
)


class DeliveryPolicy(_Model):
    """How hard a delivery tries: the delays between attempts and each POST's timeout."""

    retry_delays_seconds: tuple[float, ...] = RETRY_DELAYS_SECONDS
    timeout_seconds: float = Field(default=REQUEST_TIMEOUT_SECONDS, gt=0)

    @property
    def max_attempts(self) -> int:
        return len(self.retry_delays_seconds) + 1


# A manual redelivery is one attempt: retrying it is the caller's decision.
REDELIVERY_POLICY_DELAYS: tuple[float, ...] = ()


class DeliveryOrder(_Model):
    """Input of the delivery workflow: which delivery, on which schedule."""

    delivery_id: str
    policy: DeliveryPolicy


class DeliveryAttempt(_Model):
    """Input of `attempt_delivery`: one POST of a delivery."""

    delivery_id: str
    number: int
    timeout_seconds: float
    # Seconds until the next attempt if this one fails; None: this is the last one.
    retry_in_seconds: float | None


class AttemptOutcome(_Model):
    delivery_id: str
    status: DeliveryStatus
    status_code: int | None = None
