"""The onboarding activity, as the intent workflow sees it: its name and types.

The implementation (activities/onboarding.py) registers under the same name; it reads
and decrypts the submission, which the workflow never sees.
"""

from __future__ import annotations

from temporalio import activity

from ramp.intents.models import SubmissionCheck, Verdict


@activity.defn(name="verify_submission")
async def verify_submission(check: SubmissionCheck) -> Verdict:
    """The verifier's verdict on a stored submission."""
    raise NotImplementedError("runs in the worker: OnboardingActivities.verify_submission")
