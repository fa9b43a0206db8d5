"""Verification by the provider itself: what our hosted page collected is forwarded to
the provider, which decides later (Monerium: its profile's sections, verdicts by
`profile.updated`). The step is SUBMITTED meanwhile.

A verifier per provider (ramp/onboarding/verification.py): for a connector that takes
our forms (`forward_form`, Monerium's), the submission goes to the provider customer
the compliance activity made, with the customer's e-mail from their metadata.
"""

from __future__ import annotations

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.adapters.contract import ProviderCustomerRef, ProviderError, ProviderRefused
from ramp.adapters.registry import Connectors
from ramp.db.tables import Customer, IntentRow, ProviderCustomer
from ramp.errors import OnboardingError, Unavailable
from ramp.intents.models import Verdict
from ramp.intents.states import StepOutcome
from ramp.onboarding.verification import VerificationRequest
from ramp.provider_accounts.service import provider_context
from ramp.security.encryption import SecretBox
from ramp.temporal import application_error


class ProviderFormsVerifier:
    """Forwards a submission to the intent's provider; SUBMITTED until it decides."""

    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        secret_box: SecretBox,
        connectors: Connectors | None = None,
    ) -> None:
        self._db = db
        self._box = secret_box
        self._connectors = connectors

    async def verify(self, request: VerificationRequest) -> Verdict:
        async with self._db() as session:
            intent = await session.get(IntentRow, request.intent_id)
            customer = await session.get(Customer, request.customer_id)
            if intent is None or customer is None:
                raise application_error(
                    Unavailable(OnboardingError.VERIFICATION_UNAVAILABLE, "no such intent")
                )
            _, connector, ctx = await provider_context(
                session,
                provider_account_id=intent.provider_account_id,
                secret_box=self._box,
                connectors=self._connectors,
            )
            known = (
                await session.exec(
                    select(ProviderCustomer).where(
                        ProviderCustomer.provider_account_id == intent.provider_account_id,
                        ProviderCustomer.customer_id == request.customer_id,
                    )
                )
            ).first()
        forward = getattr(connector, "forward_form", None)
        if forward is None or known is None:
            raise application_error(
                Unavailable(
                    OnboardingError.VERIFICATION_UNAVAILABLE,
                    f"{intent.provider_name} is not ready to take this step yet: try again",
                )
            )
        email = str((customer.customer_metadata or {}).get("email") or "")
        ref = ProviderCustomerRef(
            provider_customer_id=known.provider_customer_id, handles=known.handles
        )
        try:
            await forward(ctx, ref, request.requirement_code, request.payload, email=email)
        except ProviderRefused as refused:
            return Verdict(outcome=StepOutcome.REJECTED, reason=refused.reason)
        except ProviderError as error:
            raise application_error(
                Unavailable(
                    OnboardingError.VERIFICATION_UNAVAILABLE,
                    f"{intent.provider_name} did not take the step: {error}",
                )
            ) from None
        return Verdict(outcome=StepOutcome.SUBMITTED)
