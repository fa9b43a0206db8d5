"""What the customer submits for each requirement code, and the form the page shows.

Each requirement code has a pydantic model (strict, camelCase, unknown fields refused)
that `POST /v1/onboarding/{intentId}/steps/{stepCode}` validates against, and a list of
`FormField`s that `GET /v1/onboarding/{intentId}` hands to the page: the page renders
the fields it is given, in that order, and never decides on its own what to ask.

Documents travel as base64 inside the JSON body (`Document`): PNG, JPEG or PDF, at most
`MAX_DOCUMENT_BYTES` once decoded, and the first bytes must match the declared type.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass, replace
from datetime import date, timedelta
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    RootModel,
    StrictBool,
    StrictStr,
    field_validator,
    model_validator,
)
from pydantic.alias_generators import to_camel

from ramp.money import Money
from ramp.onboarding.countries import COUNTRIES, COUNTRY_CODES
from ramp.onboarding.funds import evidence_threshold, needs_evidence
from ramp.onboarding.terms import TERMS_VERSION

# Decoded size of one uploaded document.
MAX_DOCUMENT_BYTES = 4 * 1024 * 1024
# The largest onboarding request body: one document in base64 (4/3 of its size) and the
# fields around it. Other endpoints keep the API's general limit (RAMP_MAX_BODY_BYTES).
MAX_SUBMISSION_BYTES = 6 * 1024 * 1024
_MAX_BASE64_CHARS = (MAX_DOCUMENT_BYTES + 2) // 3 * 4
# What each accepted content type must start with (PNG signature, JPEG SOI, PDF header).
DOCUMENT_SIGNATURES: dict[str, bytes] = {
    "image/png": b"\x89PNG\r\n\x1a\n",
    "image/jpeg": b"\xff\xd8\xff",
    "application/pdf": b"%PDF-",
}
IMAGE_TYPES = ("image/png", "image/jpeg")

_PRINTABLE = re.compile(r"^[^\x00-\x1f\x7f]*$")


def _text(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    if not _PRINTABLE.match(value):
        raise ValueError("must not contain control characters")
    return value.strip()


def _multiline(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be blank")
    if re.search(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", value):
        raise ValueError("must not contain control characters")
    return value.strip()


def _country(value: str) -> str:
    if value not in COUNTRIES:
        raise ValueError("must be an ISO 3166-1 alpha-2 country code, such as DE or US")
    return value


def parse_date(value: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError("must be a date written YYYY-MM-DD") from None


def _date(value: str) -> str:
    parse_date(value)
    return value


Text = Annotated[StrictStr, Field(min_length=1, max_length=100), AfterValidator(_text)]
# E.164: a plus, the country calling code and the subscriber number, 8 to 15 digits in all
# (spaces, dashes and dots the customer types are removed before the check).
E164 = r"^\+[1-9][0-9]{7,14}$"


def _phone(value: str) -> str:
    compact = re.sub(r"[\s.()-]", "", value)
    if not re.match(E164, compact):
        raise ValueError("must be an international phone number (E.164), such as +4915123456789")
    return compact


Phone = Annotated[
    StrictStr, Field(min_length=8, max_length=24, examples=["+4915123456789"]),
    AfterValidator(_phone),
]  # fmt: skip
# Providers whose identity check needs the customer's phone number (Monerium's personal
# `details` require one; Bridge's KYC link does not ask us for it).
PHONE_REQUIRED_BY: frozenset[str] = frozenset({"MONERIUM"})
LongText = Annotated[StrictStr, Field(min_length=1, max_length=1000), AfterValidator(_multiline)]
Country = Annotated[
    StrictStr, Field(min_length=2, max_length=2, examples=["DE"]), AfterValidator(_country)
]
_DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
DateString = Annotated[
    StrictStr,
    Field(pattern=_DATE_PATTERN, examples=["1990-04-01"]),
    AfterValidator(_date),
]
# No example: any fixed date leaves the window one day. The rule is in the description.
RecentDate = Annotated[
    StrictStr,
    Field(pattern=_DATE_PATTERN, description="YYYY-MM-DD, within the last 12 months"),
    AfterValidator(_date),
]


class _Form(BaseModel):
    # Strict like every request body of the API: no coercion, unknown fields refused.
    model_config = ConfigDict(
        extra="forbid", strict=True, alias_generator=to_camel, populate_by_name=False
    )


class Document(_Form):
    """An uploaded file: base64 of its bytes, with its name and content type."""

    filename: Annotated[StrictStr, Field(min_length=1, max_length=200), AfterValidator(_text)]
    content_type: Literal["image/png", "image/jpeg", "application/pdf"]
    data: Annotated[
        StrictStr,
        Field(
            min_length=4,
            max_length=_MAX_BASE64_CHARS,
            description=f"Base64 (RFC 4648, with padding) of the file; at most "
            f"{MAX_DOCUMENT_BYTES} bytes once decoded",
        ),
    ]

    @field_validator("data")
    @classmethod
    def _base64(cls, value: str) -> str:
        try:
            decoded = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("must be base64 (RFC 4648, with padding)") from None
        if not decoded:
            raise ValueError("must not be empty")
        if len(decoded) > MAX_DOCUMENT_BYTES:
            raise ValueError(f"must be at most {MAX_DOCUMENT_BYTES} bytes once decoded")
        return value

    @model_validator(mode="after")
    def _signature(self) -> Document:
        head = base64.b64decode(self.data[:16])
        if not head.startswith(DOCUMENT_SIGNATURES[self.content_type]):
            raise ValueError(f"the file's content is not {self.content_type}")
        return self

    def size(self) -> int:
        return len(base64.b64decode(self.data))


class TermsOfServiceSubmission(_Form):
    """TERMS_OF_SERVICE: the customer accepts the provider's terms, in a given version."""

    accepted: StrictBool = Field(description="Must be true")
    terms_version: Annotated[StrictStr, Field(min_length=1, max_length=40)] = Field(
        description="The `terms.version` the customer was shown"
    )

    @field_validator("accepted")
    @classmethod
    def _accepted(cls, value: bool) -> bool:
        if not value:
            raise ValueError("the terms must be accepted")
        return value

    @field_validator("terms_version")
    @classmethod
    def _current(cls, value: str) -> str:
        if value != TERMS_VERSION:
            raise ValueError(f"the terms have changed (current version {TERMS_VERSION})")
        return value


