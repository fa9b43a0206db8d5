"""What one write of an intent records: its new state and the webhook events the change
emits. Beside the intent models, in a module of its own because the events are computed
from those models (ramp/webhooks/events.py imports them)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from ramp.intents.models import IntentState
from ramp.webhooks.events import WebhookEvent


class IntentChange(BaseModel):
    """Input of `record_intent`: the intent's new state and the events its change emits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    state: IntentState
    events: list[WebhookEvent]
