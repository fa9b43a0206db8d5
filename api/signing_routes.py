"""The routes of wallet signatures (issue 27). Part of the one route table of
api/routes.py."""

from __future__ import annotations

from starlette.routing import BaseRoute

from api.operations import ApiRoute, Auth, Operation, path_parameter
from api.schemas.signing import SignatureAccepted, SigningRequestResource, SubmitSignature
from api.signing import get_signing_request, submit_signature


def _routes(prefix: str, auth: Auth, who: str) -> list[BaseRoute]:
    return [
        ApiRoute(
            "GET",
            f"{prefix}/{{intentId}}/signature",
            get_signing_request,
            Operation(
                f"get{who}SigningRequest",
                "What the customer's wallet signs next for the intent's provider (Monerium: "
                "the address link, then a redeem order); 409 NOTHING_TO_SIGN when nothing is",
                auth=auth,
                status=200,
                response=SigningRequestResource,
                parameters=(path_parameter("intentId", "Intent id"),),
                errors=(401, 404, 409, 502),
            ),
        ),
        ApiRoute(
            "POST",
            f"{prefix}/{{intentId}}/signature",
            submit_signature,
            Operation(
                f"submit{who}Signature",
                "The wallet's signature of the message `GET .../signature` gave: an address "
                "link is forwarded to the provider, a redeem order's kept for its placement "
                "(then ask for the transaction again)",
                auth=auth,
                status=200,
                request=SubmitSignature,
                response=SignatureAccepted,
                parameters=(path_parameter("intentId", "Intent id"),),
                errors=(400, 401, 404, 409, 422, 502),
            ),
        ),
    ]


# The project's app (the customer's token) and the hosted page (the onboarding token).
SIGNING_ROUTES: list[BaseRoute] = [
    *_routes("/intent", "bearer", "Intent"),
    *_routes("/onboarding", "onboarding", "Onboarding"),
]
