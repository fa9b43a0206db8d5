"""Routing's bodies and resources (issue 26): the sandbox's provider behaviours and a
project's routing strategy."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from api.schemas.core import RequestBody, Resource

BehaviourMode = Literal["UP", "DOWN", "SLOW", "REFUSE_TRANSFERS"]
Strategy = Literal["FIRST_ELIGIBLE", "BEST_PRICE"]


class SandboxProviderBehaviourBody(RequestBody):
    mode: BehaviourMode = Field(
        description="UP: as usual; DOWN: every call fails (connection refused); SLOW: every "
        "call answers after the activity timeout; REFUSE_TRANSFERS: orders refused for the "
        "provider's own reasons"
    )
    seconds: Annotated[int, Field(ge=1, le=86_400, strict=True)] | None = Field(
        default=None, description="For how long; without it, until set back to UP"
    )


class SandboxProviderBehaviourResource(Resource):
    provider_id: str = Field(alias="providerId")
    provider_code: str = Field(alias="providerCode")
    mode: BehaviourMode = Field(
        description="How the mock provider behaves now, for this project only: UP as usual, "
        "DOWN, SLOW or REFUSE_TRANSFERS (as the body's `mode`)"
    )
    until: str | None = Field(description="When the provider is UP again by itself (UTC)")


class RoutingBody(RequestBody):
    strategy: Strategy = Field(
        description="FIRST_ELIGIBLE: the first eligible provider in catalog order (the "
        "default); BEST_PRICE: the one whose quote nets the most at the destination"
    )


class ProviderHealthResource(Resource):
    provider_id: str = Field(alias="providerId")
    provider_code: str = Field(alias="providerCode")
    provider_account_id: str = Field(
        alias="providerAccountId", description="Id of the project's provider account"
    )
    name: str = Field(
        description="The account's name, unique within the project and provider (`default` "
        "unless named)"
    )
    priority: int = Field(description="Lower routes first among the provider's accounts")
    status: Literal["HEALTHY", "DEGRADED", "DOWN"]
    consecutive_failures: int = Field(
        alias="consecutiveFailures",
        description="The account's failed calls in a row (3 take it DOWN); 0 after a success",
    )
    error_rate: float = Field(
        alias="errorRate", description="Share of the last 20 calls that failed (0 to 1)"
    )
    last_failure: str | None = Field(
        alias="lastFailure",
        description="What went wrong on the account's last failed call, in words; null if "
        "none ever failed",
    )
    last_failure_at: str | None = Field(
        alias="lastFailureAt",
        description="When the last failed call ended (ISO 8601, UTC, milliseconds); null if "
        "none ever failed",
    )
    probe_at: str | None = Field(
        alias="probeAt", description="When a DOWN account is next tried (half-open)"
    )


class ProjectRoutingResource(Resource):
    strategy: Strategy = Field(
        description="How a new intent without `providerId` picks its provider: "
        "FIRST_ELIGIBLE (catalog order, the default) or BEST_PRICE (the quote that nets "
        "the most at the destination)"
    )
    providers: list[ProviderHealthResource] = Field(
        description="Each provider account the project routes through, with its health, in "
        "routing order (catalog order of the provider, then priority, then name)"
    )
