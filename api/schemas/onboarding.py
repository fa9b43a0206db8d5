"""The hosted onboarding's JSON API and the project's embedding origins."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (
    Field,
    StrictStr,
)

from api.schemas.core import RequestBody, Resource, TransferAmountResource
from ramp.intents.models import (
    BankDepositInstructions,
    CryptoDepositInstructions,
)
from ramp.intents.states import (
    IntentStatus,
    PlanStatus,
    StepStatus,
    TransactionStatus,
)
from ramp.timestamps import Timestamp


class OnboardingField(Resource):
    """One input of a step's form; the page renders the fields in this order."""

    name: str = Field(description="The field's path in the request body, dotted")
    kind: Literal["text", "textarea", "date", "country", "select", "file", "checkbox", "tel"]
    required: bool
    options: list[str] = Field(description="Allowed values (select, country)")
    max_length: int | None = Field(alias="maxLength")
    accept: list[str] = Field(description="Accepted content types (file)")
    max_bytes: int | None = Field(alias="maxBytes", description="Largest file, decoded")
    autocomplete: str | None
    prefilled_from: str | None = Field(
        default=None,
        alias="prefilledFrom",
        description="The provider whose data fills this field, as the customer consented "
        "(`sharing`): the page does not ask it, and a submission may leave it out",
    )


class OnboardingSharing(Resource):
    """Data the customer gave another provider that fills this intent's open steps, and
    their answer to sharing it with this intent's provider (asked once per pair)."""

    provider_account_id: str = Field(
        alias="providerAccountId",
        description="The provider account holding the data: the consent's `providerAccountId`",
    )
    provider_name: str = Field(alias="providerName", description="Who holds the data")
    fields: list[str] = Field(
        description="What it fills, as STEP_CODE.field (the field's dotted path)"
    )
    consent: Literal["GRANTED", "DECLINED"] | None = Field(
        description="The customer's answer; null: not asked yet"
    )
    decided_at: Timestamp | None = Field(
        alias="decidedAt", description="When the customer answered; null: not asked yet"
    )


class OnboardingConsent(RequestBody):
    provider_account_id: Annotated[StrictStr, Field(min_length=1, max_length=36)] = Field(
        alias="providerAccountId", description="The `sharing` entry answered"
    )
    granted: bool = Field(description="true: share it with this intent's provider")


class OnboardingTerms(Resource):
    version: str = Field(description="Send it back as `termsVersion` when accepting")
    title: str
    paragraphs: list[str]


class OnboardingHandoff(Resource):
    """A step the customer completes in the provider's own hosted flow."""

    mode: Literal["LINK", "WAIT"]
    url: str | None = Field(description="LINK: the provider's page for this step")
    embeddable: bool = Field(description="Whether the provider allows it in an iframe")


class OnboardingStep(Resource):
    code: str
    description: str
    status: StepStatus
    depends_on: list[str] = Field(alias="dependsOn")
    completed_by: str | None = Field(
        alias="completedBy", description="RECORD (already on record) or ONBOARDING"
    )
    reason: str | None = Field(description="Why the step was rejected")
    fields: list[OnboardingField] | None = Field(
        description="The form of the step; null when the page has none for it"
    )
    terms: OnboardingTerms | None = Field(description="TERMS_OF_SERVICE: the terms to accept")
    handoff: OnboardingHandoff | None = Field(
        default=None,
        description="Set when the provider collects this step itself (its hosted flow); "
        "the page then shows no form and follows the step's status",
    )


class OnboardingProvider(Resource):
    code: str
    name: str


class OnboardingDepositInstruction(Resource):
    type: Literal["BANK", "CRYPTO"]
    instructions: BankDepositInstructions | CryptoDepositInstructions
    qr_code: str | None = Field(
        alias="qrCode",
        description="Crypto: a QR code of the deposit address, as an SVG data URI",
    )


class OnboardingTransaction(Resource):
    id: str
    status: TransactionStatus
    deposit_instructions: list[OnboardingDepositInstruction] = Field(alias="depositInstructions")


class OnboardingResource(Resource):
    """An intent's onboarding as its customer sees it: what the hosted page renders."""

    intent_id: str = Field(alias="intentId")
    status: IntentStatus
    failure_reason: str | None = Field(alias="failureReason")
    plan_status: PlanStatus = Field(alias="planStatus")
    current_step_code: str | None = Field(
        alias="currentStepCode", description="The step to submit next (null: none is open)"
    )
    provider: OnboardingProvider
    transfer_amount: TransferAmountResource = Field(alias="transferAmount")
    auto_execute: bool = Field(alias="autoExecute")
    redirect_url: str | None = Field(alias="redirectUrl")
    embed_origins: list[str] = Field(
        alias="embedOrigins",
        description="Origins that may embed the page: the only targets of its postMessage",
    )
    steps: list[OnboardingStep] = Field(description="In the plan's order")
    sharing: list[OnboardingSharing] = Field(
        default_factory=list,
        description="Data another provider holds that would fill the open steps, with the "
        "customer's consent (POST /v1/onboarding/{intentId}/consent answers it)",
    )
    transaction: OnboardingTransaction | None = Field(
        description="Present once the transaction exists: deposit instructions"
    )
    expired_at: Timestamp = Field(alias="expiredAt")


class OnboardingOrigins(RequestBody):
    origins: Annotated[
        list[Annotated[StrictStr, Field(min_length=1, max_length=300)]], Field(max_length=20)
    ] = Field(
        description="scheme://host[:port]; `:*` (any port) only on localhost",
        examples=[["https://app.example.com"]],
    )


class OnboardingOriginsResource(Resource):
    origins: list[str]
