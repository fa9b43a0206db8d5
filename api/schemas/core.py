"""Request bodies and response resources of the public API (camelCase on the wire):
the base classes, customers, the catalog, external accounts and intents."""

from __future__ import annotations

from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    StrictStr,
    WithJsonSchema,
)

from ramp.catalog import AccountType, CurrencyType, MovementType, Rail, all_currencies
from ramp.identity.wallet import MAX_MESSAGE_LENGTH
from ramp.intents.models import (
    Receipt,
    TransactionContext,
)
from ramp.intents.states import (
    IntentStatus,
    PlanStatus,
    ProviderEventType,
    StepOutcome,
    StepStatus,
    TransactionStatus,
)
from ramp.money import Amount
from ramp.timestamps import Timestamp

# Currency codes are catalog data: the OpenAPI document lists them as the enum
# `CurrencyCode`; validation stays with the catalog (UNSUPPORTED_ROUTE names the code).
CURRENCY_CODE_SCHEMA = {
    "type": "string",
    "title": "CurrencyCode",
    "description": "Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.",
    "enum": [currency.code for currency in all_currencies()],
}
CurrencyCode = Annotated[str, WithJsonSchema(CURRENCY_CODE_SCHEMA)]


def printable(value: str) -> str:
    """Printable characters only (str.isprintable): the pattern below, which the OpenAPI
    document shows, stops control characters; this also stops the other separators and
    format characters (U+2028, U+200B, U+FEFF...) that look like nothing in a log or a UI."""
    if not value.isprintable():
        raise ValueError("must hold printable characters only")
    return value


Identifier = Annotated[
    StrictStr,
    Field(min_length=1, max_length=200, pattern=r"^[^\x00-\x1f\x7f]+$"),
    AfterValidator(printable),
]


def absolute_http_url(value: str) -> str:
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an absolute http(s) URL")
    return value


RedirectUrl = Annotated[
    StrictStr,
    Field(max_length=2000, examples=["https://app.example.com/ramp/done"]),
    AfterValidator(absolute_http_url),
]
Reason = Annotated[StrictStr, Field(min_length=1, max_length=500, pattern=r"^[^\x00-\x1f\x7f]+$")]


class RequestBody(BaseModel):
    # Strict: a number is not a string, unknown fields are refused rather than ignored.
    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)


class Resource(BaseModel):
    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)


# --- requests ---------------------------------------------------------------------


class CreateCustomer(RequestBody):
    id: Identifier
    subject_token: Annotated[StrictStr, Field(min_length=1, max_length=8192)] | None = None
    metadata: dict[str, Any] | None = Field(
        default=None,
        description="Free-form JSON object, stored and returned as sent; within the body's "
        "limits (size, nesting) and its rules (no duplicate keys, finite numbers)",
    )


class WalletChallenge(RequestBody):
    message: Annotated[StrictStr, Field(min_length=1, max_length=MAX_MESSAGE_LENGTH)]
    signature: Annotated[StrictStr, Field(min_length=1, max_length=1024)]
    ttl_in_seconds: Annotated[StrictInt, Field(ge=60, le=86400)] = Field(
        default=3600, alias="ttlInSeconds"
    )


class CreateExternalAccounts(RequestBody):
    src: Annotated[
        StrictStr,
        Field(
            min_length=1,
            max_length=32,
            examples=["USD"],
            description="Source currency code (`from` of a route of GET /currencies/supported)",
        ),
    ]
    dest: Annotated[
        StrictStr,
        Field(
            min_length=1,
            max_length=32,
            examples=["USDC_ETHEREUM"],
            description="Destination currency code (`to` of the same route)",
        ),
    ]
    source: dict[str, Any] = Field(
        description="The source account: the `source` schema of "
        "GET /external-accounts/requirements for the route"
    )
    destination: dict[str, Any] = Field(
        description="The destination account: the `destination` schema of "
        "GET /external-accounts/requirements for the route"
    )


