"""Payment intents over HTTP: parse the request, call `ramp.intents.service`, render.

The service owns the idempotency rules and talks to the intent's workflow; this module
reads headers and bodies (never while holding a database connection) and renders
`IntentView`s as the specification's envelopes.
"""

from __future__ import annotations

from datetime import timedelta
from urllib.parse import urlencode

from starlette.requests import Request
from starlette.responses import Response

from api.auth import admit_customer, authenticate_customer, customer_claims
from api.body import read_json, read_json_object, validate_body
from api.idempotency import REPLAYED_HEADERS
from api.pagination import next_page_link, page_request
from api.render import (
    intent_envelope,
    intent_resource,
    json_list,
    json_resource,
    transaction_resource,
)
from api.schemas import (
    INLINE_ACCOUNT_FIELDS,
    CreateIntent,
    CreateIntentWithAccounts,
    ExecuteIntent,
    IntentEnvelope,
    IntentTerms,
)
from api.services import Services, services
from ramp.db.tables import Customer, IntentRow
from ramp.errors import NotFound
from ramp.intents.inline_accounts import InlineAccounts
from ramp.intents.lifecycle import workflow_id
from ramp.intents.service import IntentOrder, IntentService
from ramp.intents.states import TERMINAL_INTENT_STATUSES, IntentStatus
from ramp.intents.views import IntentView, read_view_with_customer
from ramp.intents.workflow_client import IntentWorkflowClient

IDEMPOTENCY_HEADER = "idempotency-key"


def intent_service(app: Services) -> IntentService:
    return IntentService(
        app.db,
        IntentWorkflowClient(app.temporal, app.settings.task_queue),
        app.settings.intent_lifetime_seconds,
    )


async def _customer(request: Request) -> Customer:
    """The caller, authenticated in a session of its own: none is held while the body
    arrives or the workflow answers."""
    return await authenticate_customer(request)


async def create_intent(request: Request) -> Response:
    """POST /intent: with the ids of a registered account pair, or with the pair inline
    (a one-call intent), told apart by the inline pair's fields."""
    app = services(request)
    customer = await _customer(request)
    data = await read_json_object(request)
    key = request.headers.get(IDEMPOTENCY_HEADER)
    service = intent_service(app)
    if INLINE_ACCOUNT_FIELDS & data.keys():
        inline = validate_body(CreateIntentWithAccounts, data)
        accounts = InlineAccounts(inline.src, inline.dest, inline.source, inline.destination)
        # The ids come from the registered pair (ramp/intents/inline_accounts.py).
        opened = await service.open_with_accounts(customer, _order(inline, "", ""), accounts, key)
    else:
        body = validate_body(CreateIntent, data)
        order = _order(body, body.src_external_account_id, body.dest_external_account_id)
        opened = await service.open(customer.project_id, customer.id, order, key)
    headers = REPLAYED_HEADERS if opened.replayed else None
    return json_resource(render_intent(app, opened.view), 201, headers=headers)


def _order(body: IntentTerms, src_id: str, dest_id: str) -> IntentOrder:
    return IntentOrder(
        src_external_account_id=src_id,
        dest_external_account_id=dest_id,
        amount=body.amount,
        provider_id=body.provider_id,
        auto_execute=body.auto_execute,
        redirect_url=body.redirect_url,
        label=body.label,
        onboarding_redirect_url=body.onboarding_redirect_url,
        checkout_redirect_url=body.checkout_redirect_url,
        quote_id=body.quote_id,
    )


async def list_intents(request: Request) -> Response:
    app = services(request)
    customer = await _customer(request)
    page = await intent_service(app).list(customer.id, page_request(request, owner=customer.id))
    envelopes = [render_intent(app, view) for view in page.items]
    return json_list(envelopes, headers=next_page_link(request, page.after, owner=customer.id))


async def get_intent(request: Request) -> Response:
    """GET /intent/{id}: no body to wait for, so one statement reads the token's
    customer and the intent (ramp/intents/views.py), as Core rows: no ORM session to
    open and close. The token is checked against the customer's row before anything of
    the intent is used, as `authenticate_customer` checks it."""
    app = services(request)
    claims = customer_claims(request)
    async with app.engine.connect() as connection:
        found, view = await read_view_with_customer(
            connection, claims.customer_id, request.path_params["id"]
        )
    await admit_customer(request, claims, found)
    if view is None:
        raise NotFound("intent")
    return json_resource(render_intent(app, view))


async def execute_intent(request: Request) -> Response:
    """POST /intent/{intentId}/transaction: the transaction of a compliant intent."""
    app = services(request)
    customer = await _customer(request)
    if await request.body():
        await read_json(request, ExecuteIntent)
    view = await intent_service(app).execute(customer.id, request.path_params["intentId"])
    return json_resource(render_intent(app, view), 201)


async def cancel_intent(request: Request) -> Response:
    """POST /intent/{intentId}/cancel: the customer changed their mind (no body)."""
    app = services(request)
    customer = await _customer(request)
    if await request.body():
        await read_json(request, ExecuteIntent)  # `{}` or nothing, as for the transaction
    view = await intent_service(app).cancel(customer.id, request.path_params["intentId"])
    return json_resource(render_intent(app, view))


async def get_transaction(request: Request) -> Response:
    """GET /intent/{intentId}/transaction: the transaction alone (404 before it exists)."""
    app = services(request)
    customer = await _customer(request)
    transaction = await intent_service(app).transaction(
        customer.id, request.path_params["intentId"]
    )
    return json_resource(transaction_resource(transaction))


def render_intent(app: Services, view: IntentView) -> IntentEnvelope:
    """The envelope of an intent (also for the project-wide search, api/lists.py)."""
    intent = view.intent
    resource = intent_resource(intent, view.steps, view.source, view.destination)
    return intent_envelope(
        resource,
        view.transaction,
        frontend_url=_frontend_url(app, intent) if _onboarding_open(intent) else None,
        workflow_id=workflow_id(intent.id) if intent.onboarding else None,
    )


def _onboarding_open(intent: IntentRow) -> bool:
    """Whether the intent's hosted page still has something to show: it went through
    onboarding and has not reached a final status (no token is minted for those)."""
    return intent.onboarding and IntentStatus(intent.status) not in TERMINAL_INTENT_STATUSES


def _frontend_url(app: Services, intent: IntentRow) -> str:
    token = app.tokens.issue_onboarding_token(
        intent.id, intent.customer_id, timedelta(seconds=app.settings.onboarding_token_ttl_seconds)
    )
    return f"{app.settings.public_url}/onboarding/{intent.id}?{urlencode({'token': token})}"
