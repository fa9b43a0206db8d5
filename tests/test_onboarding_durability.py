"""A submission whose update is not answered in time is kept: the update may still run.

The worker runs as a process against this module's own Temporal server. With no
worker, a submission's update waits on the server until the API gives up (503); when a
worker returns it runs the update, and the verifier must still find the submission.
"""

from __future__ import annotations

import signal
from datetime import timedelta

import httpx
import pytest
from sqlmodel import select
from sqlmodel.ext.asyncio.session import AsyncSession

import ramp.onboarding.service
from ramp.db.tables import OnboardingSubmission
from tests.helpers.onboarding import TERMS, kyc_basic, start_onboarding, submit
from tests.helpers.payments import step_status, wait_for_intent
from tests.helpers.processes import WorkerProcesses
from tests.helpers.projects import ProjectCredentials, make_customer

# About an update kept with no worker, not the database: one of the two passes runs it.
pytestmark = pytest.mark.either_database

# After a SIGKILL the next task waits for the dead worker's sticky queue (about 10 s).
AFTER_RESTART_TIMEOUT = 45.0


async def test_an_unanswered_submission_is_kept_and_verified_later(
    http: httpx.AsyncClient,
    project: ProjectCredentials,
    workers: WorkerProcesses,
    db: AsyncSession,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    first = await workers.start()
    customer = await make_customer(http, project, "unanswered")
    token: str = customer["access_token"]
    intent_id, link = await start_onboarding(http, token)
    accepted = await submit(http, intent_id, link, "TERMS_OF_SERVICE", TERMS)
    assert accepted.status_code == 200, accepted.text

    first.kill()
    assert await first.wait() == -signal.SIGKILL
    # The API's wait for the workflow's answer, shortened so the test need not wait 30 s.
    monkeypatch.setattr(ramp.onboarding.service, "SUBMIT_TIMEOUT", timedelta(seconds=2))
    unanswered = await submit(http, intent_id, link, "KYC_BASIC", kyc_basic())
    assert unanswered.status_code == 503, unanswered.text

    kept = (
        await db.exec(
            select(OnboardingSubmission.step_code).where(
                OnboardingSubmission.intent_id == intent_id
            )
        )
    ).all()
    assert sorted(kept) == ["KYC_BASIC", "TERMS_OF_SERVICE"]

    # A new worker runs the update the server still holds; it finds the submission.
    await workers.start()
    verified = await wait_for_intent(
        http,
        token,
        intent_id,
        lambda body: step_status(body, "KYC_BASIC") == "COMPLETED",
        AFTER_RESTART_TIMEOUT,
    )
    assert verified["intent"]["compliancePlan"]["currentStepCode"] == "SOURCE_OF_FUNDS"
