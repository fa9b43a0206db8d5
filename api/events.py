"""`GET /v1/events` and `GET /v1/events/{eventId}`: the project's events, each body
exactly as a webhook carries it (ramp/webhooks/events_store.py). Newest first, `limit`
and `cursor`, the next page in `Link` with the filters carried over, as every list."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.errors import bad_request
from api.lists import moment, text_filters
from api.pagination import next_page_link, page_request
from api.services import services
from ramp.intents.events import WebhookEventType
from ramp.webhooks.events_store import EventFilters, event_page, stored_event

_TYPES = {event_type.value for event_type in WebhookEventType}
_JSON = "application/json"


async def list_events(request: Request) -> Response:
    """GET /events: the project's events, filtered, newest first."""
    project = await authenticate_project(request)
    filters = text_filters(request, "type", "intentId", "customerId", "createdFrom", "createdTo")
    types = filters["type"].split(",") if "type" in filters else []
    for event_type in types:
        if event_type not in _TYPES:
            raise bad_request(
                "VALIDATION_ERROR",
                f"type must be one or more (comma-separated) of {', '.join(sorted(_TYPES))}",
                {"fields": [{"pointer": "/type", "reason": "is not one of the allowed values"}]},
            )
    search = EventFilters(
        event_types=tuple(WebhookEventType(t) for t in types),
        intent_id=filters.get("intentId"),
        customer_id=filters.get("customerId"),
        created_from=moment("createdFrom", filters["createdFrom"])
        if "createdFrom" in filters
        else None,
        created_to=moment("createdTo", filters["createdTo"]) if "createdTo" in filters else None,
    )
    page = await event_page(
        services(request).db, project.id, search, page_request(request, owner=project.id)
    )
    # The stored bodies as they are: what the webhooks carry, byte for byte.
    body = "[" + ",".join(event.body for event in page.items) + "]"
    return Response(
        body,
        media_type=_JSON,
        headers=next_page_link(request, page.after, filters, owner=project.id),
    )


async def get_event(request: Request) -> Response:
    """GET /events/{eventId}: one event of the project, as its webhook carries it."""
    project = await authenticate_project(request)
    event = await stored_event(services(request).db, project.id, request.path_params["eventId"])
    return Response(event.body, media_type=_JSON)
