"""The onboarding activity: verify what a customer submitted for a compliance step.

The submission itself was stored (encrypted) by the API; the workflow passes only its
id, so personal data never enters a workflow history. This activity reads it back,
decrypts it and asks the verifier of the intent's provider for a verdict.
"""

from __future__ import annotations

import json

from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio import activity

from ramp.db.tables import OnboardingSubmission
from ramp.errors import OnboardingError, Unavailable
from ramp.intents.models import SubmissionCheck, Verdict
from ramp.onboarding.verification import NoVerifier, VerificationRequest, Verifiers
from ramp.security.encryption import SecretBox
from ramp.temporal import application_error


class OnboardingActivities:
    def __init__(
        self,
        db: async_sessionmaker[AsyncSession],
        secret_box: SecretBox,
        verifiers: Verifiers,
    ) -> None:
        self._db = db
        self._box = secret_box
        self._verifiers = verifiers

    @activity.defn
    async def verify_submission(self, check: SubmissionCheck) -> Verdict:
        try:
            verifier = self._verifiers.for_provider(check.provider_code)
        except NoVerifier as error:
            raise application_error(
                Unavailable(OnboardingError.VERIFICATION_UNAVAILABLE, str(error))
            ) from None
        async with self._db() as session:
            row = await session.get(OnboardingSubmission, check.submission_id)
        if row is None or row.intent_id != check.intent_id or row.step_code != check.step_code:
            raise application_error(
                Unavailable(
                    OnboardingError.SUBMISSION_NOT_FOUND, "no such submission for this step"
                )
            )
        payload = json.loads(self._box.decrypt(row.payload_encrypted))
        return await verifier.verify(
            VerificationRequest(
                submission_id=check.submission_id,
                intent_id=check.intent_id,
                customer_id=check.customer_id,
                provider_code=check.provider_code,
                requirement_code=check.step_code,
                amount=check.amount,
                currency_code=check.currency_code,
                payload=payload,
            )
        )
