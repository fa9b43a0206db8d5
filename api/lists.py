"""Lists for reconciliation: a project's customers and intents (Basic), a customer's
external accounts (Bearer). Newest first, `limit` and `cursor`, the next page in
`Link` with the filters carried over (api/pagination.py)."""

from __future__ import annotations

from datetime import UTC, datetime

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_customer, authenticate_project
from api.errors import bad_request
from api.intents import render_intent
from api.pagination import next_page_link, page_request
from api.render import customer_resource, external_account_resource, json_list
from api.services import services
from ramp.customers.listing import customer_page
from ramp.external_accounts.listing import account_page
from ramp.intents.search import IntentFilters, search_intents
from ramp.intents.states import IntentStatus

_MAX_FILTER_CHARS = 200
_STATUSES = {status.value for status in IntentStatus}
# Query parameter -> IntentFilters field, for the time ranges ([from, to)).
_RANGES = {
    "createdFrom": "created_from",
    "createdTo": "created_to",
    "updatedFrom": "updated_from",
    "updatedTo": "updated_to",
}


async def list_customers(request: Request) -> Response:
    """GET /customers: the project's customers; `id` finds the one with that id."""
    project = await authenticate_project(request)
    filters = text_filters(request, "id")
    page = await customer_page(
        services(request).db, project.id, page_request(request, owner=project.id), filters.get("id")
    )
    return json_list(
        (customer_resource(c, project.organization_id, None) for c in page.items),
        headers=next_page_link(request, page.after, filters, owner=project.id),
    )


async def list_external_accounts(request: Request) -> Response:
    """GET /customers/external-accounts: the customer's registered accounts."""
    customer = await authenticate_customer(request)
    page = await account_page(
        services(request).db, customer.id, page_request(request, owner=customer.id)
    )
    return json_list(
        (external_account_resource(account) for account in page.items),
        headers=next_page_link(request, page.after, owner=customer.id),
    )


async def search_project_intents(request: Request) -> Response:
    """GET /intents: the project's intents, filtered."""
    app = services(request)
    project = await authenticate_project(request)
    filters = text_filters(request, "status", "customerId", "providerId", *_RANGES)
    statuses = filters["status"].split(",") if "status" in filters else []
    for status in statuses:
        if status not in _STATUSES:
            raise bad_request(
                "VALIDATION_ERROR",
                f"status must be one or more (comma-separated) of {', '.join(sorted(_STATUSES))}",
                {"fields": [{"pointer": "/status", "reason": "is not one of the allowed values"}]},
            )
    search = IntentFilters(
        statuses=tuple(IntentStatus(status) for status in statuses),
        customer_id=filters.get("customerId"),
        provider_id=filters.get("providerId"),
        **{
            field: moment(name, filters[name]) for name, field in _RANGES.items() if name in filters
        },
    )
    page = await search_intents(app.db, project.id, search, page_request(request, owner=project.id))
    return json_list(
        (render_intent(app, view) for view in page.items),
        headers=next_page_link(request, page.after, filters, owner=project.id),
    )


def text_filters(request: Request, *names: str) -> dict[str, str]:
    filters: dict[str, str] = {}
    for name in names:
        value = request.query_params.get(name)
        if value is None:
            continue
        if not 1 <= len(value) <= _MAX_FILTER_CHARS:
            raise bad_request(
                "VALIDATION_ERROR",
                f"{name} must be 1 to {_MAX_FILTER_CHARS} characters",
                {"fields": [{"pointer": f"/{name}", "reason": "is not a valid value"}]},
            )
        filters[name] = value
    return filters


def moment(name: str, value: str) -> datetime:
    """An ISO 8601 timestamp with its offset (`2026-03-29T10:05:00.000Z`)."""
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        parsed = None
    if parsed is None or parsed.tzinfo is None:
        raise bad_request(
            "VALIDATION_ERROR",
            f"{name} must be an ISO 8601 timestamp with a time zone, such as "
            "2026-03-29T10:05:00.000Z",
            {"fields": [{"pointer": f"/{name}", "reason": "must be an ISO 8601 timestamp"}]},
        )
    return parsed.astimezone(UTC)