class ExecuteIntent(RequestBody):
    """`POST /intent/{intentId}/transaction` takes no fields: send `{}` or no body."""


class SandboxProviderEvent(RequestBody):
    # strict=False: the JSON string names the member (strict mode wants an instance).
    type: ProviderEventType = Field(strict=False)
    reason: Reason | None = None


class SandboxStepOutcome(RequestBody):
    outcome: StepOutcome = Field(strict=False)
    reason: Reason | None = None


# --- responses --------------------------------------------------------------------


class CustomerResource(Resource):
    id: str
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")
    organization_id: str = Field(alias="organizationId")
    project_id: str = Field(alias="projectId")
    metadata: dict[str, Any] | None
    access_token: str | None


class CurrencyResource(Resource):
    id: str
    code: CurrencyCode
    ticker: str
    name: str
    decimals: int
    type: CurrencyType
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class ExternalAccountResource(Resource):
    id: str
    type: AccountType
    label: str | None
    metadata: dict[str, Any]
    currency_id: str = Field(alias="currencyId")
    currency: CurrencyResource
    customer_id: str = Field(alias="customerId")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class ExternalAccountPair(Resource):
    source: ExternalAccountResource
    destination: ExternalAccountResource


class RouteResource(Resource):
    from_code: CurrencyCode = Field(alias="from")
    to_code: CurrencyCode = Field(alias="to")
    provider_ids: list[str] = Field(alias="providerIds")


class AccountSideResource(Resource):
    currencies: list[CurrencyCode]
    account_type: AccountType = Field(alias="accountType")
    rails: list[Rail]
    countries: list[str]


class AmountLimitResource(Resource):
    currency_code: CurrencyCode = Field(alias="currencyCode")
    minimum: str
    maximum: str


class CorridorResource(Resource):
    type: MovementType
    source: AccountSideResource
    destination: AccountSideResource
    limits: list[AmountLimitResource]


class RequirementResource(Resource):
    code: str
    description: str
    depends_on: list[str] = Field(alias="dependsOn")


class ProviderResource(Resource):
    id: str
    code: str
    name: str
    environment: str
    corridors: list[CorridorResource]
    requirements: list[RequirementResource]
    # The project's account at this provider, as its own calls judge it (issue 26).
    status: Literal["HEALTHY", "DEGRADED", "DOWN"] = Field(
        default="HEALTHY",
        description="Health of the project's account at this provider, from its recent "
        "calls: DOWN is out of routing until probed (docs/api.md#provider-health)",
    )


class RequirementsResource(Resource):
    src: CurrencyCode
    dest: CurrencyCode
    source: dict[str, Any]
    destination: dict[str, Any]


class TransferAmountResource(Resource):
    amount: Amount
    currency_code: CurrencyCode = Field(alias="currencyCode")


class ProviderAccountResource(Resource):
    id: str
    provider_code: str = Field(alias="providerCode")
    provider_name: str = Field(alias="providerName")


class ProviderMoveResource(Resource):
    from_provider_code: str = Field(
        alias="fromProviderCode", description="Code of the provider the intent left"
    )
    from_provider_account_id: str = Field(
        alias="fromProviderAccountId", description="Id of the provider account the intent left"
    )
    to_provider_code: str = Field(
        alias="toProviderCode", description="Code of the provider the intent moved to"
    )
    to_provider_account_id: str = Field(
        alias="toProviderAccountId", description="Id of the provider account the intent moved to"
    )
    reason: str = Field(
        description="Why: the left provider's own failure to create the transaction, in words"
    )
    at: Timestamp = Field(description="When the intent moved (ISO 8601, UTC, milliseconds)")


class MoneyMovementPlanResource(Resource):
    id: str
    type: MovementType
    provider_account_id: str = Field(alias="providerAccountId")
    provider_account: ProviderAccountResource = Field(alias="providerAccount")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")
    provider_moves: list[ProviderMoveResource] = Field(
        default_factory=list,
        alias="providerMoves",
        description="Each failover to another provider (its own failure to create the "
        "transaction), oldest first: from which account, to which, and why",
    )


