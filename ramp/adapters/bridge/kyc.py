"""Compliance through Bridge's hosted flows: the KYC link and the terms-of-service link.

Both requirements are satisfied by a hand-off (LINK): the customer completes Bridge's
flow, and Bridge's verdict arrives by webhook (`kyc_link` events) or by polling the
KYC link. Bridge documents embedding both flows in an iframe, so they are embeddable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from ramp.adapters.contract import (
    ComplianceHandoff,
    ComplianceMode,
    NotSupported,
    ProviderCustomerRef,
)
from ramp.intents.states import StepOutcome

from .client import BridgeClient
from .customers import KYC_LINK_HANDLE

TERMS_OF_SERVICE: Final = "TERMS_OF_SERVICE"
KYC_BASIC: Final = "KYC_BASIC"
# Bridge's KYC flow also collects proof of address when the SEPA endorsement asks it.
PROOF_OF_ADDRESS: Final = "PROOF_OF_ADDRESS"

# kyc_status -> our step outcome; None: the customer still has something to do.
KYC_OUTCOMES: Final[Mapping[str, StepOutcome | None]] = {
    "not_started": None,
    "incomplete": None,
    "awaiting_questionnaire": None,
    "awaiting_ubo": None,
    "under_review": StepOutcome.SUBMITTED,
    "paused": StepOutcome.SUBMITTED,
    "approved": StepOutcome.VERIFIED,
    "rejected": StepOutcome.REJECTED,
    "offboarded": StepOutcome.REJECTED,
}
TOS_OUTCOMES: Final[Mapping[str, StepOutcome | None]] = {
    "pending": None,
    "approved": StepOutcome.VERIFIED,
}


def rejection_reason(link: Mapping[str, Any]) -> str | None:
    """Bridge's customer-facing reasons (never the developer ones, which may be internal)."""
    reasons = [
        str(r["reason"])
        for r in link.get("rejection_reasons") or []
        if isinstance(r, dict) and r.get("reason")
    ]
    return "; ".join(reasons) or None


def handoffs(link: Mapping[str, Any]) -> dict[str, ComplianceHandoff]:
    """Each requirement Bridge's KYC link covers, with its URL and verdict so far."""
    kyc_outcome = KYC_OUTCOMES.get(str(link.get("kyc_status")))
    reason = rejection_reason(link) if kyc_outcome is StepOutcome.REJECTED else None

    def kyc(requirement: str) -> ComplianceHandoff:
        return ComplianceHandoff(
            requirement=requirement,
            mode=ComplianceMode.LINK,
            url=link.get("kyc_link"),
            embeddable=True,
            outcome=kyc_outcome,
            reason=reason,
        )

    return {
        TERMS_OF_SERVICE: ComplianceHandoff(
            requirement=TERMS_OF_SERVICE,
            mode=ComplianceMode.LINK,
            url=link.get("tos_link"),
            embeddable=True,
            outcome=TOS_OUTCOMES.get(str(link.get("tos_status"))),
        ),
        KYC_BASIC: kyc(KYC_BASIC),
        PROOF_OF_ADDRESS: kyc(PROOF_OF_ADDRESS),
    }


async def compliance(
    client: BridgeClient, customer: ProviderCustomerRef, requirement: str
) -> ComplianceHandoff:
    link_id = customer.handles.get(KYC_LINK_HANDLE)
    if link_id is None:
        raise NotSupported("the Bridge customer has no KYC link on record")
    link = await client.get(f"/kyc_links/{link_id}")
    try:
        return handoffs(link)[requirement]
    except KeyError:
        raise NotSupported(f"Bridge does not handle the requirement {requirement}") from None
