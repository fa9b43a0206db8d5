"""What one write of an intent records: its new state and the webhook events the change
emits (ramp/intents/events.py, computed from the intent models; ramp/webhooks delivers
them)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ramp.intents.events import WebhookEvent
from ramp.intents.models import IntentState


class IntentChange(BaseModel):
    """Input of `record_intent`: the intent's new state and the events its change emits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    state: IntentState
    events: list[WebhookEvent]