class ComplianceEdgeResource(Resource):
    id: str


class ComplianceStepResource(Resource):
    id: str
    code: str
    description: str
    status: StepStatus
    depends_on: list[str] = Field(alias="dependsOn")
    metadata: dict[str, Any] = Field(
        description="completedBy, submittedAt, verifiedAt; on rejection `reason` and rejectedAt"
    )
    compliance_edge: ComplianceEdgeResource = Field(alias="complianceEdge")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class CompliancePlanResource(Resource):
    id: str
    status: PlanStatus
    current_step_code: str | None = Field(alias="currentStepCode")
    steps: list[ComplianceStepResource] = Field(description="In dependency order")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class IntentResource(Resource):
    id: str
    customer_id: str = Field(alias="customerId")
    src: ExternalAccountResource
    dest: ExternalAccountResource
    status: IntentStatus
    failure_reason: str | None = Field(alias="failureReason")
    current_requirement_code: str | None = Field(alias="currentRequirementCode")
    transfer_amount: TransferAmountResource = Field(alias="transferAmount")
    mm_plan: MoneyMovementPlanResource = Field(alias="mmPlan")
    compliance_plan: CompliancePlanResource = Field(alias="compliancePlan")
    redirect_url: str | None = Field(alias="redirectUrl")
    label: str | None = None
    onboarding_redirect_url: str | None = Field(default=None, alias="onboardingRedirectUrl")
    checkout_redirect_url: str | None = Field(default=None, alias="checkoutRedirectUrl")
    auto_execute: bool = Field(alias="autoExecute")
    expired_at: Timestamp = Field(alias="expiredAt")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class TransactionResource(Resource):
    id: str
    intent_id: str = Field(alias="intentId")
    status: TransactionStatus
    provider_reference: str = Field(alias="providerReference")
    context: TransactionContext
    receipt: Receipt | None = Field(
        default=None,
        description="The price as quoted when the transaction was created (fees in the "
        "source currency); null when no quote was to be had",
    )
    failure_reason: str | None = Field(alias="failureReason")
    last_activity_at: Timestamp = Field(alias="lastActivityAt")
    created_at: Timestamp = Field(alias="createdAt")
    updated_at: Timestamp = Field(alias="updatedAt")


class IntentEnvelope(Resource):
    intent: IntentResource
    frontend_url: str | None = Field(
        alias="frontendUrl", description="Hosted onboarding (with a short-lived token), or null"
    )
    workflow_id: str | None = Field(alias="workflowId")
    transaction: TransactionResource | None


class ProviderEventAccepted(Resource):
    event_id: str = Field(alias="eventId")
    transaction_id: str = Field(alias="transactionId")
    type: ProviderEventType


class StepOutcomeAccepted(Resource):
    intent_id: str = Field(alias="intentId")
    step_code: str = Field(alias="stepCode")
    outcome: StepOutcome


class WalletToken(Resource):
    token: str


class ErrorEnvelope(Resource):
    """Every error response, whatever the status."""

    status_code: int = Field(alias="statusCode")
    error: str = Field(description="HTTP reason phrase")
    code: str = Field(description="Stable machine-readable code")
    message: str = Field(description="Human-readable explanation; may change")
    details: dict[str, Any] = Field(
        description="Context; `fields` lists FieldViolation objects for invalid input"
    )
    request_id: str | None = Field(
        default=None,
        alias="requestId",
        description="This request's id, as in the X-Request-Id response header: quote it "
        "to support (operators find the request's log lines and trace by it)",
    )


class ProviderWebhookBody(BaseModel):
    """The provider's own event (Bridge: `event_id`, `event_category`, `event_type`,
    `event_object`...), verified by its signature header before it is read."""

    model_config = ConfigDict(extra="allow")


class ProviderWebhookReceived(Resource):
    received: int
    duplicates: int
