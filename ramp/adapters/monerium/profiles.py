"""Profiles at Monerium: the customer, created under an id we choose, and its KYC.

`POST /profiles` with `{id, kind}` creates a profile whose id we pick: it is derived
from our customer id, so a retried call finds the profile the first made (Monerium
answers 409 "Profile already exists", and `GET /profiles/{id}` reads it). Monerium's
ids are version-4 UUIDs (its schema checks the version and variant bits), so ours is
a SHA-256 digest of our customer id with those bits set.

A profile has sections, each `incomplete`, `pending`, `approved` or `rejected`:
`details` (name, birth date, address, nationality, ID document), `form` (risk data)
and `verifications` (`idDocument`, `proofOfResidency`, `sourceOfFunds`...), plus a
profile state over them (`created` and the same four). Our requirements map onto them
(docs/providers.md, "Monerium: compliance"): KYC_BASIC is `details` with the
`idDocument` verification, PROOF_OF_ADDRESS the `proofOfResidency` verification,
SOURCE_OF_FUNDS the `form` with the `sourceOfFunds` verification. We collect the data
on our hosted onboarding (FORM) and forward it (`details_body`); Monerium's verdicts
come by `profile.updated` webhooks or by reading the profile.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ramp.adapters.contract import (
    ComplianceHandoff,
    ComplianceMode,
    CustomerProfile,
    NotSupported,
    ProviderCustomerRef,
    ProviderRefused,
)
from ramp.intents.states import StepOutcome

from .client import MoneriumClient

KYC_BASIC: Final = "KYC_BASIC"
PROOF_OF_ADDRESS: Final = "PROOF_OF_ADDRESS"
SOURCE_OF_FUNDS: Final = "SOURCE_OF_FUNDS"

# A section's state -> our step outcome; None: the customer still has data to give.
SECTION_OUTCOMES: Final[Mapping[str, StepOutcome | None]] = {
    "created": None,
    "incomplete": None,
    "pending": StepOutcome.SUBMITTED,
    "approved": StepOutcome.VERIFIED,
    "rejected": StepOutcome.REJECTED,
}
# Worst first: a requirement is as far as its least advanced part.
_SEVERITY: Final[Mapping[str, int]] = {
    "rejected": 0, "created": 1, "incomplete": 1, "pending": 2, "approved": 3,
}  # fmt: skip

# Our requirement -> (the profile's section, the verification kinds) that decide it.
REQUIREMENT_PARTS: Final[Mapping[str, tuple[str | None, tuple[str, ...]]]] = {
    KYC_BASIC: ("details", ("idDocument",)),
    PROOF_OF_ADDRESS: (None, ("proofOfResidency",)),
    SOURCE_OF_FUNDS: ("form", ("sourceOfFunds",)),
}


def profile_id(customer_id: str) -> str:
    """The Monerium profile id of our customer: stable, and a version-4 UUID."""
    digest = hashlib.sha256(f"ramp-customer:{customer_id}".encode()).digest()[:16]
    return str(uuid.UUID(bytes=digest, version=4))


def profile_kind(customer: CustomerProfile) -> str:
    return "corporate" if customer.type == "business" else "personal"


async def ensure_profile(client: MoneriumClient, customer: CustomerProfile) -> ProviderCustomerRef:
    wanted = profile_id(customer.customer_id)
    answer = await client.post(
        "/profiles", {"id": wanted, "kind": profile_kind(customer)}, expect=(409,)
    )
    if answer.status == 409:
        # Made by an earlier attempt (or an earlier intent): the same profile.
        answer = await client.get(f"/profiles/{wanted}")
    body = answer.body if isinstance(answer.body, dict) else {}
    return ProviderCustomerRef(provider_customer_id=str(body.get("id") or wanted))


def _verification_states(profile: Mapping[str, Any]) -> dict[str, str]:
    found: dict[str, str] = {}
    verifications = profile.get("verifications")
    for item in verifications if isinstance(verifications, list) else []:
        if isinstance(item, dict) and item.get("kind") and item.get("state"):
            found[str(item["kind"])] = str(item["state"])
    return found


def requirement_state(profile: Mapping[str, Any], requirement: str) -> str:
    """Monerium's state of what decides `requirement`: the least advanced of its parts
    (a part the profile does not list does not count); the profile's own state when a
    final verdict (approved, rejected) was given to the whole profile."""
    try:
        section, kinds = REQUIREMENT_PARTS[requirement]
    except KeyError:
        raise NotSupported(f"Monerium does not handle the requirement {requirement}") from None
    overall = str(profile.get("state") or "created")
    if overall in ("approved", "rejected"):
        return overall
    states: list[str] = []
    if section is not None:
        part = profile.get(section)
        if isinstance(part, dict) and part.get("state"):
            states.append(str(part["state"]))
    verifications = _verification_states(profile)
    states.extend(verifications[kind] for kind in kinds if kind in verifications)
    if not states:
        return overall
    return min(states, key=lambda state: _SEVERITY.get(state, 1))


def handoff(profile: Mapping[str, Any], requirement: str) -> ComplianceHandoff:
    state = requirement_state(profile, requirement)
    outcome = SECTION_OUTCOMES.get(state)
    return ComplianceHandoff(
        requirement=requirement,
        mode=ComplianceMode.FORM,
        outcome=outcome,
        reason="Monerium rejected the profile" if outcome is StepOutcome.REJECTED else None,
    )


def handoffs(profile: Mapping[str, Any]) -> dict[str, ComplianceHandoff]:
    """Every requirement the profile decides, with its verdict so far."""
    return {requirement: handoff(profile, requirement) for requirement in REQUIREMENT_PARTS}


async def compliance(
    client: MoneriumClient, customer: ProviderCustomerRef, requirement: str
) -> ComplianceHandoff:
    if requirement not in REQUIREMENT_PARTS:
        raise NotSupported(f"Monerium does not handle the requirement {requirement}")
    answer = await client.get(f"/profiles/{customer.provider_customer_id}")
    return handoff(answer.body if isinstance(answer.body, dict) else {}, requirement)


# --- what we forward -------------------------------------------------------------------

# Our KYC_BASIC document types -> Monerium's ID document kinds (a driving licence is not
# one Monerium takes for identity).
ID_DOCUMENT_KINDS: Final[Mapping[str, str]] = {
    "PASSPORT": "passport",
    "NATIONAL_ID": "nationalIdentityCard",
}


def details_body(kyc_basic: Mapping[str, Any], *, email: str, phone: str | None) -> dict[str, Any]:
    """Monerium's personal `details` from what our hosted onboarding collected for
    KYC_BASIC (ramp/onboarding/forms.py): the same facts, never asked twice. Monerium
    also wants a phone number: the KYC_BASIC form asks it (E.164) when the intent's
    provider is Monerium, and it travels in the submission's `phone`."""
    phone = phone or kyc_basic.get("phone")
    address = kyc_basic.get("address") or {}
    street = ", ".join(str(part) for part in (address.get("line1"), address.get("line2")) if part)
    personal: dict[str, Any] = {
        "firstName": kyc_basic.get("firstName"),
        "lastName": kyc_basic.get("lastName"),
        "address": street or None,
        "postalCode": address.get("postalCode"),
        "city": address.get("city"),
        "country": address.get("country"),
        "countryState": address.get("region"),
        "nationality": kyc_basic.get("nationality"),
        "birthday": kyc_basic.get("dateOfBirth"),
        "email": email,
        "phone": phone,
    }
    document = kyc_basic.get("idDocument") or {}
    kind = ID_DOCUMENT_KINDS.get(str(document.get("documentType")))
    if kind and document.get("documentNumber"):
        personal["idDocument"] = {"kind": kind, "number": document["documentNumber"]}
    return {"personal": {k: v for k, v in personal.items() if v}}