class Address(_Form):
    line1: Text
    line2: Text | None = None
    city: Text
    region: Text | None = None
    postal_code: Annotated[
        StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9 -]{1,10}$", examples=["10115"])
    ]
    country: Country


class IdentityDocument(_Form):
    document_type: Literal["PASSPORT", "NATIONAL_ID", "DRIVING_LICENCE"]
    document_number: Annotated[StrictStr, Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9 -]{2,39}$")]
    file: Document


class KycBasicSubmission(_Form):
    """KYC_BASIC: identity of the customer, with a government ID."""

    first_name: Text
    last_name: Text
    date_of_birth: DateString = Field(description="YYYY-MM-DD; the customer is 18 or older")
    nationality: Country
    address: Address
    id_document: IdentityDocument
    phone: Phone | None = Field(
        default=None,
        description="E.164; required when the intent's provider needs it (Monerium)",
    )

    @field_validator("date_of_birth")
    @classmethod
    def _adult(cls, value: str) -> str:
        born = parse_date(value)
        today = date.today()
        age = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
        if age < 18:
            raise ValueError("the customer must be at least 18 years old")
        if age > 120:
            raise ValueError("must be a real date of birth")
        return value


class KycEnhancedSubmission(_Form):
    """KYC_ENHANCED: occupation and a selfie (the sandbox's stand-in for a liveness check)."""

    occupation: Text
    employer: Text | None = None
    selfie: Document

    @field_validator("selfie")
    @classmethod
    def _image(cls, value: Document) -> Document:
        if value.content_type not in IMAGE_TYPES:
            raise ValueError("the selfie must be a PNG or JPEG image")
        return value


class ProofOfAddressSubmission(_Form):
    """PROOF_OF_ADDRESS: a recent bill or statement naming the customer's address."""

    document_type: Literal["UTILITY_BILL", "BANK_STATEMENT", "TAX_NOTICE"]
    issuer: Text
    issue_date: RecentDate
    file: Document

    @field_validator("issue_date")
    @classmethod
    def _recent(cls, value: str) -> str:
        issued = parse_date(value)
        today = date.today()
        if issued > today:
            raise ValueError("must not be in the future")
        if issued < today - timedelta(days=365):
            raise ValueError("must be within the last 12 months")
        return value


class SourceOfFundsSubmission(_Form):
    """SOURCE_OF_FUNDS: where the money comes from; evidence for large amounts."""

    source: Literal[
        "SALARY", "SAVINGS", "BUSINESS_INCOME", "INVESTMENTS", "INHERITANCE", "SALE_OF_ASSETS"
    ]
    description: LongText
    evidence: Document | None = None


SUBMISSION_MODELS: dict[str, type[_Form]] = {
    "TERMS_OF_SERVICE": TermsOfServiceSubmission,
    "KYC_BASIC": KycBasicSubmission,
    "KYC_ENHANCED": KycEnhancedSubmission,
    "PROOF_OF_ADDRESS": ProofOfAddressSubmission,
    "SOURCE_OF_FUNDS": SourceOfFundsSubmission,
}

FieldKind = Literal["text", "textarea", "date", "country", "select", "file", "checkbox", "tel"]


@dataclass(frozen=True)
class FormField:
    """One input of a form. `name` is the field's path in the JSON body, dotted."""

    name: str
    kind: FieldKind
    required: bool = True
    options: tuple[str, ...] = ()
    max_length: int | None = None
    # For files: accepted content types and the decoded size limit.
    accept: tuple[str, ...] = ()
    max_bytes: int | None = None
    # The HTML autocomplete token, so browsers can fill what they know.
    autocomplete: str | None = None


