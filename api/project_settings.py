"""The project's own settings (Basic): the origins allowed to embed the hosted
onboarding page, `GET/PUT /v1/project/onboarding-origins`."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_project
from api.body import read_json
from api.render import json_resource
from api.schemas import OnboardingOrigins, OnboardingOriginsResource
from api.services import services
from ramp.onboarding.projects import change_onboarding_origins


async def get_onboarding_origins(request: Request) -> Response:
    project = await authenticate_project(request)
    return json_resource(OnboardingOriginsResource(origins=project.onboarding_origins))


async def put_onboarding_origins(request: Request) -> Response:
    project = await authenticate_project(request)
    body = await read_json(request, OnboardingOrigins)
    async with services(request).db() as session:
        origins = await change_onboarding_origins(session, project.id, body.origins)
    return json_resource(OnboardingOriginsResource(origins=origins))
