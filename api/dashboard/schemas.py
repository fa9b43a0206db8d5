"""Bodies and resources of the admin API (camelCase on the wire, like the public API)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field, StrictBool, StrictStr

from api.schemas.core import RequestBody, Resource
from ramp.config import Environment
from ramp.organizations.access import Role
from ramp.timestamps import Timestamp

Name = Annotated[StrictStr, Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]*$")]
Email = Annotated[StrictStr, Field(min_length=3, max_length=320)]


class CreateProject(RequestBody):
    name: Name
    environment: Annotated[Environment, Field(strict=False)] | None = Field(
        default=None, description="The service's own environment if omitted"
    )


class RotateClientSecret(RequestBody):
    grace_hours: Annotated[float, Field(ge=0, le=168, strict=False)] = Field(
        default=24.0,
        alias="graceHours",
        description="How long the current secret keeps working beside the new one",
    )
    force: StrictBool = False


class TrustIssuer(RequestBody):
    issuer: Annotated[StrictStr, Field(min_length=1, max_length=500)]
    audiences: Annotated[list[Annotated[StrictStr, Field(min_length=1)]], Field(min_length=1)]
    jwks_url: Annotated[StrictStr, Field(min_length=1, max_length=1000)] = Field(alias="jwksUrl")


class CreateInvite(RequestBody):
    email: Email
    role: Annotated[Role, Field(strict=False)]


class ChangeRole(RequestBody):
    role: Annotated[Role, Field(strict=False)]


class CreateApiKey(RequestBody):
    name: Name
    role: Annotated[Role, Field(strict=False)]


class AdminProjectResource(Resource):
    id: str
    organization_id: str = Field(alias="organizationId")
    name: str
    environment: Environment
    client_id: str = Field(alias="clientId")
    previous_secret_valid_until: Timestamp | None = Field(alias="previousSecretValidUntil")
    onboarding_origins: list[str] = Field(alias="onboardingOrigins")
    created_at: Timestamp = Field(alias="createdAt")


class NewProjectResource(Resource):
    """The client secret appears here once, and never again."""

    organization_id: str = Field(alias="organizationId")
    project_id: str = Field(alias="projectId")
    client_id: str = Field(alias="clientId")
    client_secret: str = Field(alias="clientSecret")


class RotatedSecretResource(Resource):
    project_id: str = Field(alias="projectId")
    client_id: str = Field(alias="clientId")
    client_secret: str = Field(alias="clientSecret")
    previous_secret_valid_until: str | None = Field(alias="previousSecretValidUntil")


class TrustedIssuerResource(Resource):
    id: str
    issuer: str
    audiences: list[str]
    jwks_url: str = Field(alias="jwksUrl")
    created_at: Timestamp = Field(alias="createdAt")


class MemberResource(Resource):
    id: str
    email: str
    role: Role
    totp_enabled: bool = Field(alias="totpEnabled")
    created_at: Timestamp = Field(alias="createdAt")


class InviteResource(Resource):
    """`url` is shown once: only its hash is stored."""

    id: str
    email: str
    role: Role
    url: str


class OpenInviteResource(Resource):
    """An invite not used yet (its link is never shown again)."""

    id: str
    email: str
    role: Role
    expires_at: Timestamp = Field(alias="expiresAt")


class ApiKeyResource(Resource):
    id: str
    name: str
    role: Role
    prefix: str
    created_at: Timestamp = Field(alias="createdAt")
    revoked_at: Timestamp | None = Field(alias="revokedAt")
    last_used_at: Timestamp | None = Field(alias="lastUsedAt")


class NewApiKeyResource(ApiKeyResource):
    key: str = Field(description="Shown once: `Authorization: Bearer <key>`")


class AuditEventResource(Resource):
    id: str
    project_id: str | None = Field(alias="projectId")
    actor: str
    action: str
    target: str
    details: dict[str, Any]
    ip: str
    created_at: Timestamp = Field(alias="createdAt")


class IntentSummaryResource(Resource):
    id: str
    status: str
    customer_id: str = Field(alias="customerId")
    provider_code: str = Field(alias="providerCode")
    amount: str
    currency_code: str = Field(alias="currencyCode")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class SessionResource(Resource):
    """Who the caller is; `csrfToken` goes in the X-CSRF-Token header of every call that
    changes state (null for an API key, which needs none)."""

    organization_id: str = Field(alias="organizationId")
    actor: str
    role: Role
    csrf_token: str | None = Field(alias="csrfToken")


class ProjectProviderResource(Resource):
    """A provider of the project: its status and why, the masked hint of stored
    credentials (never the credentials), and the schema of the credentials it takes."""

    provider: str
    name: str
    mock: bool
    status: str = Field(description="HEALTHY, UNHEALTHY, DISABLED or NOT_CONNECTED")
    status_reason: str | None = Field(alias="statusReason")
    credentials_hint: str | None = Field(alias="credentialsHint")
    routing: bool = Field(description="Whether it takes part in the project's routing now")
    credentials_schema: dict[str, Any] | None = Field(alias="credentialsSchema")


class ConnectProvider(RequestBody):
    credentials: dict[str, Any]
    name: (
        Annotated[
            StrictStr, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
        ]
        | None
    ) = Field(
        default=None,
        description="The account's name, to hold several accounts of this provider: the "
        "account of that name is set (created if new). Without it: the account named "
        "`default`. The answer stays the provider's (its `default` account, else its first "
        "by priority); `GET .../provider-accounts` lists each account",
    )
    priority: Annotated[int, Field(ge=0, le=1_000_000, strict=True)] | None = Field(
        default=None,
        description="Routing priority among the provider's accounts, lower first (a new "
        "account: 100; an existing one keeps its own unless given)",
    )
    totp_code: Annotated[StrictStr, Field(max_length=10)] | None = Field(
        default=None, alias="totpCode", description="Required once the organization requires TOTP"
    )


class ProjectProviderAccountResource(Resource):
    """One provider account of the project (a project may hold several of a provider):
    routing tries a provider's accounts by priority, then name."""

    provider_account_id: str = Field(
        alias="providerAccountId",
        description="Id of the provider account (an intent's `mmPlan.providerAccountId`)",
    )
    provider: str = Field(description="The provider's code, e.g. BRIDGE")
    name: str = Field(description="Unique within the project and provider; `default` unless named")
    priority: int = Field(description="Lower routes first among the provider's accounts")
    status: str = Field(description="HEALTHY, UNHEALTHY (credentials refused) or DISABLED")
    status_reason: str | None = Field(
        alias="statusReason", description="Why it is UNHEALTHY or DISABLED; null when HEALTHY"
    )
    credentials_hint: str | None = Field(
        alias="credentialsHint",
        description="A masked hint of the stored credentials (never the credentials)",
    )
    health: str = Field(description="From its own calls: HEALTHY, DEGRADED or DOWN")
    routing: bool = Field(description="Whether it takes part in the project's routing now")


class UpdateProviderAccount(RequestBody):
    priority: Annotated[int, Field(ge=0, le=1_000_000, strict=True)] = Field(
        description="Routing priority among the provider's accounts, lower first"
    )


class SecuritySettings(RequestBody):
    totp_required: StrictBool = Field(alias="totpRequired")


class SecuritySettingsResource(Resource):
    totp_required: bool = Field(alias="totpRequired")


class RouteAvailabilityResource(Resource):
    """A route of the catalog: available when one of its providers routes for the
    project; otherwise `reason` says why not, provider by provider."""

    from_code: str = Field(alias="from")
    to_code: str = Field(alias="to")
    available: bool
    providers: list[str]
    reason: str | None


class PartnerFeeBody(RequestBody):
    bps: Annotated[int, Field(ge=0, le=1000, strict=True)] = Field(
        description="The project's fee in basis points of the source amount (0 removes it)"
    )


class PartnerFeeResource(Resource):
    bps: int