def _file(name: str, accept: tuple[str, ...] = tuple(DOCUMENT_SIGNATURES), **kw: Any) -> FormField:
    return FormField(name, "file", accept=accept, max_bytes=MAX_DOCUMENT_BYTES, **kw)


FORMS: dict[str, tuple[FormField, ...]] = {
    "TERMS_OF_SERVICE": (FormField("accepted", "checkbox"),),
    "KYC_BASIC": (
        FormField("firstName", "text", max_length=100, autocomplete="given-name"),
        FormField("lastName", "text", max_length=100, autocomplete="family-name"),
        FormField("dateOfBirth", "date", autocomplete="bday"),
        FormField("nationality", "country", options=COUNTRY_CODES),
        FormField("address.line1", "text", max_length=100, autocomplete="address-line1"),
        FormField(
            "address.line2", "text", required=False, max_length=100, autocomplete="address-line2"
        ),
        FormField("address.city", "text", max_length=100, autocomplete="address-level2"),
        FormField(
            "address.region", "text", required=False, max_length=100, autocomplete="address-level1"
        ),
        FormField("address.postalCode", "text", max_length=11, autocomplete="postal-code"),
        FormField("address.country", "country", options=COUNTRY_CODES, autocomplete="country"),
        FormField(
            "idDocument.documentType",
            "select",
            options=("PASSPORT", "NATIONAL_ID", "DRIVING_LICENCE"),
        ),
        FormField("idDocument.documentNumber", "text", max_length=40),
        _file("idDocument.file"),
    ),
    "KYC_ENHANCED": (
        FormField("occupation", "text", max_length=100, autocomplete="organization-title"),
        FormField("employer", "text", required=False, max_length=100, autocomplete="organization"),
        _file("selfie", accept=IMAGE_TYPES),
    ),
    "PROOF_OF_ADDRESS": (
        FormField(
            "documentType", "select", options=("UTILITY_BILL", "BANK_STATEMENT", "TAX_NOTICE")
        ),
        FormField("issuer", "text", max_length=100),
        FormField("issueDate", "date"),
        _file("file"),
    ),
    "SOURCE_OF_FUNDS": (
        FormField(
            "source",
            "select",
            options=(
                "SALARY",
                "SAVINGS",
                "BUSINESS_INCOME",
                "INVESTMENTS",
                "INHERITANCE",
                "SALE_OF_ASSETS",
            ),
        ),
        FormField("description", "textarea", max_length=1000),
        _file("evidence", required=False),
    ),
}


PHONE_FIELD = FormField("phone", "tel", max_length=24, autocomplete="tel")


def form_fields(
    code: str, transfer: Money, provider_code: str | None = None
) -> tuple[FormField, ...] | None:
    """The fields of `code`'s form for an intent that moves `transfer` through
    `provider_code`, or None."""
    fields = FORMS.get(code)
    if fields is None:
        return None
    if code == "KYC_BASIC" and provider_code in PHONE_REQUIRED_BY:
        return (*fields, PHONE_FIELD)
    if code == "SOURCE_OF_FUNDS" and needs_evidence(transfer):
        return tuple(replace(f, required=True) if f.name == "evidence" else f for f in fields)
    return fields


class SubmissionProblem(ValueError):
    """A rule that needs the intent (not only the body) refused the submission."""

    def __init__(self, pointer: str, reason: str) -> None:
        super().__init__(reason)
        self.pointer = pointer
        self.reason = reason


def check_for_intent(
    code: str, submission: BaseModel, transfer: Money, provider_code: str | None = None
) -> None:
    """Rules that depend on the intent: evidence of funds from the currency's threshold
    on, the phone number where the provider needs one."""
    if (
        isinstance(submission, KycBasicSubmission)
        and submission.phone is None
        and provider_code in PHONE_REQUIRED_BY
    ):
        raise SubmissionProblem(
            "/phone", "is required by this provider (E.164, such as +4915123456789)"
        )
    if (
        isinstance(submission, SourceOfFundsSubmission)
        and submission.evidence is None
        and needs_evidence(transfer)
    ):
        threshold = evidence_threshold(transfer.currency)
        raise SubmissionProblem(
            "/evidence", f"is required for amounts of {threshold} {transfer.currency} or more"
        )


class AnySubmission(
    RootModel[
        TermsOfServiceSubmission
        | KycBasicSubmission
        | KycEnhancedSubmission
        | ProofOfAddressSubmission
        | SourceOfFundsSubmission
    ]
):
    """The body of a step submission: the model of the step's requirement code
    (TERMS_OF_SERVICE, KYC_BASIC, KYC_ENHANCED, PROOF_OF_ADDRESS, SOURCE_OF_FUNDS).
    Documents are base64 in JSON: PNG, JPEG or PDF, at most 4 MiB each once decoded."""
