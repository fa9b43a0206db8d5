"""What the API's endpoints share, built once per process in the lifespan."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from starlette.requests import Request
from temporalio.client import Client

from ramp.config import Settings
from ramp.identity.oidc import OidcVerifier
from ramp.ratelimit import Limiter
from ramp.security.tokens import TokenService


@dataclass(frozen=True)
class Services:
    settings: Settings
    engine: AsyncEngine
    db: async_sessionmaker[AsyncSession]
    temporal: Client
    tokens: TokenService
    oidc: OidcVerifier
    limiter: Limiter


def services(request: Request) -> Services:
    found: Services = request.state.services
    return found
