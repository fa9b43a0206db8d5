"""POST /customers: create or retrieve a customer and hand out its access token."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.body import read_json
from api.render import customer_resource, json_resource
from api.schemas import CreateCustomer
from api.services import services
from ramp.customers.service import create_or_retrieve_customer
from ramp.security.encryption import cached_secret_box


async def create_customer(request: Request) -> Response:
    app = services(request)
    project = await authenticate_project(request)
    body = await read_json(request, CreateCustomer)
    access = await create_or_retrieve_customer(
        app.db,
        project=project,
        external_id=body.id,
        metadata=body.metadata,
        subject_token=body.subject_token,
        tokens=app.tokens,
        verifier=app.oidc,
        secret_box=cached_secret_box(app.settings.encryption_keys.get_secret_value()),
    )
    return json_resource(
        customer_resource(access.customer, project.organization_id, access.token),
        status_code=201 if access.created else 200,
    )
