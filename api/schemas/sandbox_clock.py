"""The sandbox clock's request and answer (`POST /v1/sandbox/intents/{id}/advance`)."""

from __future__ import annotations

from pydantic import Field, StrictInt

from api.schemas.core import RequestBody, Resource
from ramp.intents.clock import MAX_ADVANCE_SECONDS


class SandboxClockAdvance(RequestBody):
    seconds: StrictInt = Field(
        gt=0,
        le=MAX_ADVANCE_SECONDS,
        description="How far to move the intent's timers forward, in seconds",
        examples=[3600],
    )


class SandboxClockAdvanced(Resource):
    intent_id: str = Field(alias="intentId")
    advanced_seconds: int = Field(alias="advancedSeconds", description="This call's advance")
    clock_offset_seconds: float | None = Field(
        alias="clockOffsetSeconds",
        description="How far the intent's clock is ahead of the real one, all advances "
        "together; null once its workflow has ended (only webhook retries moved)",
    )
    webhook_retries_moved: int = Field(
        alias="webhookRetriesMoved",
        description="Webhook deliveries of the intent's events, waiting for an attempt, made "
        "due that much sooner (due now at the latest)",
    )
