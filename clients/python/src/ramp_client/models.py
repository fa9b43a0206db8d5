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
    """
    Street and number
    """
    line2: str | None = None
    """
    Apartment, floor...
    """
    city: str
    """
    City
    """
    region: str | None = None
    """
    State, province or region
    """
    postal_code: str = Field(..., alias="postalCode")
    """
    Postal code
    """
    country: str
    """
    ISO 3166-1 alpha-2 country code
    """


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
        "EURE_ETHEREUM",
        "EURE_POLYGON",
        "EURE_ARBITRUM",
        "EURE_LINEA",
        "EURE_BASE",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ] = Field(..., alias="currencyCode")
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    minimum: str
    """
    The smallest amount, a decimal string
    """
    maximum: str
    """
    The largest amount, a decimal string
    """


class AuditEventResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The audit event's id (a UUID unless said otherwise)
    """
    project_id: str | None = Field(..., alias="projectId")
    """
    The project concerned; null for the organization
    """
    actor: str
    """
    Who acted: a member's email, or an API key's name
    """
    action: str
    """
    What was done (e.g. project.rotate_secret)
    """
    target: str
    """
    What it was done to
    """
    details: dict[str, Any]
    """
    More about it (never a secret)
    """
    ip: str
    """
    The address the call came from
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the audit event was created (ISO 8601, UTC, milliseconds)
    """


class BankDepositInstructions(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    rail: str
    """
    The rail to send it by
    """
    amount: str
    """
    The amount to send, decimal string
    """
    currency_code: str = Field(..., alias="currencyCode")
    """
    The currency to send
    """
    beneficiary_name: str = Field(..., alias="beneficiaryName")
    """
    Who the transfer is to
    """
    bank_name: str = Field(..., alias="bankName")
    """
    The receiving bank
    """
    account_identifier: dict[str, str] = Field(..., alias="accountIdentifier")
    """
    The receiving account (routing and account numbers, IBAN and BIC, CLABE, PIX key: as the rail names them)
    """
    reference: str
    """
    The reference the transfer must carry: without it the deposit cannot be matched to the intent
    """


class ComplianceEdgeResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    Id of the customer's record of the requirement
    """


class ConnectProvider(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    credentials: dict[str, Any]
    """
    The provider's credentials (its `credentialsSchema`); stored encrypted, never returned
    """
    name: str | None = None
    """
    The account's name, to hold several accounts of this provider: the account of that name is set (created if new). Without it: the account named `default`. The answer stays the provider's (its `default` account, else its first by priority); `GET .../provider-accounts` lists each account
    """
    priority: int | None = None
    """
    Routing priority among the provider's accounts, lower first (a new account: 100; an existing one keeps its own unless given)
    """
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
    """
    The project's own id of the customer (create-or-retrieve by it)
    """
    subject_token: str | None = None
    """
    An OIDC ID token from an issuer the project trusts, or the token of a wallet sign-in: the customer is the token's subject
    """
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
    quote_id: str | None = Field(None, alias="quoteId")
    """
    A quote of GET /v1/intent/quote for this payment: its provider is used while the quote is valid (409 QUOTE_EXPIRED after)
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
    quote_id: str | None = Field(None, alias="quoteId")
    """
    A quote of GET /v1/intent/quote for this payment: its provider is used while the quote is valid (409 QUOTE_EXPIRED after)
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
    """
    The address to send to
    """
    currency_code: str = Field(..., alias="currencyCode")
    """
    The currency to send
    """
    chain: str
    """
    The blockchain
    """
    chain_id: int | None = Field(..., alias="chainId")
    """
    The EVM chain id; null on other chains
    """
    amount: str
    """
    The amount to send, decimal string
    """
    amount_in_smallest_unit: str = Field(..., alias="amountInSmallestUnit")
    """
    The amount in the token's smallest unit (integer string)
    """
    token_contract: str | None = Field(None, alias="tokenContract")
    """
    The token's contract; null for a chain's own coin
    """
    memo: str | None = None
    """
    What the payment must carry on chains that need a memo; null elsewhere
    """
    payment_uri: str | None = Field(None, alias="paymentUri")
    """
    A wallet-ready payment URI (EIP-681, BIP-21, Solana Pay)
    """
    encoded_data: str | None = Field(None, alias="encodedData")
    """
    For a token: the calldata of `transfer(address,uint256)` to send to `tokenContract`
    """


class CustomerResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The customer's id (a UUID unless said otherwise)
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the customer was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the customer last changed (ISO 8601, UTC, milliseconds)
    """
    organization_id: str = Field(..., alias="organizationId")
    """
    Id of the organization that owns the project
    """
    project_id: str = Field(..., alias="projectId")
    """
    Id of the project
    """
    metadata: dict[str, Any] | None
    """
    Free-form JSON object, as sent on creation; null if none
    """
    access_token: str | None
    """
    The customer's access token (a JWT) for the Bearer calls; a fresh one on every POST /customers; null on lists
    """


class DepositInstruction(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    type: Literal["BANK", "CRYPTO"]
    """
    BANK (a transfer to a bank account) or CRYPTO (a transfer to an address)
    """
    encoding: Literal["DISPLAY"] = "DISPLAY"
    """
    DISPLAY: fields to show the customer as they are
    """
    instructions: BankDepositInstructions | CryptoDepositInstructions
    """
    What to send, where (the type's instructions)
    """


class DepositUnmatched(BaseModel):
    """
    Money the service cannot give to an intent: on an intent (it had ended, another
    amount), or on none (`intent_id` None: no intent matches the payment at all,
    ramp/provider_webhooks/unmatched.py).
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str | None = Field(..., alias="intentId")
    """
    Id of the intent the money came for; null when no intent matches it (money without our reference, or quoting one no transfer has)
    """
    customer_id: str | None = Field(..., alias="customerId")
    """
    Id of the customer (the service's id); null when no intent matches and the provider's customer is not one of ours
    """
    transaction_id: str | None = Field(..., alias="transactionId")
    """
    Id of the intent's transaction, if it has one
    """
    provider_reference: str | None = Field(..., alias="providerReference")
    """
    The provider's reference of the transfer, or, with no intent, of the payment (Monerium's order id, Bridge's transfer id): what to quote to the provider to refund it; null without a transaction
    """
    unmatched_reason: str = Field(..., alias="unmatchedReason")
    """
    Why the deposit cannot be taken: the intent had ended, the amount differs, or no intent matches it
    """
    amount: str | None = None
    """
    The amount that arrived, where the provider states it (money with no intent); null otherwise
    """
    currency: str | None = None
    """
    The currency of `amount` (`EUR`); null with it
    """
    provider_account_id: str | None = Field(None, alias="providerAccountId")
    """
    The provider account the money reached (money with no intent); null otherwise
    """


class Document(BaseModel):
    """
    An uploaded file: base64 of its bytes, with its name and content type.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    filename: str
    """
    The file's name
    """
    content_type: Literal["image/png", "image/jpeg", "application/pdf"] = Field(
        ..., alias="contentType"
    )
    """
    The file's media type (image/jpeg, image/png, application/pdf)
    """
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
    """
    The HTTP status
    """
    error: str
    """
    HTTP reason phrase
    """
    code: str
    """
    Stable machine-readable code; every code and its meaning: `x-codes` of this schema, and the table in the document's description
    """
    message: str
    """
    Human-readable explanation; may change
    """
    details: dict[str, Any]
    """
    Context; `fields` lists FieldViolation objects for invalid input
    """
    request_id: str | None = Field(None, alias="requestId")
    """
    This request's id, as in the X-Request-Id response header: quote it to support (operators find the request's log lines and trace by it)
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
    """
    PASSPORT, NATIONAL_ID or DRIVERS_LICENSE
    """
    document_number: str = Field(..., alias="documentNumber")
    """
    The document's number
    """
    file: Document
    """
    The document's file
    """


class IntentStatusChanged(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    """
    Id of the intent
    """
    customer_id: str = Field(..., alias="customerId")
    """
    Id of the customer (the service's id, not the project's own)
    """
    status: Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] = Field(
        ..., title="IntentStatus"
    )
    """
    The intent's status now
    """
    previous_status: (
        Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] | None
    ) = Field(..., alias="previousStatus")
    """
    The status before this change; null when the event reports a creation
    """
    failure_reason: str | None = Field(..., alias="failureReason")
    """
    Why it failed, in words; null unless the status is FAILED
    """


class IntentSummaryResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The intent summary's id (a UUID unless said otherwise)
    """
    status: str
    """
    The intent's status
    """
    customer_id: str = Field(..., alias="customerId")
    """
    Id of the customer (the service's id, not the project's own)
    """
    provider_code: str = Field(..., alias="providerCode")
    """
    The provider's code
    """
    amount: str
    """
    The amount, in the source currency
    """
    currency_code: str = Field(..., alias="currencyCode")
    """
    The source currency
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the intent summary was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the intent summary last changed (ISO 8601, UTC, milliseconds)
    """


class KycBasicSubmission(BaseModel):
    """
    KYC_BASIC: identity of the customer, with a government ID.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    first_name: str = Field(..., alias="firstName")
    """
    Given name(s)
    """
    last_name: str = Field(..., alias="lastName")
    """
    Family name
    """
    date_of_birth: str = Field(..., alias="dateOfBirth")
    """
    YYYY-MM-DD; the customer is 18 or older
    """
    nationality: str
    """
    ISO 3166-1 alpha-2 country code
    """
    address: Address
    """
    Residential address
    """
    id_document: IdentityDocument = Field(..., alias="idDocument")
    """
    An identity document
    """
    phone: str | None = None
    """
    E.164; required when the intent's provider needs it (Monerium)
    """


class KycEnhancedSubmission(BaseModel):
    """
    KYC_ENHANCED: occupation and a selfie (the sandbox's stand-in for a liveness check).
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    occupation: str
    """
    The customer's occupation
    """
    employer: str | None = None
    """
    The customer's employer, if any
    """
    selfie: Document
    """
    A photo of the customer
    """


class NewProjectResource(BaseModel):
    """
    The client secret appears here once, and never again.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    organization_id: str = Field(..., alias="organizationId")
    """
    Id of the organization that owns the project
    """
    project_id: str = Field(..., alias="projectId")
    """
    Id of the project
    """
    client_id: str = Field(..., alias="clientId")
    """
    The project's client id (Basic auth user name)
    """
    client_secret: str = Field(..., alias="clientSecret")
    """
    The project's client secret: shown once, keep it secret
    """


