"""The routes of issue 29's events and sandbox clocks: the project's events as stored
(`GET /events[/{eventId}]`) and the sandbox's clock for one intent. Part of the one
route table of api/routes.py, kept here so each module stays readable."""

from __future__ import annotations

from starlette.routing import BaseRoute

from api import schemas
from api.events import get_event, list_events
from api.operations import (
    CURSOR,
    LIMIT,
    ApiRoute,
    Operation,
    path_parameter,
    query_filter,
    query_timestamp,
)
from api.sandbox import advance_intent_clock
from ramp.intents.events import WebhookEvent

EVENT_ROUTES: list[BaseRoute] = [
    ApiRoute(
        "GET",
        "/events",
        list_events,
        Operation(
            "listEvents",
            "Every event of the project, whether or not a webhook endpoint subscribed, each "
            "body exactly as its webhook carries it; newest first, kept 30 days by default "
            "(RAMP_EVENT_RETENTION_DAYS); the next page's URL is in the `Link` header",
            auth="basic",
            status=200,
            response="list",
            item=WebhookEvent,
            parameters=(
                LIMIT,
                CURSOR,
                query_filter(
                    "type",
                    "Event type, or several comma-separated "
                    "(INTENT_STATUS_CHANGED,MONEY_MOVEMENT_UPDATED)",
                ),
                query_filter("intentId", "Intent id"),
                query_filter("customerId", "Customer id (ours: `intent.customerId`)"),
                query_timestamp(
                    "createdFrom", "Occurred at or after (ISO 8601 with offset; `timestamp`)"
                ),
                query_timestamp("createdTo", "Occurred before"),
            ),
            errors=(400, 401),
            headers=(("Link", 'The next page: `</v1/events?limit=N&cursor=...>; rel="next"`'),),
        ),
    ),
    ApiRoute(
        "GET",
        "/events/{eventId}",
        get_event,
        Operation(
            "getEvent",
            "One event of the project, exactly as its webhook carries it (the `eventId` of a "
            "webhook body, its `webhook-id` header, a delivery's `eventId`)",
            auth="basic",
            status=200,
            response=WebhookEvent,
            parameters=(path_parameter("eventId", "Event id"),),
            errors=(401, 404),
        ),
    ),
    # Sandbox only (404 in production).
    ApiRoute(
        "POST",
        "/sandbox/intents/{intentId}/advance",
        advance_intent_clock,
        Operation(
            "advanceSandboxIntentClock",
            "Sandbox only: move one intent's timers forward (expiry, provider polls, webhook "
            "retries of its events); timers now due run at once, asynchronously",
            auth="basic",
            status=200,
            request=schemas.SandboxClockAdvance,
            response=schemas.SandboxClockAdvanced,
            parameters=(path_parameter("intentId", "Intent id"),),
            errors=(400, 401, 404, 409, 503),
        ),
    ),
]
