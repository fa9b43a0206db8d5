"""Verification of onboarding submissions: a verifier per provider.

The activity `verify_submission` hands the decrypted submission to the verifier of the
intent's provider. In the sandbox every mock provider uses `SandboxVerifier`, which
decides from documented test values (docs/sandbox.md); a real provider or KYC vendor
gets an adapter implementing `Verifier` (roadmap). A provider without one cannot be
onboarded: `NoVerifier` makes the submission fail with VERIFICATION_UNAVAILABLE, and
nothing is recorded as verified.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Protocol

from ramp.catalog import SANDBOX_PROVIDERS
from ramp.intents.models import Verdict
from ramp.intents.states import StepOutcome


@dataclass(frozen=True)
class VerificationRequest:
    # The stored submission: a vendor's idempotency key (the local activity that asks
    # may run again after a crash or a timeout; the vendor must not count it twice).
    submission_id: str
    intent_id: str
    customer_id: str
    provider_code: str
    requirement_code: str
    amount: Decimal
    currency_code: str
    # The validated submission, as the customer sent it (camelCase JSON).
    payload: Mapping[str, Any]


class Verifier(Protocol):
    async def verify(self, request: VerificationRequest) -> Verdict:
        """VERIFIED, REJECTED with a reason, or SUBMITTED (a person reviews it)."""
        ...


class NoVerifier(LookupError):
    pass


# The field whose value selects the sandbox outcome, per requirement code, and the
# reason a rejection gives. TERMS_OF_SERVICE has none: accepting is the whole check.
SANDBOX_TRIGGER_FIELDS: dict[str, str] = {
    "KYC_BASIC": "lastName",
    "KYC_ENHANCED": "occupation",
    "PROOF_OF_ADDRESS": "issuer",
    "SOURCE_OF_FUNDS": "description",
}
SANDBOX_REJECTION_REASONS: dict[str, str] = {
    "KYC_BASIC": "identity could not be verified",
    "KYC_ENHANCED": "enhanced due diligence failed",
    "PROOF_OF_ADDRESS": "the document does not prove the address",
    "SOURCE_OF_FUNDS": "the source of funds could not be evidenced",
}
SANDBOX_REJECT = "reject"
SANDBOX_REVIEW = "review"


def sandbox_verdict(requirement_code: str, payload: Mapping[str, Any]) -> Verdict:
    """`Reject` in the trigger field rejects, `Review` leaves the step under review
    (resolved with POST /v1/sandbox/intents/{id}/compliance-steps/{code}); anything
    else verifies. Case and surrounding spaces do not matter."""
    field = SANDBOX_TRIGGER_FIELDS.get(requirement_code)
    value = payload.get(field) if field else None
    word = value.strip().casefold() if isinstance(value, str) else ""
    if word == SANDBOX_REJECT:
        reason = SANDBOX_REJECTION_REASONS.get(requirement_code, "verification refused")
        return Verdict(outcome=StepOutcome.REJECTED, reason=reason)
    if word == SANDBOX_REVIEW:
        return Verdict(outcome=StepOutcome.SUBMITTED)
    return Verdict(outcome=StepOutcome.VERIFIED)


class SandboxVerifier:
    async def verify(self, request: VerificationRequest) -> Verdict:
        return sandbox_verdict(request.requirement_code, request.payload)


class Verifiers:
    def __init__(self, by_provider: Mapping[str, Verifier]) -> None:
        self._by_provider = dict(by_provider)

    def merged(self, other: Verifiers) -> Verifiers:
        """These verifiers and `other`'s (`other` wins for a provider in both)."""
        return Verifiers({**self._by_provider, **other._by_provider})

    def for_provider(self, provider_code: str) -> Verifier:
        try:
            return self._by_provider[provider_code]
        except KeyError:
            raise NoVerifier(
                f"no verification service is configured for provider {provider_code}"
            ) from None


def catalog_verifiers() -> Verifiers:
    """A verifier for every provider of the catalog (today: the sandbox's mocks)."""
    return Verifiers({p.code: SandboxVerifier() for p in SANDBOX_PROVIDERS})
