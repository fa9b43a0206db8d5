"""Inputs and outputs of the housekeeping workflow and its activities."""

from __future__ import annotations

from pydantic import BaseModel

SCHEDULE_ID = "ramp-housekeeping"
PURGE_INTERVAL_MINUTES = 15


class NoncePurge(BaseModel):
    # Consumed or expired nonces are kept this long before deletion, for forensics.
    retention_seconds: int = 24 * 3600


class NoncePurgeResult(BaseModel):
    deleted: int
