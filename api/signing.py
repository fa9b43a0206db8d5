"""`GET`/`POST /intent/{intentId}/signature` (the customer's token: the project's app)
and `/onboarding/{intentId}/signature` (the onboarding token of `frontendUrl`: the
hosted page): the wallet signatures an intent's provider asks for
(ramp/provider_signing/service.py)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_customer
from api.body import read_json
from api.onboarding import check_onboarding_token, onboarding_token
from api.render import json_resource
from api.schemas.signing import SignatureAccepted, SigningRequestResource, SubmitSignature
from api.services import services
from ramp.adapters.registry import Connectors
from ramp.provider_signing import service
from ramp.security.encryption import cached_secret_box


async def _customer_id(request: Request) -> str:
    """The customer: by their token on /intent, by the onboarding token on /onboarding."""
    if request.url.path.startswith("/v1/onboarding/"):
        return check_onboarding_token(
            services(request), onboarding_token(request), request.path_params["intentId"]
        )
    return (await authenticate_customer(request)).id


async def get_signing_request(request: Request) -> Response:
    app = services(request)
    customer_id = await _customer_id(request)
    async with app.db() as session:
        wanted = await service.signing_request(
            session,
            customer_id=customer_id,
            intent_id=request.path_params["intentId"],
            secret_box=cached_secret_box(app.settings.encryption_keys.get_secret_value()),
            connectors=Connectors.from_settings(app.settings),
        )
    return json_resource(
        SigningRequestResource(
            purpose=wanted.purpose,
            address=wanted.address,
            chain=wanted.chain,
            message=wanted.message,
            expires_at=wanted.expires_at,
        )
    )


async def submit_signature(request: Request) -> Response:
    app = services(request)
    customer_id = await _customer_id(request)
    body = await read_json(request, SubmitSignature)
    async with app.db() as session:
        outcome = await service.submit_signature(
            session,
            customer_id=customer_id,
            intent_id=request.path_params["intentId"],
            purpose=body.purpose,
            message=body.message,
            signature=body.signature,
            secret_box=cached_secret_box(app.settings.encryption_keys.get_secret_value()),
            connectors=Connectors.from_settings(app.settings),
        )
    return json_resource(SignatureAccepted(purpose=body.purpose, outcome=outcome))