# Monerium's field (an `errors` key of a details refusal) -> our JSON pointer in KYC_BASIC.
DETAILS_POINTERS: Final[Mapping[str, str]] = {
    "firstName": "/firstName",
    "lastName": "/lastName",
    "birthday": "/dateOfBirth",
    "nationality": "/nationality",
    "address": "/address/line1",
    "postalCode": "/address/postalCode",
    "city": "/address/city",
    "country": "/address/country",
    "idDocument.number": "/idDocument/documentNumber",
    "idDocument.kind": "/idDocument/documentType",
    "phone": "/phone",
}


def _pointer(name: str) -> str | None:
    return DETAILS_POINTERS.get(name.removeprefix("personal."))


async def submit_details(
    client: MoneriumClient,
    customer: ProviderCustomerRef,
    kyc_basic: Mapping[str, Any],
    *,
    email: str,
    phone: str | None = None,
) -> None:
    """Forwards KYC_BASIC to the profile's `details` (202: Monerium reviews it; 409:
    already approved, nothing to send)."""
    await client.patch(
        f"/profiles/{customer.provider_customer_id}/details",
        details_body(kyc_basic, email=email, phone=phone),
        expect=(409,),
        fields=_pointer,
    )


def missing_details(body: Mapping[str, Any], required: Sequence[str]) -> list[str]:
    """Which of Monerium's required personal fields a `details_body` lacks."""
    personal = body.get("personal") or {}
    return [name for name in required if not personal.get(name)]


# PersonalDetails' required fields in Monerium's document.
REQUIRED_PERSONAL: Final = (
    "firstName", "lastName", "address", "postalCode", "city", "country", "nationality",
    "birthday", "phone", "email",
)  # fmt: skip


# Our requirement -> Monerium's verification kind and document kind for its file.
VERIFICATION_KINDS: Final[Mapping[str, tuple[str, str]]] = {
    KYC_BASIC: ("idDocument", "passport"),
    PROOF_OF_ADDRESS: ("proofOfResidency", "proofOfResidency"),
}
DOCUMENT_KINDS: Final[Mapping[str, str]] = {
    "PASSPORT": "passport",
    "NATIONAL_ID": "nationalIdentityCard",
    "DRIVING_LICENCE": "drivingLicense",
}


async def submit_document(
    client: MoneriumClient,
    customer: ProviderCustomerRef,
    requirement: str,
    document: Mapping[str, Any],
    document_type: str | None = None,
) -> str:
    """Uploads one of our documents (`POST /files`) and attaches it to the profile's
    verification for `requirement` (`PATCH /profiles/{id}/verifications`); the file id."""
    verification, kind = VERIFICATION_KINDS[requirement]
    kind = DOCUMENT_KINDS.get(str(document_type), kind) if requirement == KYC_BASIC else kind
    data = base64.b64decode(str(document["data"]))
    uploaded = await client.upload(
        "/files", str(document["filename"]), str(document["contentType"]), data
    )
    file_id = str((uploaded.body or {}).get("id") or "")
    if not file_id:
        raise ProviderRefused("Monerium returned an upload without a file id")
    await client.patch(
        f"/profiles/{customer.provider_customer_id}/verifications",
        {"personal": [{"kind": verification, "documents": [{"kind": kind, "fileId": file_id}]}]},
        expect=(409,),
    )
    return file_id