class OnboardingConsent(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    provider_account_id: str = Field(..., alias="providerAccountId")
    """
    The `sharing` entry answered
    """
    granted: bool
    """
    true: share it with this intent's provider
    """


class OnboardingDepositInstruction(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    type: Literal["BANK", "CRYPTO"]
    """
    BANK or CRYPTO
    """
    instructions: BankDepositInstructions | CryptoDepositInstructions
    """
    What to send, where (the type's instructions)
    """
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
    kind: Literal["text", "textarea", "date", "country", "select", "file", "checkbox", "tel"]
    """
    The input to render: text, textarea, date, country, select, file or checkbox
    """
    required: bool
    """
    Whether the field must be filled
    """
    options: list[str]
    """
    Allowed values (select, country)
    """
    max_length: int | None = Field(..., alias="maxLength")
    """
    The longest value accepted; null for no limit
    """
    accept: list[str]
    """
    Accepted content types (file)
    """
    max_bytes: int | None = Field(..., alias="maxBytes")
    """
    Largest file, decoded
    """
    autocomplete: str | None
    """
    The HTML autocomplete token of the input, if any
    """
    prefilled_from: str | None = Field(None, alias="prefilledFrom")
    """
    The provider whose data fills this field, as the customer consented (`sharing`): the page does not ask it, and a submission may leave it out
    """


class OnboardingHandoff(BaseModel):
    """
    A step the customer completes in the provider's own hosted flow.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    mode: Literal["LINK", "WAIT"]
    """
    LINK: the customer completes it at `url`; WAIT: the provider reaches the customer itself
    """
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
    """
    Origins (scheme, host, port) allowed to embed the page
    """


class OnboardingProvider(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    code: str
    """
    The provider's code
    """
    name: str
    """
    The provider's name, for people
    """


class OnboardingSharing(BaseModel):
    """
    Data the customer gave another provider that fills this intent's open steps, and
    their answer to sharing it with this intent's provider (asked once per pair).
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider_account_id: str = Field(..., alias="providerAccountId")
    """
    The provider account holding the data: the consent's `providerAccountId`
    """
    provider_name: str = Field(..., alias="providerName")
    """
    Who holds the data
    """
    fields: list[str]
    """
    What it fills, as STEP_CODE.field (the field's dotted path)
    """
    consent: Literal["GRANTED", "DECLINED"] | None
    """
    The customer's answer; null: not asked yet
    """
    decided_at: AwareDatetime | None = Field(..., alias="decidedAt")
    """
    When the customer answered; null: not asked yet
    """


class OnboardingTerms(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    version: str
    """
    Send it back as `termsVersion` when accepting
    """
    title: str
    """
    The terms' title
    """
    paragraphs: list[str]
    """
    The terms, paragraph by paragraph
    """


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
    """
    The project's fee in basis points of the source amount
    """


class ProjectProviderAccountResource(BaseModel):
    """
    One provider account of the project (a project may hold several of a provider):
    routing tries a provider's accounts by priority, then name.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider_account_id: str = Field(..., alias="providerAccountId")
    """
    Id of the provider account (an intent's `mmPlan.providerAccountId`)
    """
    provider: str
    """
    The provider's code, e.g. BRIDGE
    """
    name: str
    """
    Unique within the project and provider; `default` unless named
    """
    priority: int
    """
    Lower routes first among the provider's accounts
    """
    status: str
    """
    HEALTHY, UNHEALTHY (credentials refused) or DISABLED
    """
    status_reason: str | None = Field(..., alias="statusReason")
    """
    Why it is UNHEALTHY or DISABLED; null when HEALTHY
    """
    credentials_hint: str | None = Field(..., alias="credentialsHint")
    """
    A masked hint of the stored credentials (never the credentials)
    """
    health: str
    """
    From its own calls: HEALTHY, DEGRADED or DOWN
    """
    routing: bool
    """
    Whether it takes part in the project's routing now
    """


class ProjectProviderResource(BaseModel):
    """
    A provider of the project: its status and why, the masked hint of stored
    credentials (never the credentials), and the schema of the credentials it takes.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider: str
    """
    The provider's code
    """
    name: str
    """
    The provider's name, for people
    """
    mock: bool
    """
    Whether it is a sandbox mock provider
    """
    status: str
    """
    HEALTHY, UNHEALTHY, DISABLED or NOT_CONNECTED
    """
    status_reason: str | None = Field(..., alias="statusReason")
    """
    Why it has that status, in words
    """
    credentials_hint: str | None = Field(..., alias="credentialsHint")
    """
    The stored credentials, masked; null if none
    """
    routing: bool
    """
    Whether it takes part in the project's routing now
    """
    credentials_schema: dict[str, Any] | None = Field(..., alias="credentialsSchema")
    """
    JSON Schema of the credentials it takes; null for mock providers
    """


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
    """
    The kind of document (a utility bill, a bank statement...)
    """
    issuer: str
    """
    Who issued the document
    """
    issue_date: str = Field(..., alias="issueDate")
    """
    YYYY-MM-DD, within the last 12 months
    """
    file: Document
    """
    The document
    """


class ProviderAccountResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    Id of the project's provider account
    """
    provider_code: str = Field(..., alias="providerCode")
    """
    The provider's code (e.g. sandbox_atlas, bridge)
    """
    provider_name: str = Field(..., alias="providerName")
    """
    The provider's name, for people
    """


class ProviderHealthResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider_id: str = Field(..., alias="providerId")
    """
    Id of the provider (one of a route's `providerIds`)
    """
    provider_code: str = Field(..., alias="providerCode")
    """
    The provider's code (e.g. sandbox_atlas, bridge)
    """
    provider_account_id: str = Field(..., alias="providerAccountId")
    """
    Id of the project's provider account
    """
    name: str
    """
    The account's name, unique within the project and provider (`default` unless named)
    """
    priority: int
    """
    Lower routes first among the provider's accounts
    """
    status: Literal["HEALTHY", "DEGRADED", "DOWN"]
    """
    The provider health's status (docs/states.md lists every status and transition)
    """
    consecutive_failures: int = Field(..., alias="consecutiveFailures")
    """
    The account's failed calls in a row (3 take it DOWN); 0 after a success
    """
    error_rate: float = Field(..., alias="errorRate")
    """
    Share of the last 20 calls that failed (0 to 1)
    """
    last_failure: str | None = Field(..., alias="lastFailure")
    """
    What went wrong on the account's last failed call, in words; null if none ever failed
    """
    last_failure_at: str | None = Field(..., alias="lastFailureAt")
    """
    When the last failed call ended (ISO 8601, UTC, milliseconds); null if none ever failed
    """
    probe_at: str | None = Field(..., alias="probeAt")
    """
    When a DOWN account is next tried (half-open)
    """


class ProviderMoveResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    from_provider_code: str = Field(..., alias="fromProviderCode")
    """
    Code of the provider the intent left
    """
    from_provider_account_id: str = Field(..., alias="fromProviderAccountId")
    """
    Id of the provider account the intent left
    """
    to_provider_code: str = Field(..., alias="toProviderCode")
    """
    Code of the provider the intent moved to
    """
    to_provider_account_id: str = Field(..., alias="toProviderAccountId")
    """
    Id of the provider account the intent moved to
    """
    reason: str
    """
    Why: the left provider's own failure to create the transaction, in words
    """
    at: AwareDatetime
    """
    When the intent moved (ISO 8601, UTC, milliseconds)
    """


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
    """
    Events taken from the delivery
    """
    duplicates: int
    """
    Events already received before (ignored)
    """


class QuoteFeesResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    currency_code: str = Field(..., alias="currencyCode")
    """
    Currency code: ISO 4217 for fiat, {TICKER}_{BLOCKCHAIN} for crypto
    """
    network_fee: str = Field(..., alias="networkFee")
    """
    The blockchain's fee
    """
    processing_fee: str = Field(..., alias="processingFee")
    """
    The provider's fee
    """
    partner_fee: str = Field(..., alias="partnerFee")
    """
    The project's own fee (its partner fee in basis points of the amount)
    """
    total_fee: str = Field(..., alias="totalFee")
    """
    The sum of the fees
    """


class ReceiptFees(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    network_fee: str = Field(..., alias="networkFee")
    """
    The blockchain's fee
    """
    processing_fee: str = Field(..., alias="processingFee")
    """
    The provider's fee
    """
    partner_fee: str = Field(..., alias="partnerFee")
    """
    The project's own fee (its partner fee in basis points of the amount)
    """
    total_fee: str = Field(..., alias="totalFee")
    """
    The sum of the fees
    """


class RequirementResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    code: str
    """
    The requirement's code (TERMS_OF_SERVICE, KYC_BASIC...)
    """
    description: str
    """
    What the requirement is, in words for people
    """
    depends_on: list[str] = Field(..., alias="dependsOn")
    """
    Codes of the requirements that must be completed before this one
    """


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
        "EURE_ETHEREUM",
        "EURE_POLYGON",
        "EURE_ARBITRUM",
        "EURE_LINEA",
        "EURE_BASE",
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
        "EURE_ETHEREUM",
        "EURE_POLYGON",
        "EURE_ARBITRUM",
        "EURE_LINEA",
        "EURE_BASE",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ]
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    source: dict[str, Any]
    """
    JSON Schema (draft 2020-12) of the source account, with valid `examples`
    """
    destination: dict[str, Any]
    """
    JSON Schema (draft 2020-12) of the destination account, with valid `examples`
    """


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
    """
    Rotate even while the previous rotation's grace period runs (its oldest secret stops working at once)
    """


class RotatedSecretResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    project_id: str = Field(..., alias="projectId")
    """
    Id of the project
    """
    client_id: str = Field(..., alias="clientId")
    """
    The project's client id (Basic auth user name)
    """
    client_secret: str = Field(..., alias="clientSecret")
    """
    The project's client secret: shown once, keep it secret
    """
    previous_secret_valid_until: str | None = Field(..., alias="previousSecretValidUntil")
    """
    Until when the secret before the last rotation still works (null when there is none) (ISO 8601, UTC, milliseconds)
    """


class RouteAvailabilityResource(BaseModel):
    """
    A route of the catalog: available when one of its providers routes for the
    project; otherwise `reason` says why not, provider by provider.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    from_: str = Field(..., alias="from")
    """
    Source currency code
    """
    to: str
    """
    Destination currency code
    """
    available: bool
    """
    Whether the project can use the route now
    """
    providers: list[str]
    """
    Codes of the providers that serve it
    """
    reason: str | None
    """
    Why it is not available; null when it is
    """


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
        "EURE_ETHEREUM",
        "EURE_POLYGON",
        "EURE_ARBITRUM",
        "EURE_LINEA",
        "EURE_BASE",
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
        "EURE_ETHEREUM",
        "EURE_POLYGON",
        "EURE_ARBITRUM",
        "EURE_LINEA",
        "EURE_BASE",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ]
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    provider_ids: list[str] = Field(..., alias="providerIds")
    """
    Providers serving the route: any is a valid `providerId`
    """


class RoutingBody(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    strategy: Literal["FIRST_ELIGIBLE", "BEST_PRICE"]
    """
    FIRST_ELIGIBLE: the first eligible provider in catalog order (the default); BEST_PRICE: the one whose quote nets the most at the destination
    """


class SandboxClockAdvance(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    seconds: int
    """
    How far to move the intent's timers forward, in seconds
    """


class SandboxClockAdvanced(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    """
    Id of the intent
    """
    advanced_seconds: int = Field(..., alias="advancedSeconds")
    """
    This call's advance
    """
    clock_offset_seconds: float | None = Field(..., alias="clockOffsetSeconds")
    """
    How far the intent's clock is ahead of the real one, all advances together; null once its workflow has ended (only webhook retries moved)
    """
    webhook_retries_moved: int = Field(..., alias="webhookRetriesMoved")
    """
    Webhook deliveries of the intent's events, waiting for an attempt, made due that much sooner (due now at the latest)
    """


class SandboxProviderBehaviourBody(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    mode: Literal["UP", "DOWN", "SLOW", "REFUSE_TRANSFERS"]
    """
    UP: as usual; DOWN: every call fails (connection refused); SLOW: every call answers after the activity timeout; REFUSE_TRANSFERS: orders refused for the provider's own reasons
    """
    seconds: int | None = None
    """
    For how long; without it, until set back to UP
    """


class SandboxProviderBehaviourResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider_id: str = Field(..., alias="providerId")
    """
    Id of the provider (one of a route's `providerIds`)
    """
    provider_code: str = Field(..., alias="providerCode")
    """
    The provider's code (e.g. sandbox_atlas, bridge)
    """
    mode: Literal["UP", "DOWN", "SLOW", "REFUSE_TRANSFERS"]
    """
    How the mock provider behaves now, for this project only: UP as usual, DOWN, SLOW or REFUSE_TRANSFERS (as the body's `mode`)
    """
    until: str | None
    """
    When the provider is UP again by itself (UTC)
    """


class SandboxProviderEvent(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    type: Literal[
        "DEPOSIT_RECEIVED", "PAYOUT_SENT", "SETTLED", "FAILED", "RETURNED", "CANCELLED"
    ] = Field(..., title="ProviderEventType")
    """
    What the provider reports (docs/sandbox.md)
    """
    reason: str | None = None
    """
    Why, for a FAILED or RETURNED event
    """


class SecuritySettings(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    totp_required: bool = Field(..., alias="totpRequired")
    """
    Whether every member must use a second factor (TOTP) to log in
    """


class SecuritySettingsResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    totp_required: bool = Field(..., alias="totpRequired")
    """
    Whether every member must use a second factor (TOTP) to log in
    """


class SessionResource(BaseModel):
    """
    Who the caller is; `csrfToken` goes in the X-CSRF-Token header of every call that
    changes state (null for an API key, which needs none).
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    organization_id: str = Field(..., alias="organizationId")
    """
    Id of the organization that owns the project
    """
    actor: str
    """
    Who acted: a member's email, or an API key's name
    """
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    The role: owner, developer or viewer (what each may do: docs/dashboard.md)
    """
    csrf_token: str | None = Field(..., alias="csrfToken")
    """
    Send it as X-CSRF-Token on every call that changes state; null for an API key
    """


class SignatureAccepted(BaseModel):
    """
    A signature the provider's flow took.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    purpose: Literal["LINK_ADDRESS", "REDEEM_ORDER"]
    """
    What the signature is for: LINK_ADDRESS links the wallet to the customer's profile at the provider; REDEEM_ORDER authorises an off-ramp's burn
    """
    outcome: Literal["LINKED", "PENDING", "STORED"]
    """
    LINKED: the wallet is linked; PENDING: a Safe's approval is being verified on chain; STORED: kept for the order, now ask for the transaction again
    """


class SigningRequestResource(BaseModel):
    """
    What the customer's wallet signs next (EIP-191 `personal_sign` of `message`).
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    purpose: Literal["LINK_ADDRESS", "REDEEM_ORDER"]
    """
    What the signature is for: LINK_ADDRESS links the wallet to the customer's profile at the provider; REDEEM_ORDER authorises an off-ramp's burn
    """
    address: str
    """
    The wallet that must sign
    """
    chain: str | None = None
    """
    The provider's name of the chain
    """
    message: str
    """
    Exactly what is signed, to show the customer
    """
    expires_at: AwareDatetime | None = Field(None, alias="expiresAt")
    """
    A signature is refused after this
    """


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
    """
    Where the money comes from
    """
    description: str
    """
    More about it, in words
    """
    evidence: Document | None = None
    """
    A supporting document, if any
    """


class StepOutcomeAccepted(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    """
    Id of the intent
    """
    step_code: str = Field(..., alias="stepCode")
    """
    The compliance requirement's code of the step
    """
    outcome: Literal["SUBMITTED", "VERIFIED", "REJECTED"] = Field(..., title="StepOutcome")
    """
    VERIFIED, REJECTED or SUBMITTED (docs/sandbox.md)
    """


class SubmitSignature(BaseModel):
    """
    The customer's signature of the message a signing request gave.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    purpose: Literal["LINK_ADDRESS", "REDEEM_ORDER"]
    """
    What the signature is for: LINK_ADDRESS links the wallet to the customer's profile at the provider; REDEEM_ORDER authorises an off-ramp's burn
    """
    message: str
    """
    The message signed, exactly as given
    """
    signature: str
    """
    0x-prefixed hex: 65 bytes for a wallet, `0x` or longer for a Safe
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
    """
    How the customer pays the deposit
    """


class TransferAmountResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    amount: str
    """
    Decimal string in the source currency
    """
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
        "EURE_ETHEREUM",
        "EURE_POLYGON",
        "EURE_ARBITRUM",
        "EURE_LINEA",
        "EURE_BASE",
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
    """
    The issuer's URL (`iss` of its ID tokens)
    """
    audiences: list[str]
    """
    The audiences (`aud`) an ID token of the issuer may name
    """
    jwks_url: str = Field(..., alias="jwksUrl")
    """
    Where the issuer's signing keys are (JSON Web Key Set)
    """


class TrustedIssuerResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The trusted issuer's id (a UUID unless said otherwise)
    """
    issuer: str
    """
    The issuer's URL (`iss` of its ID tokens)
    """
    audiences: list[str]
    """
    The audiences (`aud`) an ID token of the issuer may name
    """
    jwks_url: str = Field(..., alias="jwksUrl")
    """
    Where the issuer's signing keys are (JSON Web Key Set)
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the trusted issuer was created (ISO 8601, UTC, milliseconds)
    """


class UnavailableQuoteResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider_id: str = Field(..., alias="providerId")
    """
    Id of the provider (one of a route's `providerIds`)
    """
    provider_code: str = Field(..., alias="providerCode")
    """
    The provider's code (e.g. sandbox_atlas, bridge)
    """
    rail: Literal["ACH", "WIRE", "SEPA", "PIX", "SPEI", "FPS"]
    """
    The payment rail (ACH, WIRE, SEPA, PIX, SPEI, FPS)
    """
    reason: str
    """
    TIMEOUT, PROVIDER_ERROR, NOT_SUPPORTED, AMOUNT_OUT_OF_RANGE or AMOUNT_TOO_SMALL
    """
    message: str
    """
    Why, in words
    """


class UpdateProviderAccount(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    priority: int
    """
    Routing priority among the provider's accounts, lower first
    """


class WalletChallenge(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    message: str
    """
    The signed Sign-In with Ethereum message (EIP-4361)
    """
    signature: str
    """
    The message's signature (hex)
    """
    ttl_in_seconds: int | None = Field(3600, alias="ttlInSeconds")
    """
    How long the token returned is valid, in seconds
    """


class WalletToken(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    token: str
    """
    Give it as `subject_token` to POST /customers
    """


class WebhookAttemptResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    number: int
    """
    The attempt's number, from 1
    """
    attempted_at: AwareDatetime = Field(..., alias="attemptedAt")
    """
    When it was made (ISO 8601, UTC, milliseconds)
    """
    status_code: int | None = Field(..., alias="statusCode")
    """
    null: no HTTP answer
    """
    latency_ms: int = Field(..., alias="latencyMs")
    """
    How long the endpoint took to answer, in ms
    """
    error: str | None
    """
    What went wrong (a timeout, a refused connection...); null on an answer
    """


class WebhookRecoveryResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    endpoint_id: str = Field(..., alias="endpointId")
    """
    Id of the endpoint recovered
    """
    since: AwareDatetime
    """
    The start of the range recovered (ISO 8601, UTC, milliseconds)
    """
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
            "EURE_ETHEREUM",
            "EURE_POLYGON",
            "EURE_ARBITRUM",
            "EURE_LINEA",
            "EURE_BASE",
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
        "EURE_ETHEREUM",
        "EURE_POLYGON",
        "EURE_ARBITRUM",
        "EURE_LINEA",
        "EURE_BASE",
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
            "EURE_ETHEREUM",
            "EURE_POLYGON",
            "EURE_ARBITRUM",
            "EURE_LINEA",
            "EURE_BASE",
            "ETH_ETHEREUM",
            "BTC_BITCOIN",
        ]
    ]
    """
    Currency codes of the side
    """
    account_type: Literal["BANK_ACCOUNT", "CRYPTO_ADDRESS"] = Field(
        ..., alias="accountType", title="AccountType"
    )
    """
    BANK_ACCOUNT or CRYPTO_ADDRESS
    """
    rails: list[Literal["ACH", "WIRE", "SEPA", "PIX", "SPEI", "FPS"]]
    """
    Rails a bank account of the side may use (empty for crypto)
    """
    countries: list[str]
    """
    ISO 3166-1 alpha-2 countries the side serves
    """


class AdminProjectResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The project's id
    """
    organization_id: str = Field(..., alias="organizationId")
    """
    Id of the organization that owns the project
    """
    name: str
    """
    The project's name
    """
    environment: Literal["sandbox", "production"] = Field(..., title="Environment")
    """
    `sandbox` (mock providers, test money) or `production`
    """
    client_id: str = Field(..., alias="clientId")
    """
    The project's client id (Basic auth user name)
    """
    previous_secret_valid_until: AwareDatetime | None = Field(..., alias="previousSecretValidUntil")
    """
    Until when the secret before the last rotation still works (null when there is none) (ISO 8601, UTC, milliseconds)
    """
    onboarding_origins: list[str] = Field(..., alias="onboardingOrigins")
    """
    Origins allowed to embed the hosted onboarding page
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the admin project was created (ISO 8601, UTC, milliseconds)
    """


class ApiKeyResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The key's id
    """
    name: str
    """
    The key's name, for people
    """
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    What the key may do: owner, developer or viewer
    """
    prefix: str
    """
    The key's first characters, to recognise it (the key is shown once)
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the api key was created (ISO 8601, UTC, milliseconds)
    """
    revoked_at: AwareDatetime | None = Field(..., alias="revokedAt")
    """
    When the key was revoked; null while it works (ISO 8601, UTC, milliseconds)
    """
    last_used_at: AwareDatetime | None = Field(..., alias="lastUsedAt")
    """
    When the key last authenticated a call; null if never (ISO 8601, UTC, milliseconds)
    """


class ChangeRole(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    The member's new role
    """


class ComplianceStepResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The compliance step's id (a UUID unless said otherwise)
    """
    code: str
    """
    The requirement's code (TERMS_OF_SERVICE, KYC_BASIC...)
    """
    description: str
    """
    What the compliance step is, in words for people
    """
    status: Literal["PENDING", "SUBMITTED", "COMPLETED", "REJECTED"] = Field(
        ..., title="StepStatus"
    )
    """
    The compliance step's status (docs/states.md lists every status and transition)
    """
    depends_on: list[str] = Field(..., alias="dependsOn")
    """
    Codes of the requirements that must be completed before this one
    """
    metadata: dict[str, Any]
    """
    completedBy, submittedAt, verifiedAt; on rejection `reason` and rejectedAt
    """
    compliance_edge: ComplianceEdgeResource = Field(..., alias="complianceEdge")
    """
    The step's link to the customer's record
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the compliance step was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the compliance step last changed (ISO 8601, UTC, milliseconds)
    """


class ComplianceUpdated(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    """
    Id of the intent
    """
    customer_id: str = Field(..., alias="customerId")
    """
    Id of the customer (the service's id, not the project's own)
    """
    requirement_code: str = Field(..., alias="requirementCode")
    """
    The compliance requirement's code (e.g. KYC_BASIC)
    """
    status: Literal["PENDING", "SUBMITTED", "COMPLETED", "REJECTED"] = Field(
        ..., title="StepStatus"
    )
    """
    The step's status now
    """
    previous_status: Literal["PENDING", "SUBMITTED", "COMPLETED", "REJECTED"] | None = Field(
        ..., alias="previousStatus"
    )
    """
    The status before this change; null when the event reports a creation
    """


class CorridorResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    type: Literal["ONRAMP", "OFFRAMP"] = Field(..., title="MovementType")
    """
    ONRAMP (fiat to crypto) or OFFRAMP (crypto to fiat)
    """
    source: AccountSideResource
    """
    What the source side takes
    """
    destination: AccountSideResource
    """
    What the destination side takes
    """
    limits: list[AmountLimitResource]
    """
    Amount limits per source currency
    """


class CreateApiKey(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    name: str
    """
    The key's name, for people
    """
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    What the key may do: owner, developer or viewer
    """


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
    """
    Who to invite
    """
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    The role they get
    """


class CreateProject(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    name: str
    """
    The project's name
    """
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
    """
    Where to POST the events: https and a public host in production
    """
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
    """
    What the endpoint is for, for people
    """
    enabled: bool | None = True
    """
    Whether events are sent to the endpoint
    """


class CurrencyResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The currency's id (a UUID unless said otherwise)
    """
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
        "EURE_ETHEREUM",
        "EURE_POLYGON",
        "EURE_ARBITRUM",
        "EURE_LINEA",
        "EURE_BASE",
        "ETH_ETHEREUM",
        "BTC_BITCOIN",
    ]
    """
    Fiat: ISO 4217. Crypto: {TICKER}_{BLOCKCHAIN}.
    """
    ticker: str
    """
    The ticker (USD, USDC...)
    """
    name: str
    """
    The currency's name, for people
    """
    decimals: int
    """
    Decimal places an amount in the currency may have
    """
    type: Literal["FIAT", "CRYPTO"] = Field(..., title="CurrencyType")
    """
    FIAT or CRYPTO
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the currency was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the currency last changed (ISO 8601, UTC, milliseconds)
    """


class ExternalAccountResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The external account's id (a UUID unless said otherwise)
    """
    type: Literal["BANK_ACCOUNT", "CRYPTO_ADDRESS"] = Field(..., title="AccountType")
    """
    BANK_ACCOUNT or CRYPTO_ADDRESS
    """
    label: str | None
    """
    Free text for the project's own reference (stored, returned)
    """
    metadata: dict[str, Any]
    """
    The account as registered (the route's schema)
    """
    currency_id: str = Field(..., alias="currencyId")
    """
    Id of the account's currency
    """
    currency: CurrencyResource
    """
    The account's currency
    """
    customer_id: str = Field(..., alias="customerId")
    """
    Id of the customer who owns the account
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the external account was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the external account last changed (ISO 8601, UTC, milliseconds)
    """


class IntentProviderMoved(BaseModel):
    """
    INTENT_STATUS_CHANGED of a failover (issue 26): the intent moved to another
    provider, and why; its status is unchanged (the move happens before any transaction).
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    """
    Id of the intent
    """
    customer_id: str = Field(..., alias="customerId")
    """
    Id of the customer (the service's id, not the project's own)
    """
    status: Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] = Field(
        ..., title="IntentStatus"
    )
    """
    The intent provider moved's status (docs/states.md lists every status and transition)
    """
    previous_status: (
        Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] | None
    ) = Field(..., alias="previousStatus")
    """
    The status before this change; null when the event reports a creation
    """
    failure_reason: str | None = Field(..., alias="failureReason")
    """
    Why it failed, in words; null unless the status is FAILED
    """
    moved_from_provider_code: str = Field(..., alias="movedFromProviderCode")
    """
    Code of the provider the intent left: it failed to create the transaction for reasons of its own
    """
    moved_to_provider_code: str = Field(..., alias="movedToProviderCode")
    """
    Code of the provider the intent moved to (the next eligible one; the intent keeps its id)
    """
    move_reason: str = Field(..., alias="moveReason")
    """
    Why the intent moved: the left provider's failure, in words
    """


class InviteResource(BaseModel):
    """
    `url` is shown once: only its hash is stored.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The invitation's id
    """
    email: str
    """
    The member's email address
    """
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    The role: owner, developer or viewer (what each may do: docs/dashboard.md)
    """
    url: str
    """
    The invitation link (shown once)
    """


class MemberResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The member's id (a UUID unless said otherwise)
    """
    email: str
    """
    The member's email address
    """
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    The role: owner, developer or viewer (what each may do: docs/dashboard.md)
    """
    totp_enabled: bool = Field(..., alias="totpEnabled")
    """
    Whether the member has a second factor (TOTP)
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the member was created (ISO 8601, UTC, milliseconds)
    """


class MoneyMovementPlanResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The money movement plan's id (a UUID unless said otherwise)
    """
    type: Literal["ONRAMP", "OFFRAMP"] = Field(..., title="MovementType")
    """
    ONRAMP or OFFRAMP
    """
    provider_account_id: str = Field(..., alias="providerAccountId")
    """
    Id of the provider account that moves the money
    """
    provider_account: ProviderAccountResource = Field(..., alias="providerAccount")
    """
    The provider account that moves the money
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the money movement plan was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the money movement plan last changed (ISO 8601, UTC, milliseconds)
    """
    provider_moves: list[ProviderMoveResource] | None = Field(None, alias="providerMoves")
    """
    Each failover to another provider (its own failure to create the transaction), oldest first: from which account, to which, and why
    """


class MoneyMovementUpdated(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    """
    Id of the intent
    """
    customer_id: str = Field(..., alias="customerId")
    """
    Id of the customer (the service's id, not the project's own)
    """
    transaction_id: str = Field(..., alias="transactionId")
    """
    Id of the intent's transaction
    """
    status: Literal["PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELLED"] = Field(
        ..., title="TransactionStatus"
    )
    """
    The transaction's status now
    """
    previous_status: Literal["PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELLED"] | None = (
        Field(..., alias="previousStatus")
    )
    """
    The status before this change; null when the event reports a creation
    """
    provider_reference: str = Field(..., alias="providerReference")
    """
    The provider's reference of the transaction (quote it to them)
    """


class NewApiKeyResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The key's id
    """
    name: str
    """
    The key's name, for people
    """
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    What the key may do: owner, developer or viewer
    """
    prefix: str
    """
    The key's first characters, to recognise it (the key is shown once)
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the new api key was created (ISO 8601, UTC, milliseconds)
    """
    revoked_at: AwareDatetime | None = Field(..., alias="revokedAt")
    """
    When the key was revoked; null while it works (ISO 8601, UTC, milliseconds)
    """
    last_used_at: AwareDatetime | None = Field(..., alias="lastUsedAt")
    """
    When the key last authenticated a call; null if never (ISO 8601, UTC, milliseconds)
    """
    key: str
    """
    Shown once: `Authorization: Bearer <key>`
    """


class OnboardingStep(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    code: str
    """
    The requirement's code (the step's form)
    """
    description: str
    """
    What the onboarding step is, in words for people
    """
    status: Literal["PENDING", "SUBMITTED", "COMPLETED", "REJECTED"] = Field(
        ..., title="StepStatus"
    )
    """
    The onboarding step's status (docs/states.md lists every status and transition)
    """
    depends_on: list[str] = Field(..., alias="dependsOn")
    """
    Codes of the requirements that must be completed before this one
    """
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
    """
    Id of the transaction
    """
    status: Literal["PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELLED"] = Field(
        ..., title="TransactionStatus"
    )
    """
    The transaction's status
    """
    deposit_instructions: list[OnboardingDepositInstruction] = Field(
        ..., alias="depositInstructions"
    )
    """
    How the customer pays the deposit
    """


class OpenInviteResource(BaseModel):
    """
    An invite not used yet (its link is never shown again).
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The invitation's id
    """
    email: str
    """
    The member's email address
    """
    role: Literal["viewer", "developer", "owner"] = Field(..., title="Role")
    """
    The role: owner, developer or viewer (what each may do: docs/dashboard.md)
    """
    expires_at: AwareDatetime = Field(..., alias="expiresAt")
    """
    When the invitation expires (ISO 8601, UTC, milliseconds)
    """


class ProjectRoutingResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    strategy: Literal["FIRST_ELIGIBLE", "BEST_PRICE"]
    """
    How a new intent without `providerId` picks its provider: FIRST_ELIGIBLE (catalog order, the default) or BEST_PRICE (the quote that nets the most at the destination)
    """
    providers: list[ProviderHealthResource]
    """
    Each provider account the project routes through, with its health, in routing order (catalog order of the provider, then priority, then name)
    """


class ProviderEventAccepted(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    event_id: str = Field(..., alias="eventId")
    """
    Id of the provider event, as recorded
    """
    transaction_id: str = Field(..., alias="transactionId")
    """
    Id of the intent's transaction
    """
    type: Literal[
        "DEPOSIT_RECEIVED", "PAYOUT_SENT", "SETTLED", "FAILED", "RETURNED", "CANCELLED"
    ] = Field(..., title="ProviderEventType")
    """
    The event reported
    """


class ProviderResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The provider's id (a UUID unless said otherwise)
    """
    code: str
    """
    The provider's code (e.g. sandbox_atlas)
    """
    name: str
    """
    The provider's name
    """
    environment: str
    """
    `sandbox` (mock providers, test money) or `production`
    """
    corridors: list[CorridorResource]
    """
    The money movements the provider offers
    """
    requirements: list[RequirementResource]
    """
    The compliance requirements the provider asks for
    """
    status: Literal["HEALTHY", "DEGRADED", "DOWN"] | None = "HEALTHY"
    """
    Health of the project's account at this provider, from its recent calls: DOWN is out of routing until probed (docs/api.md#provider-health)
    """


class QuoteResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    provider_id: str = Field(..., alias="providerId")
    """
    Id of the provider (one of a route's `providerIds`)
    """
    provider_code: str = Field(..., alias="providerCode")
    """
    The provider's code (e.g. sandbox_atlas, bridge)
    """
    type: Literal["ONRAMP", "OFFRAMP"] = Field(..., title="MovementType")
    """
    ONRAMP or OFFRAMP
    """
    rail: Literal["ACH", "WIRE", "SEPA", "PIX", "SPEI", "FPS"]
    """
    The payment rail (ACH, WIRE, SEPA, PIX, SPEI, FPS)
    """
    src_currency_code: str = Field(..., alias="srcCurrencyCode")
    """
    The source currency
    """
    dest_currency_code: str = Field(..., alias="destCurrencyCode")
    """
    The destination currency
    """
    src_amount: str = Field(..., alias="srcAmount")
    """
    The amount priced, in the source currency
    """
    dest_amount: str = Field(..., alias="destAmount")
    """
    What would arrive, in the destination currency
    """
    exchange_rate: str = Field(..., alias="exchangeRate")
    """
    Destination units per source unit
    """
    fees: QuoteFeesResource
    """
    The fees, in the source currency
    """
    expires_at: AwareDatetime | None = Field(..., alias="expiresAt")
    """
    When it expires (ISO 8601, UTC, milliseconds)
    """
    has_indicative_price: bool = Field(..., alias="hasIndicativePrice")
    """
    Whether the price may still move
    """
    quote_id: str | None = Field(None, alias="quoteId")
    """
    Held until expiresAt: POST /intent with it uses this provider (409 QUOTE_EXPIRED after)
    """
    selected: bool | None = False
    """
    The quote POST /intent without providerId would pick, as the project routes (FIRST_ELIGIBLE or BEST_PRICE); quotes come in that ranking
    """
    provider_status: Literal["HEALTHY", "DEGRADED", "DOWN"] | None = Field(
        "HEALTHY", alias="providerStatus"
    )
    """
    Health of the project's account at this provider (DOWN: not routed)
    """


class QuotesResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    quotes: list[QuoteResource]
    """
    One price per provider and rail that answered
    """
    unavailable: list[UnavailableQuoteResource]
    """
    The providers that did not price it, and why
    """


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
    """
    What the customer sends, in `currencyCode`
    """
    currency_code: str = Field(..., alias="currencyCode")
    """
    The source currency
    """
    fees: ReceiptFees
    """
    The fees, in the source currency
    """
    exchange_rate: str = Field(..., alias="exchangeRate")
    """
    Destination units per source unit
    """
    expected_final_amount: str = Field(..., alias="expectedFinalAmount")
    """
    What should arrive, in `finalCurrencyCode`
    """
    final_currency_code: str = Field(..., alias="finalCurrencyCode")
    """
    The destination currency
    """
    indicative: bool | None = True
    """
    Whether the provider's price may still move
    """


class SandboxStepOutcome(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    outcome: Literal["SUBMITTED", "VERIFIED", "REJECTED"] = Field(..., title="StepOutcome")
    """
    VERIFIED, REJECTED or SUBMITTED (docs/sandbox.md)
    """
    reason: str | None = None
    """
    Why, for a REJECTED outcome
    """


class TransactionResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The transaction's id (a UUID unless said otherwise)
    """
    intent_id: str = Field(..., alias="intentId")
    """
    Id of the transaction's intent
    """
    status: Literal["PENDING", "IN_PROGRESS", "SUCCESS", "FAILED", "CANCELLED"] = Field(
        ..., title="TransactionStatus"
    )
    """
    The transaction's status (docs/states.md lists every status and transition)
    """
    provider_reference: str = Field(..., alias="providerReference")
    """
    The provider's reference of the transaction (quote it to them)
    """
    context: TransactionContext
    """
    The deposit instructions
    """
    receipt: Receipt | None = None
    """
    The price as quoted when the transaction was created (fees in the source currency); null when no quote was to be had
    """
    failure_reason: str | None = Field(..., alias="failureReason")
    """
    Why it failed, in words; null unless the status is FAILED
    """
    last_activity_at: AwareDatetime = Field(..., alias="lastActivityAt")
    """
    When the provider last reported progress (ISO 8601, UTC, milliseconds)
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the transaction was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the transaction last changed (ISO 8601, UTC, milliseconds)
    """


class UpdateWebhookEndpoint(BaseModel):
    """
    Only the fields given change. Enabling an endpoint clears `disabledReason`.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    url: str | None = None
    """
    The new URL (the same rules as on creation)
    """
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
    """
    The event types the endpoint receives from now on
    """
    description: str | None = None
    """
    What the endpoint is for, for people
    """
    enabled: bool | None = None
    """
    false stops deliveries; true starts them again
    """


class WebhookDeliveryResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The webhook delivery's id (a UUID unless said otherwise)
    """
    event_id: str = Field(..., alias="eventId")
    """
    Id of the event: `webhook-id` of its deliveries; the same on every retry
    """
    event_type: Literal[
        "INTENT_STATUS_CHANGED", "COMPLIANCE_UPDATED", "MONEY_MOVEMENT_UPDATED", "DEPOSIT_UNMATCHED"
    ] = Field(..., alias="eventType", title="WebhookEventType")
    """
    The event's type (the `webhooks` section of this document lists them)
    """
    endpoint_id: str = Field(..., alias="endpointId")
    """
    Id of the webhook endpoint
    """
    intent_id: str | None = Field(..., alias="intentId")
    """
    null for an event about no intent (unmatched money)
    """
    url: str
    """
    The endpoint's URL when the delivery was made
    """
    status: Literal["PENDING", "RETRYING", "SUCCEEDED", "EXHAUSTED", "GONE", "CANCELLED"] = Field(
        ..., title="DeliveryStatus"
    )
    """
    PENDING, RETRYING, SUCCEEDED, EXHAUSTED, GONE or CANCELLED (docs/webhooks.md)
    """
    attempt_count: int = Field(..., alias="attemptCount")
    """
    Attempts made so far
    """
    max_attempts: int = Field(..., alias="maxAttempts")
    """
    Attempts the retry schedule allows
    """
    last_status_code: int | None = Field(..., alias="lastStatusCode")
    """
    The HTTP status of the last attempt; null when it got no answer
    """
    last_error: str | None = Field(..., alias="lastError")
    """
    What went wrong on the last attempt; null if nothing
    """
    next_attempt_at: AwareDatetime | None = Field(..., alias="nextAttemptAt")
    """
    When the next attempt is due; null when none is (ISO 8601, UTC, milliseconds)
    """
    redelivery_of: str | None = Field(..., alias="redeliveryOf")
    """
    The delivery this one sends again, if any
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the webhook delivery was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the webhook delivery last changed (ISO 8601, UTC, milliseconds)
    """
    attempts: list[WebhookAttemptResource]
    """
    Every attempt, oldest first
    """


class WebhookEndpointResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The webhook endpoint's id (a UUID unless said otherwise)
    """
    url: str
    """
    The URL
    """
    event_types: list[
        Literal[
            "INTENT_STATUS_CHANGED",
            "COMPLIANCE_UPDATED",
            "MONEY_MOVEMENT_UPDATED",
            "DEPOSIT_UNMATCHED",
        ]
    ] = Field(..., alias="eventTypes")
    """
    The event types the endpoint receives
    """
    enabled: bool
    """
    Whether events are sent to the endpoint
    """
    disabled_reason: str | None = Field(..., alias="disabledReason")
    """
    Why the service disabled it (410 Gone, or failing for 3 days); null otherwise
    """
    description: str | None
    """
    What the webhook endpoint is, in words for people
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the webhook endpoint was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the webhook endpoint last changed (ISO 8601, UTC, milliseconds)
    """


class WebhookEvent(BaseModel):
    """
    The envelope every webhook carries.
    """

    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
    )
    event_id: str = Field(..., alias="eventId")
    """
    Id of the event: `webhook-id` of its deliveries; the same on every retry
    """
    event_type: Literal[
        "INTENT_STATUS_CHANGED", "COMPLIANCE_UPDATED", "MONEY_MOVEMENT_UPDATED", "DEPOSIT_UNMATCHED"
    ] = Field(..., alias="eventType", title="WebhookEventType")
    """
    The event's type (the `webhooks` section of this document lists them)
    """
    timestamp: AwareDatetime
    """
    When the change happened (ISO 8601, UTC, milliseconds)
    """
    project_id: str = Field(..., alias="projectId")
    """
    Id of the project
    """
    data: (
        IntentStatusChanged
        | IntentProviderMoved
        | ComplianceUpdated
        | MoneyMovementUpdated
        | DepositUnmatched
    )
    """
    What changed: the event type's object
    """


class CompliancePlanResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The compliance plan's id (a UUID unless said otherwise)
    """
    status: Literal["PENDING", "COMPLETED", "FAILED"] = Field(..., title="PlanStatus")
    """
    The compliance plan's status (docs/states.md lists every status and transition)
    """
    current_step_code: str | None = Field(..., alias="currentStepCode")
    """
    The step to complete next; null when none
    """
    steps: list[ComplianceStepResource]
    """
    In dependency order
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the compliance plan was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the compliance plan last changed (ISO 8601, UTC, milliseconds)
    """


class ExternalAccountPair(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    source: ExternalAccountResource
    """
    The source account (its id is `srcExternalAccountId`)
    """
    destination: ExternalAccountResource
    """
    The destination account (its id is `destExternalAccountId`)
    """


class IntentResource(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    id: str
    """
    The intent's id (a UUID unless said otherwise)
    """
    customer_id: str = Field(..., alias="customerId")
    """
    Id of the customer (the service's id, not the project's own)
    """
    src: ExternalAccountResource
    """
    The source external account
    """
    dest: ExternalAccountResource
    """
    The destination external account
    """
    status: Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] = Field(
        ..., title="IntentStatus"
    )
    """
    The intent's status (docs/states.md lists every status and transition)
    """
    failure_reason: str | None = Field(..., alias="failureReason")
    """
    Why it failed, in words; null unless the status is FAILED
    """
    current_requirement_code: str | None = Field(..., alias="currentRequirementCode")
    """
    The compliance step to complete next; null when none is pending
    """
    transfer_amount: TransferAmountResource = Field(..., alias="transferAmount")
    """
    The amount the customer sends, in the source currency
    """
    mm_plan: MoneyMovementPlanResource = Field(..., alias="mmPlan")
    """
    The money movement plan: which provider moves the money
    """
    compliance_plan: CompliancePlanResource = Field(..., alias="compliancePlan")
    """
    The compliance plan: the steps before a transaction
    """
    redirect_url: str | None = Field(..., alias="redirectUrl")
    """
    Where to send the customer after onboarding (as given)
    """
    label: str | None = None
    """
    Free text for the project's own reference (stored, returned)
    """
    onboarding_redirect_url: str | None = Field(None, alias="onboardingRedirectUrl")
    """
    Where the hosted onboarding sends the customer once done
    """
    checkout_redirect_url: str | None = Field(None, alias="checkoutRedirectUrl")
    """
    Where the hosted onboarding sends the customer after the deposit instructions
    """
    auto_execute: bool = Field(..., alias="autoExecute")
    """
    Whether the transaction is created as soon as the compliance plan completes
    """
    expired_at: AwareDatetime = Field(..., alias="expiredAt")
    """
    When the intent expires unless it has a transaction by then (ISO 8601, UTC, milliseconds)
    """
    created_at: AwareDatetime = Field(..., alias="createdAt")
    """
    When the intent was created (ISO 8601, UTC, milliseconds)
    """
    updated_at: AwareDatetime = Field(..., alias="updatedAt")
    """
    When the intent last changed (ISO 8601, UTC, milliseconds)
    """


class OnboardingResource(BaseModel):
    """
    An intent's onboarding as its customer sees it: what the hosted page renders.
    """

    model_config = ConfigDict(
        populate_by_name=True,
    )
    intent_id: str = Field(..., alias="intentId")
    """
    Id of the intent
    """
    status: Literal["PENDING", "PROCESSING", "COMPLETED", "FAILED", "EXPIRED", "CANCELLED"] = Field(
        ..., title="IntentStatus"
    )
    """
    The intent's status
    """
    failure_reason: str | None = Field(..., alias="failureReason")
    """
    Why it failed, in words; null unless the status is FAILED
    """
    plan_status: Literal["PENDING", "COMPLETED", "FAILED"] = Field(
        ..., alias="planStatus", title="PlanStatus"
    )
    """
    The compliance plan's status
    """
    current_step_code: str | None = Field(..., alias="currentStepCode")
    """
    The step to submit next (null: none is open)
    """
    provider: OnboardingProvider
    """
    The provider the customer onboards with
    """
    transfer_amount: TransferAmountResource = Field(..., alias="transferAmount")
    """
    The amount the customer sends, in the source currency
    """
    auto_execute: bool = Field(..., alias="autoExecute")
    """
    Whether the transaction is created as soon as the compliance plan completes
    """
    redirect_url: str | None = Field(..., alias="redirectUrl")
    """
    Where to send the customer after onboarding (as given)
    """
    embed_origins: list[str] = Field(..., alias="embedOrigins")
    """
    Origins that may embed the page: the only targets of its postMessage
    """
    steps: list[OnboardingStep]
    """
    In the plan's order
    """
    sharing: list[OnboardingSharing] | None = None
    """
    Data another provider holds that would fill the open steps, with the customer's consent (POST /v1/onboarding/{intentId}/consent answers it)
    """
    transaction: OnboardingTransaction | None
    """
    Present once the transaction exists: deposit instructions
    """
    expired_at: AwareDatetime = Field(..., alias="expiredAt")
    """
    When the intent expires unless it has a transaction by then (ISO 8601, UTC, milliseconds)
    """


class IntentEnvelope(BaseModel):
    model_config = ConfigDict(
        populate_by_name=True,
    )
    intent: IntentResource
    """
    The intent
    """
    frontend_url: str | None = Field(..., alias="frontendUrl")
    """
    Hosted onboarding (with a short-lived token), or null
    """
    workflow_id: str | None = Field(..., alias="workflowId")
    """
    The intent's workflow while it is onboarding, or null
    """
    transaction: TransactionResource | None
    """
    The intent's transaction, or null before it exists
    """
