# ruff: noqa: E501, I001
# mypy: disable-error-code="assignment"
"""Typed bodies of the payment ramp API, generated from its OpenAPI document by
clients/python/generate.py (datamodel-code-generator): do not edit by hand."""

from __future__ import annotations

from typing import Any, Literal
from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, RootModel


class Address(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    line1: str
    line2: str | None = None
    city: str
    region: str | None = None
    postal_code: str = Field(..., alias="postalCode")
    country: str


class AmountLimitResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    currency_code: Literal[
        "USD",
        "EUR",
        "BRL",
        "MXN",
        "GBP",
        "USDC_ETHEREUM",
        "USDC_POLYGON",
        "USDC_BASE",
        "USDC_GNOSIS",
        "USDC_SOLANA",
        "USDT_ETHEREUM",
        "EURC_SOLANA",
        "EURE_GNOSIS",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ] = Field(..., alias="currencyCode")
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    minimum: str
    maximum: str


class AuditEventResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    project_id: str | None = Field(..., alias="projectId")
    actor: str
    action: str
    target: str
    details: dict[str, Any]
    ip: str
    created_at: AwareDatetime = Field(..., alias="createdAt")


class BankDepositInstructions(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    rail: str
    amount: str
    currency_code: str = Field(..., alias="currencyCode")
    beneficiary_name: str = Field(..., alias="beneficiaryName")
    bank_name: str = Field(..., alias="bankName")
    account_identifier: dict[str, str] = Field(..., alias="accountIdentifier")
    reference: str


class ComplianceEdgeResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str


class ConnectProvider(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    credentials: dict[str, Any]
    totp_code: str | None = Field(None, alias="totpCode")
    """
    Required once the organization requires TOTP
    """


class CreateCustomer(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    id: str
    subject_token: str | None = None
    metadata: dict[str, Any] | None = None
    """
    Free-form JSON object, stored and returned as sent; within the body's limits (size, nesting) and its rules (no duplicate keys, finite numbers)
    """


class CreateExternalAccounts(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    src: str
    """
    Source currency code (`from` of a route of GET /currencies/supported)
    """
    dest: str
    """
    Destination currency code (`to` of the same route)
    """
    source: dict[str, Any]
    """
    The source account: the `source` schema of GET /external-accounts/requirements for the route
    """
    destination: dict[str, Any]
    """
    The destination account: the `destination` schema of GET /external-accounts/requirements for the route
    """


class CreateIntent(BaseModel):
    """
    An intent between two accounts registered with POST /customers/external-accounts.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    amount: str
    """
    Decimal string in the source currency; at most its `decimals` places
    """
    provider_id: str | None = Field(None, alias="providerId")
    """
    Preferred provider: one of the route's `providerIds` (GET /currencies/supported); left out, the service picks the first eligible one
    """
    auto_execute: bool | None = Field(False, alias="autoExecute")
    """
    Create the transaction as soon as the compliance plan completes
    """
    redirect_url: str | None = Field(None, alias="redirectUrl")
    """
    Where to send the customer after onboarding (stored, returned)
    """
    label: str | None = None
    """
    Free text for the project's own reference (stored, returned)
    """
    onboarding_redirect_url: str | None = Field(None, alias="onboardingRedirectUrl")
    """
    Where the hosted onboarding sends the customer once it is done; its origin must be one of the project's onboarding origins
    """
    checkout_redirect_url: str | None = Field(None, alias="checkoutRedirectUrl")
    """
    Where the hosted onboarding sends the customer after showing the deposit instructions; its origin must be one of the project's onboarding origins
    """
    src_external_account_id: str = Field(..., alias="srcExternalAccountId")
    """
    Id of the source external account (`source.id` of the registered pair)
    """
    dest_external_account_id: str = Field(..., alias="destExternalAccountId")
    """
    Id of the destination external account (`destination.id` of the pair)
    """


class CreateIntentWithAccounts(BaseModel):
    """
    A one-call intent: the account pair inline, in the body of POST
    /customers/external-accounts (`src`, `dest`, `source`, `destination`), registered as
    that call registers it (the same schemas; errors point into `/source` and
    `/destination`) and reused by a retry with the same Idempotency-Key.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    amount: str
    """
    Decimal string in the source currency; at most its `decimals` places
    """
    provider_id: str | None = Field(None, alias="providerId")
    """
    Preferred provider: one of the route's `providerIds` (GET /currencies/supported); left out, the service picks the first eligible one
    """
    auto_execute: bool | None = Field(False, alias="autoExecute")
    """
    Create the transaction as soon as the compliance plan completes
    """
    redirect_url: str | None = Field(None, alias="redirectUrl")
    """
    Where to send the customer after onboarding (stored, returned)
    """
    label: str | None = None
    """
    Free text for the project's own reference (stored, returned)
    """
    onboarding_redirect_url: str | None = Field(None, alias="onboardingRedirectUrl")
    """
    Where the hosted onboarding sends the customer once it is done; its origin must be one of the project's onboarding origins
    """
    checkout_redirect_url: str | None = Field(None, alias="checkoutRedirectUrl")
    """
    Where the hosted onboarding sends the customer after showing the deposit instructions; its origin must be one of the project's onboarding origins
    """
    src: str
    """
    Source currency code (`from` of a route of GET /currencies/supported)
    """
    dest: str
    """
    Destination currency code (`to` of the same route)
    """
    source: dict[str, Any]
    """
    The source account: the `source` schema of GET /external-accounts/requirements for the route
    """
    destination: dict[str, Any]
    """
    The destination account: the `destination` schema of GET /external-accounts/requirements for the route
    """


class CryptoDepositInstructions(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    address: str
    currency_code: str = Field(..., alias="currencyCode")
    chain: str
    chain_id: int | None = Field(..., alias="chainId")
    amount: str
    amount_in_smallest_unit: str = Field(..., alias="amountInSmallestUnit")
    token_contract: str | None = Field(None, alias="tokenContract")
    memo: str | None = None
    payment_uri: str | None = Field(None, alias="paymentUri")
    encoded_data: str | None = Field(None, alias="encodedData")


class CustomerResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    organization_id: str = Field(..., alias="organizationId")
    project_id: str = Field(..., alias="projectId")
    metadata: dict[str, Any] | None
    access_token: str | None


class DepositInstruction(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    type: Literal["BANK", "CRYPTO"]
    encoding: Literal["DISPLAY"] = "DISPLAY"
    instructions: BankDepositInstructions | CryptoDepositInstructions


class DepositUnmatched(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    customer_id: str = Field(..., alias="customerId")
    transaction_id: str | None = Field(..., alias="transactionId")
    provider_reference: str | None = Field(..., alias="providerReference")
    unmatched_reason: str = Field(..., alias="unmatchedReason")


class Document(BaseModel):
    """
    An uploaded file: base64 of its bytes, with its name and content type.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    filename: str
    content_type: Literal["image/png", "image/jpeg", "application/pdf"] = Field(
        ..., alias="contentType"
    )
    data: str
    """
    Base64 (RFC 4648, with padding) of the file; at most 4194304 bytes once decoded
    """


class ErrorEnvelope(BaseModel):
    """
    Every error response, whatever the status.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    status_code: int = Field(..., alias="statusCode")
    error: str
    """
    HTTP reason phrase
    """
    code: str
    """
    Stable machine-readable code
    """
    message: str
    """
    Human-readable explanation; may change
    """
    details: dict[str, Any]
    """
    Context; `fields` lists FieldViolation objects for invalid input
    """


class ExecuteIntent(BaseModel):
    """
    `POST /intent/{intentId}/transaction` takes no fields: send `{}` or no body.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )


class IdentityDocument(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    document_type: Literal["PASSPORT", "NATIONAL_ID", "DRIVING_LICENCE"] = Field(
        ..., alias="documentType"
    )
    document_number: str = Field(..., alias="documentNumber")
    file: Document


class IntentStatusChanged(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    customer_id: str = Field(..., alias="customerId")
    status: Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] = Field(
        ..., title="IntentStatus"
    )
    previous_status: (
        Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] | None
    ) = Field(..., alias="previousStatus")
    failure_reason: str | None = Field(..., alias="failureReason")


class IntentSummaryResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    status: str
    customer_id: str = Field(..., alias="customerId")
    provider_code: str = Field(..., alias="providerCode")
    amount: str
    currency_code: str = Field(..., alias="currencyCode")
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class KycBasicSubmission(BaseModel):
    """
    KYC_BASIC: identity of the customer, with a government ID.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    first_name: str = Field(..., alias="firstName")
    last_name: str = Field(..., alias="lastName")
    date_of_birth: str = Field(..., alias="dateOfBirth")
    """
    YYYY-MM-DD; the customer is 18 or older
    """
    nationality: str
    address: Address
    id_document: IdentityDocument = Field(..., alias="idDocument")


class KycEnhancedSubmission(BaseModel):
    """
    KYC_ENHANCED: occupation and a selfie (the sandbox's stand-in for a liveness check).
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    occupation: str
    employer: str | None = None
    selfie: Document


class NewProjectResource(BaseModel):
    """
    The client secret appears here once, and never again.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    organization_id: str = Field(..., alias="organizationId")
    project_id: str = Field(..., alias="projectId")
    client_id: str = Field(..., alias="clientId")
    client_secret: str = Field(..., alias="clientSecret")


class OnboardingDepositInstruction(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    type: Literal["BANK", "CRYPTO"]
    instructions: BankDepositInstructions | CryptoDepositInstructions
    qr_code: str | None = Field(..., alias="qrCode")
    """
    Crypto: a QR code of the deposit address, as an SVG data URI
    """


class OnboardingField(BaseModel):
    """
    One input of a step's form; the page renders the fields in this order.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    name: str
    """
    The field's path in the request body, dotted
    """
    kind: Literal["text", "textarea", "date", "country", "select", "file", "checkbox"]
    required: bool
    options: list[str]
    """
    Allowed values (select, country)
    """
    max_length: int | None = Field(..., alias="maxLength")
    accept: list[str]
    """
    Accepted content types (file)
    """
    max_bytes: int | None = Field(..., alias="maxBytes")
    """
    Largest file, decoded
    """
    autocomplete: str | None


class OnboardingHandoff(BaseModel):
    """
    A step the customer completes in the provider's own hosted flow.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    mode: Literal["LINK", "WAIT"]
    url: str | None
    """
    LINK: the provider's page for this step
    """
    embeddable: bool
    """
    Whether the provider allows it in an iframe
    """


class OnboardingOrigins(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    origins: list[str]
    """
    scheme://host[:port]; `:*` (any port) only on localhost
    """


class OnboardingOriginsResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    origins: list[str]


class OnboardingProvider(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    code: str
    name: str


class OnboardingTerms(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    version: str
    """
    Send it back as `termsVersion` when accepting
    """
    title: str
    paragraphs: list[str]


class PartnerFeeBody(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    bps: int
    """
    The project's fee in basis points of the source amount (0 removes it)
    """


class PartnerFeeResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    bps: int


class ProjectProviderResource(BaseModel):
    """
    A provider of the project: its status and why, the masked hint of stored
    credentials (never the credentials), and the schema of the credentials it takes.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider: str
    name: str
    mock: bool
    status: str
    """
    HEALTHY, UNHEALTHY, DISABLED or NOT_CONNECTED
    """
    status_reason: str | None = Field(..., alias="statusReason")
    credentials_hint: str | None = Field(..., alias="credentialsHint")
    routing: bool
    """
    Whether it takes part in the project's routing now
    """
    credentials_schema: dict[str, Any] | None = Field(..., alias="credentialsSchema")


class ProofOfAddressSubmission(BaseModel):
    """
    PROOF_OF_ADDRESS: a recent bill or statement naming the customer's address.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    document_type: Literal["UTILITY_BILL", "BANK_STATEMENT", "TAX_NOTICE"] = Field(
        ..., alias="documentType"
    )
    issuer: str
    issue_date: str = Field(..., alias="issueDate")
    """
    YYYY-MM-DD, within the last 12 months
    """
    file: Document


class ProviderAccountResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    provider_code: str = Field(..., alias="providerCode")
    provider_name: str = Field(..., alias="providerName")


class ProviderWebhookBody(BaseModel):
    """
    The provider's own event (Bridge: `event_id`, `event_category`, `event_type`,
    `event_object`...), verified by its signature header before it is read.
    """

    model_config = ConfigDict(
        extra="allow",
        populate_by_name=True,
    )


class ProviderWebhookReceived(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    received: int
    duplicates: int


class QuoteFeesResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    currency_code: str = Field(..., alias="currencyCode")
    network_fee: str = Field(..., alias="networkFee")
    processing_fee: str = Field(..., alias="processingFee")
    partner_fee: str = Field(..., alias="partnerFee")
    total_fee: str = Field(..., alias="totalFee")


class ReceiptFees(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    network_fee: str = Field(..., alias="networkFee")
    processing_fee: str = Field(..., alias="processingFee")
    partner_fee: str = Field(..., alias="partnerFee")
    total_fee: str = Field(..., alias="totalFee")


class RequirementResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    code: str
    description: str
    depends_on: list[str] = Field(..., alias="dependsOn")


class RequirementsResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    src: Literal[
        "USD",
        "EUR",
        "BRL",
        "MXN",
        "GBP",
        "USDC_ETHEREUM",
        "USDC_POLYGON",
        "USDC_BASE",
        "USDC_GNOSIS",
        "USDC_SOLANA",
        "USDT_ETHEREUM",
        "EURC_SOLANA",
        "EURE_GNOSIS",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ]
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    dest: Literal[
        "USD",
        "EUR",
        "BRL",
        "MXN",
        "GBP",
        "USDC_ETHEREUM",
        "USDC_POLYGON",
        "USDC_BASE",
        "USDC_GNOSIS",
        "USDC_SOLANA",
        "USDT_ETHEREUM",
        "EURC_SOLANA",
        "EURE_GNOSIS",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ]
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    source: dict[str, Any]
    destination: dict[str, Any]


class RotateClientSecret(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    grace_hours: float | None = Field(24.0, alias="graceHours")
    """
    How long the current secret keeps working beside the new one
    """
    force: bool | None = False


class RotatedSecretResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    project_id: str = Field(..., alias="projectId")
    client_id: str = Field(..., alias="clientId")
    client_secret: str = Field(..., alias="clientSecret")
    previous_secret_valid_until: str | None = Field(..., alias="previousSecretValidUntil")


class RouteAvailabilityResource(BaseModel):
    """
    A route of the catalog: available when one of its providers routes for the
    project; otherwise `reason` says why not, provider by provider.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    from_: str = Field(..., alias="from")
    to: str
    available: bool
    providers: list[str]
    reason: str | None


class RouteResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    from_: Literal[
        "USD",
        "EUR",
        "BRL",
        "MXN",
        "GBP",
        "USDC_ETHEREUM",
        "USDC_POLYGON",
        "USDC_BASE",
        "USDC_GNOSIS",
        "USDC_SOLANA",
        "USDT_ETHEREUM",
        "EURC_SOLANA",
        "EURE_GNOSIS",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ] = Field(..., alias="from")
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    to: Literal[
        "USD",
        "EUR",
        "BRL",
        "MXN",
        "GBP",
        "USDC_ETHEREUM",
        "USDC_POLYGON",
        "USDC_BASE",
        "USDC_GNOSIS",
        "USDC_SOLANA",
        "USDT_ETHEREUM",
        "EURC_SOLANA",
        "EURE_GNOSIS",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ]
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    provider_ids: list[str] = Field(..., alias="providerIds")


class SandboxProviderEvent(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    type: Literal[
        "DEPOSIT_RECEIVED", "PAYOUT_SENT", "SETTLED", "FAILED", "RETURNED", "CANCELLED"
    ] = Field(..., title="ProviderEventType")
    """
    Progress a provider reports for a transaction.
    """
    reason: str | None = None


class SecuritySettings(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    totp_required: bool = Field(..., alias="totpRequired")


class SecuritySettingsResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    totp_required: bool = Field(..., alias="totpRequired")


class SessionResource(BaseModel):
    """
    Who the caller is; `csrfToken` goes in the X-CSRF-Token header of every call that
    changes state (null for an API key, which needs none).
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    organization_id: str = Field(..., alias="organizationId")
    actor: str
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    csrf_token: str | None = Field(..., alias="csrfToken")


class SourceOfFundsSubmission(BaseModel):
    """
    SOURCE_OF_FUNDS: where the money comes from; evidence for large amounts.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    source: Literal[
        "SALARY", "SAVINGS", "BUSINESS_INCOME", "INVESTMENTS", "INHERITANCE", "SALE_OF_ASSETS"
    ]
    description: str
    evidence: Document | None = None


class StepOutcomeAccepted(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    step_code: str = Field(..., alias="stepCode")
    outcome: Literal["SUBMITTED", "VERIFIED", "REJECTED"] = Field(..., title="StepOutcome")
    """
    What the hosted onboarding (or the verification behind it) reports for a step.
    """


class TermsOfServiceSubmission(BaseModel):
    """
    TERMS_OF_SERVICE: the customer accepts the provider's terms, in a given version.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    accepted: bool
    """
    Must be true
    """
    terms_version: str = Field(..., alias="termsVersion")
    """
    The `terms.version` the customer was shown
    """


class TransactionContext(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    deposit_instructions: list[DepositInstruction] = Field(..., alias="depositInstructions")


class TransferAmountResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    amount: str
    currency_code: Literal[
        "USD",
        "EUR",
        "BRL",
        "MXN",
        "GBP",
        "USDC_ETHEREUM",
        "USDC_POLYGON",
        "USDC_BASE",
        "USDC_GNOSIS",
        "USDC_SOLANA",
        "USDT_ETHEREUM",
        "EURC_SOLANA",
        "EURE_GNOSIS",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ] = Field(..., alias="currencyCode")
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """


class TrustIssuer(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    issuer: str
    audiences: list[str]
    jwks_url: str = Field(..., alias="jwksUrl")


class TrustedIssuerResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    issuer: str
    audiences: list[str]
    jwks_url: str = Field(..., alias="jwksUrl")
    created_at: AwareDatetime = Field(..., alias="createdAt")


class UnavailableQuoteResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider_id: str = Field(..., alias="providerId")
    provider_code: str = Field(..., alias="providerCode")
    rail: Literal["ACH", "WIRE", "SEPA", "PIX", "SPEI", "FPS"]
    reason: str
    """
    TIMEOUT, PROVIDER_ERROR, NOT_SUPPORTED, AMOUNT_OUT_OF_RANGE or AMOUNT_TOO_SMALL
    """
    message: str


class WalletChallenge(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    message: str
    signature: str
    ttl_in_seconds: int | None = Field(3600, alias="ttlInSeconds")


class WalletToken(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    token: str


class WebhookAttemptResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    number: int
    attempted_at: AwareDatetime = Field(..., alias="attemptedAt")
    status_code: int | None = Field(..., alias="statusCode")
    """
    null: no HTTP answer
    """
    latency_ms: int = Field(..., alias="latencyMs")
    error: str | None


class WebhookRecoveryResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    endpoint_id: str = Field(..., alias="endpointId")
    since: AwareDatetime
    resent: int
    """
    Events sent again, each as a new delivery (`redeliveryOf` names the last failed one) on the full retry schedule
    """


class CurrencyCode(
    RootModel[
        Literal[
            "USD",
            "EUR",
            "BRL",
            "MXN",
            "GBP",
            "USDC_ETHEREUM",
            "USDC_POLYGON",
            "USDC_BASE",
            "USDC_GNOSIS",
            "USDC_SOLANA",
            "USDT_ETHEREUM",
            "EURC_SOLANA",
            "EURE_GNOSIS",
            "ETH_ETHEREUM",
            "BTC_BITCOIN",
        ]
    ]
):
    root: Literal[
        "USD",
        "EUR",
        "BRL",
        "MXN",
        "GBP",
        "USDC_ETHEREUM",
        "USDC_POLYGON",
        "USDC_BASE",
        "USDC_GNOSIS",
        "USDC_SOLANA",
        "USDT_ETHEREUM",
        "EURC_SOLANA",
        "EURE_GNOSIS",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ] = Field(..., title="CurrencyCode")
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """


class AccountSideResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    currencies: list[
        Literal[
            "USD",
            "EUR",
            "BRL",
            "MXN",
            "GBP",
            "USDC_ETHEREUM",
            "USDC_POLYGON",
            "USDC_BASE",
            "USDC_GNOSIS",
            "USDC_SOLANA",
            "USDT_ETHEREUM",
            "EURC_SOLANA",
            "EURE_GNOSIS",
            "ETH_ETHEREUM",
            "BTC_BITCOIN",
        ]
    ]
    account_type: Literal["BANK_ACCOUNT", "CRYPTO_ADDRESS"] = Field(
        ..., alias="accountType", title="AccountType"
    )
    rails: list[Literal["ACH", "WIRE", "SEPA", "PIX", "SPEI", "FPS"]]
    countries: list[str]


class AdminProjectResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    organization_id: str = Field(..., alias="organizationId")
    name: str
    environment: Literal["sandbox", "production"] = Field(..., title="Environment")
    client_id: str = Field(..., alias="clientId")
    previous_secret_valid_until: AwareDatetime | None = Field(..., alias="previousSecretValidUntil")
    onboarding_origins: list[str] = Field(..., alias="onboardingOrigins")
    created_at: AwareDatetime = Field(..., alias="createdAt")


class ApiKeyResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    name: str
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    prefix: str
    created_at: AwareDatetime = Field(..., alias="createdAt")
    revoked_at: AwareDatetime | None = Field(..., alias="revokedAt")
    last_used_at: AwareDatetime | None = Field(..., alias="lastUsedAt")


class ChangeRole(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")


class ComplianceStepResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    code: str
    description: str
    status: Literal["PENDING", "SUBMITTED", "COMPLETED", "REJECTED"] = Field(
        ..., title="StepStatus"
    )
    depends_on: list[str] = Field(..., alias="dependsOn")
    metadata: dict[str, Any]
    """
    completedBy, submittedAt, verifiedAt; on rejection `reason` and rejectedAt
    """
    compliance_edge: ComplianceEdgeResource = Field(..., alias="complianceEdge")
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class ComplianceUpdated(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    customer_id: str = Field(..., alias="customerId")
    requirement_code: str = Field(..., alias="requirementCode")
    status: Literal["PENDING", "SUBMITTED", "COMPLETED", "REJECTED"] = Field(
        ..., title="StepStatus"
    )
    previous_status: Literal["PENDING", "SUBMITTED", "COMPLETED", "REJECTED"] | None = Field(
        ..., alias="previousStatus"
    )


class CorridorResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    type: Literal["ONRAMP", "OFFRAMP"] = Field(..., title="MovementType")
    source: AccountSideResource
    destination: AccountSideResource
    limits: list[AmountLimitResource]


class CreateApiKey(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    name: str
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")


class CreateIntentBody(RootModel[CreateIntent | CreateIntentWithAccounts]):
    root: CreateIntent | CreateIntentWithAccounts = Field(..., title="CreateIntentBody")
    """
    The body of POST /intent: the ids of a registered account pair (CreateIntent), or
    the pair itself inline (CreateIntentWithAccounts).
    """


class CreateInvite(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    email: str
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")


class CreateProject(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    name: str
    environment: Literal["sandbox", "production"] | None = None
    """
    The service's own environment if omitted
    """


class CreateWebhookEndpoint(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    url: str
    event_types: (
        list[
            Literal[
                "INTENT_STATUS_CHANGED",
                "COMPLIANCE_UPDATED",
                "MONEY_MOVEMENT_UPDATED",
                "DEPOSIT_UNMATCHED",
            ]
        ]
        | None
    ) = Field(
        [
            "INTENT_STATUS_CHANGED",
            "COMPLIANCE_UPDATED",
            "MONEY_MOVEMENT_UPDATED",
            "DEPOSIT_UNMATCHED",
        ],
        alias="eventTypes",
    )
    """
    The event types the endpoint receives
    """
    description: str | None = None
    enabled: bool | None = True


class CurrencyResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    code: Literal[
        "USD",
        "EUR",
        "BRL",
        "MXN",
        "GBP",
        "USDC_ETHEREUM",
        "USDC_POLYGON",
        "USDC_BASE",
        "USDC_GNOSIS",
        "USDC_SOLANA",
        "USDT_ETHEREUM",
        "EURC_SOLANA",
        "EURE_GNOSIS",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ]
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    ticker: str
    name: str
    decimals: int
    type: Literal["FIAT", "CRYPTO"] = Field(..., title="CurrencyType")
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class ExternalAccountResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    type: Literal["BANK_ACCOUNT", "CRYPTO_ADDRESS"] = Field(..., title="AccountType")
    label: str | None
    metadata: dict[str, Any]
    currency_id: str = Field(..., alias="currencyId")
    currency: CurrencyResource
    customer_id: str = Field(..., alias="customerId")
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class InviteResource(BaseModel):
    """
    `url` is shown once: only its hash is stored.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    email: str
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    url: str


class MemberResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    email: str
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    totp_enabled: bool = Field(..., alias="totpEnabled")
    created_at: AwareDatetime = Field(..., alias="createdAt")


class MoneyMovementPlanResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    type: Literal["ONRAMP", "OFFRAMP"] = Field(..., title="MovementType")
    provider_account_id: str = Field(..., alias="providerAccountId")
    provider_account: ProviderAccountResource = Field(..., alias="providerAccount")
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class MoneyMovementUpdated(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    customer_id: str = Field(..., alias="customerId")
    transaction_id: str = Field(..., alias="transactionId")
    status: Literal["PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELLED"] = Field(
        ..., title="TransactionStatus"
    )
    previous_status: Literal["PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELLED"] | None = (
        Field(..., alias="previousStatus")
    )
    provider_reference: str = Field(..., alias="providerReference")


class NewApiKeyResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    name: str
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    prefix: str
    created_at: AwareDatetime = Field(..., alias="createdAt")
    revoked_at: AwareDatetime | None = Field(..., alias="revokedAt")
    last_used_at: AwareDatetime | None = Field(..., alias="lastUsedAt")
    key: str
    """
    Shown once: `Authorization: Bearer <key>`
    """


class OnboardingStep(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    code: str
    description: str
    status: Literal["PENDING", "SUBMITTED", "COMPLETED", "REJECTED"] = Field(
        ..., title="StepStatus"
    )
    depends_on: list[str] = Field(..., alias="dependsOn")
    completed_by: str | None = Field(..., alias="completedBy")
    """
    RECORD (already on record) or ONBOARDING
    """
    reason: str | None
    """
    Why the step was rejected
    """
    fields: list[OnboardingField] | None
    """
    The form of the step; null when the page has none for it
    """
    terms: OnboardingTerms | None
    """
    TERMS_OF_SERVICE: the terms to accept
    """
    handoff: OnboardingHandoff | None = None
    """
    Set when the provider collects this step itself (its hosted flow); the page then shows no form and follows the step's status
    """


class OnboardingTransaction(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    status: Literal["PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELLED"] = Field(
        ..., title="TransactionStatus"
    )
    deposit_instructions: list[OnboardingDepositInstruction] = Field(
        ..., alias="depositInstructions"
    )


class OpenInviteResource(BaseModel):
    """
    An invite not used yet (its link is never shown again).
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    email: str
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    expires_at: AwareDatetime = Field(..., alias="expiresAt")


class ProviderEventAccepted(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    event_id: str = Field(..., alias="eventId")
    transaction_id: str = Field(..., alias="transactionId")
    type: Literal[
        "DEPOSIT_RECEIVED", "PAYOUT_SENT", "SETTLED", "FAILED", "RETURNED", "CANCELLED"
    ] = Field(..., title="ProviderEventType")
    """
    Progress a provider reports for a transaction.
    """


class ProviderResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    code: str
    name: str
    environment: str
    corridors: list[CorridorResource]
    requirements: list[RequirementResource]


class QuoteResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider_id: str = Field(..., alias="providerId")
    provider_code: str = Field(..., alias="providerCode")
    type: Literal["ONRAMP", "OFFRAMP"] = Field(..., title="MovementType")
    rail: Literal["ACH", "WIRE", "SEPA", "PIX", "SPEI", "FPS"]
    src_currency_code: str = Field(..., alias="srcCurrencyCode")
    dest_currency_code: str = Field(..., alias="destCurrencyCode")
    src_amount: str = Field(..., alias="srcAmount")
    dest_amount: str = Field(..., alias="destAmount")
    exchange_rate: str = Field(..., alias="exchangeRate")
    """
    Destination units per source unit
    """
    fees: QuoteFeesResource
    expires_at: AwareDatetime | None = Field(..., alias="expiresAt")
    has_indicative_price: bool = Field(..., alias="hasIndicativePrice")


class QuotesResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    quotes: list[QuoteResource]
    unavailable: list[UnavailableQuoteResource]


class Receipt(BaseModel):
    """
    The price of a transaction as quoted when it was created (ramp/quotes/receipt.py):
    what the customer sends, the fees (in the source currency), what should arrive.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    initial_amount: str = Field(..., alias="initialAmount")
    currency_code: str = Field(..., alias="currencyCode")
    fees: ReceiptFees
    exchange_rate: str = Field(..., alias="exchangeRate")
    expected_final_amount: str = Field(..., alias="expectedFinalAmount")
    final_currency_code: str = Field(..., alias="finalCurrencyCode")
    indicative: bool | None = True


class SandboxStepOutcome(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    outcome: Literal["SUBMITTED", "VERIFIED", "REJECTED"] = Field(..., title="StepOutcome")
    """
    What the hosted onboarding (or the verification behind it) reports for a step.
    """
    reason: str | None = None


class TransactionResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    intent_id: str = Field(..., alias="intentId")
    status: Literal["PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELLED"] = Field(
        ..., title="TransactionStatus"
    )
    provider_reference: str = Field(..., alias="providerReference")
    context: TransactionContext
    receipt: Receipt | None = None
    """
    The price as quoted when the transaction was created (fees in the source currency); null when no quote was to be had
    """
    failure_reason: str | None = Field(..., alias="failureReason")
    last_activity_at: AwareDatetime = Field(..., alias="lastActivityAt")
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class UpdateWebhookEndpoint(BaseModel):
    """
    Only the fields given change. Enabling an endpoint clears `disabledReason`.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    url: str | None = None
    event_types: (
        list[
            Literal[
                "INTENT_STATUS_CHANGED",
                "COMPLIANCE_UPDATED",
                "MONEY_MOVEMENT_UPDATED",
                "DEPOSIT_UNMATCHED",
            ]
        ]
        | None
    ) = Field(None, alias="eventTypes")
    description: str | None = None
    enabled: bool | None = None


class WebhookDeliveryResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    event_id: str = Field(..., alias="eventId")
    event_type: Literal[
        "INTENT_STATUS_CHANGED", "COMPLIANCE_UPDATED", "MONEY_MOVEMENT_UPDATED", "DEPOSIT_UNMATCHED"
    ] = Field(..., alias="eventType", title="WebhookEventType")
    endpoint_id: str = Field(..., alias="endpointId")
    intent_id: str = Field(..., alias="intentId")
    url: str
    status: Literal["PENDING", "RETRYING", "SUCCEEDED", "EXHAUSTED", "GONE", "CANCELLED"] = Field(
        ..., title="DeliveryStatus"
    )
    attempt_count: int = Field(..., alias="attemptCount")
    max_attempts: int = Field(..., alias="maxAttempts")
    last_status_code: int | None = Field(..., alias="lastStatusCode")
    last_error: str | None = Field(..., alias="lastError")
    next_attempt_at: AwareDatetime | None = Field(..., alias="nextAttemptAt")
    redelivery_of: str | None = Field(..., alias="redeliveryOf")
    """
    The delivery this one sends again, if any
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    attempts: list[WebhookAttemptResource]


class WebhookEndpointResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    url: str
    event_types: list[
        Literal[
            "INTENT_STATUS_CHANGED",
            "COMPLIANCE_UPDATED",
            "MONEY_MOVEMENT_UPDATED",
            "DEPOSIT_UNMATCHED",
        ]
    ] = Field(..., alias="eventTypes")
    enabled: bool
    disabled_reason: str | None = Field(..., alias="disabledReason")
    description: str | None
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class WebhookEvent(BaseModel):
    """
    The envelope every webhook carries.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    event_id: str = Field(..., alias="eventId")
    event_type: Literal[
        "INTENT_STATUS_CHANGED", "COMPLIANCE_UPDATED", "MONEY_MOVEMENT_UPDATED", "DEPOSIT_UNMATCHED"
    ] = Field(..., alias="eventType", title="WebhookEventType")
    timestamp: AwareDatetime
    project_id: str = Field(..., alias="projectId")
    data: IntentStatusChanged | ComplianceUpdated | MoneyMovementUpdated | DepositUnmatched


class CompliancePlanResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    status: Literal["PENDING", "COMPLETED", "FAILED"] = Field(..., title="PlanStatus")
    current_step_code: str | None = Field(..., alias="currentStepCode")
    steps: list[ComplianceStepResource]
    """
    In dependency order
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class ExternalAccountPair(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    source: ExternalAccountResource
    destination: ExternalAccountResource


class IntentResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    customer_id: str = Field(..., alias="customerId")
    src: ExternalAccountResource
    dest: ExternalAccountResource
    status: Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] = Field(
        ..., title="IntentStatus"
    )
    failure_reason: str | None = Field(..., alias="failureReason")
    current_requirement_code: str | None = Field(..., alias="currentRequirementCode")
    transfer_amount: TransferAmountResource = Field(..., alias="transferAmount")
    mm_plan: MoneyMovementPlanResource = Field(..., alias="mmPlan")
    compliance_plan: CompliancePlanResource = Field(..., alias="compliancePlan")
    redirect_url: str | None = Field(..., alias="redirectUrl")
    label: str | None = None
    onboarding_redirect_url: str | None = Field(None, alias="onboardingRedirectUrl")
    checkout_redirect_url: str | None = Field(None, alias="checkoutRedirectUrl")
    auto_execute: bool = Field(..., alias="autoExecute")
    expired_at: AwareDatetime = Field(..., alias="expiredAt")
    created_at: AwareDatetime = Field(..., alias="createdAt")
    updated_at: AwareDatetime = Field(..., alias="updatedAt")


class OnboardingResource(BaseModel):
    """
    An intent's onboarding as its customer sees it: what the hosted page renders.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    status: Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] = Field(
        ..., title="IntentStatus"
    )
    failure_reason: str | None = Field(..., alias="failureReason")
    plan_status: Literal["PENDING", "COMPLETED", "FAILED"] = Field(
        ..., alias="planStatus", title="PlanStatus"
    )
    current_step_code: str | None = Field(..., alias="currentStepCode")
    """
    The step to submit next (null: none is open)
    """
    provider: OnboardingProvider
    transfer_amount: TransferAmountResource = Field(..., alias="transferAmount")
    auto_execute: bool = Field(..., alias="autoExecute")
    redirect_url: str | None = Field(..., alias="redirectUrl")
    embed_origins: list[str] = Field(..., alias="embedOrigins")
    """
    Origins that may embed the page: the only targets of its postMessage
    """
    steps: list[OnboardingStep]
    """
    In the plan's order
    """
    transaction: OnboardingTransaction | None
    """
    Present once the transaction exists: deposit instructions
    """
    expired_at: AwareDatetime = Field(..., alias="expiredAt")


class IntentEnvelope(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    intent: IntentResource
    frontend_url: str | None = Field(..., alias="frontendUrl")
    """
    Hosted onboarding (with a short-lived token), or null
    """
    workflow_id: str | None = Field(..., alias="workflowId")
    transaction: TransactionResource | None
