"""Requirement checks: does a customer already satisfy a provider's requirement?

One check per requirement code, registered with `@requirement_check`. A check returns
when the requirement is satisfied and raises (anything) when it is not: a check that
fails for an unexpected reason must send the customer to onboarding, never past it.
Requirements without a check of their own use `verified_on_record`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

logger = logging.getLogger("ramp.compliance")


class RequirementNotSatisfied(Exception):
    """The expected way for a check to say no; its message becomes the reason."""


@dataclass(frozen=True)
class VerificationRecord:
    """A requirement the customer satisfied with a provider, as stored."""

    satisfied_at: datetime
    expires_at: datetime | None


@dataclass(frozen=True)
class CheckContext:
    customer_id: str
    provider_code: str
    requirement_code: str
    amount: Decimal
    currency_code: str
    # The customer's verifications with this provider, by requirement code.
    records: Mapping[str, VerificationRecord]
    now: datetime


RequirementCheck = Callable[[CheckContext], None]

# How long a verification stays valid once recorded; absent means indefinitely.
VERIFICATION_VALIDITY: dict[str, timedelta] = {
    # Address evidence is a recent bill or statement: providers ask again after 90 days.
    "PROOF_OF_ADDRESS": timedelta(days=90),
}

_CHECKS: dict[str, RequirementCheck] = {}


def requirement_check(code: str) -> Callable[[RequirementCheck], RequirementCheck]:
    """Registers the check of one requirement code."""

    def register(check: RequirementCheck) -> RequirementCheck:
        _CHECKS[code] = check
        return check

    return register


def verified_on_record(context: CheckContext) -> None:
    """Satisfied when the customer completed this requirement with this provider before."""
    record = context.records.get(context.requirement_code)
    if record is None:
        raise RequirementNotSatisfied("no verification on record")
    if record.expires_at is not None and record.expires_at <= context.now:
        raise RequirementNotSatisfied("the verification on record has expired")


def check_for(code: str) -> RequirementCheck:
    return _CHECKS.get(code, verified_on_record)


def evaluate(context: CheckContext) -> str | None:
    """None when the requirement is satisfied, otherwise why not."""
    try:
        check_for(context.requirement_code)(context)
    except RequirementNotSatisfied as unsatisfied:
        return str(unsatisfied)
    except Exception:
        logger.exception("requirement check %s failed", context.requirement_code)
        return "the check could not be completed"
    return None


def verification_expiry(code: str, satisfied_at: datetime) -> datetime | None:
    validity = VERIFICATION_VALIDITY.get(code)
    return None if validity is None else satisfied_at + validity
