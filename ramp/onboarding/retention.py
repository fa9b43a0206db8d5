"""How long onboarding submissions are kept, and what stays of them afterwards.

A submission (identity data, ID document images, source-of-funds evidence) is kept
while its intent runs and for the retention period after it ended (RAMP_KYC_RETENTION_DAYS,
90 days by default; docs/decisions.md, "Data at rest"). Then it is deleted and an
`OnboardingVerdict` remains: which requirement, which verdict and when, and a keyed hash
of the content; no personal data.

What a customer gave, kept to fill another provider's forms with their consent
(`ComplianceRecord`, ramp/onboarding/reuse.py), follows the same period from when it
was last given: then it is deleted (`purge_shared_records`), and the next provider asks
again. The consents stay: they hold no personal data, only field names and when.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete
from sqlmodel import col, select
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.db.tables import (
    ComplianceRecord,
    ComplianceStepRow,
    IntentRow,
    OnboardingSubmission,
    OnboardingVerdict,
)
from ramp.db.types import utcnow
from ramp.intents.states import TERMINAL_INTENT_STATUSES, StepStatus
from ramp.security.encryption import SecretBox

# Submissions purged per database transaction (documents are up to 4 MiB each).
PURGE_BATCH = 50
VERDICT_BY_STEP_STATUS = {StepStatus.COMPLETED: "VERIFIED", StepStatus.REJECTED: "REJECTED"}
UNDECIDED = "UNDECIDED"


async def purge_batch(session: AsyncSession, box: SecretBox, retention: timedelta) -> int:
    """Replaces up to PURGE_BATCH submissions of intents that ended more than
    `retention` ago with their verdicts; commits; returns how many."""
    now = utcnow()
    found = (
        await session.exec(
            select(OnboardingSubmission, IntentRow)
            .join(IntentRow, col(IntentRow.id) == col(OnboardingSubmission.intent_id))
            .where(
                col(IntentRow.status).in_([status.value for status in TERMINAL_INTENT_STATUSES]),
                # A terminal intent never changes again: its last update is when it ended.
                col(IntentRow.updated_at) <= now - retention,
            )
            .order_by(col(OnboardingSubmission.created_at))
            .limit(PURGE_BATCH)
        )
    ).all()
    if not found:
        return 0
    steps = await _steps(session, {intent.id for _, intent in found})
    for submission, intent in found:
        step = steps.get((intent.id, submission.step_code))
        session.add(
            OnboardingVerdict(
                submission_id=submission.id,
                intent_id=intent.id,
                customer_id=intent.customer_id,
                provider_code=intent.provider_code,
                step_code=submission.step_code,
                verdict=_verdict(step),
                submitted_at=submission.created_at,
                decided_at=_decided_at(step),
                content_hash=box.keyed_hash(_canonical(box.decrypt(submission.payload_encrypted))),
                purged_at=now,
            )
        )
    await session.exec(
        delete(OnboardingSubmission).where(
            col(OnboardingSubmission.id).in_([submission.id for submission, _ in found])
        )
    )
    await session.commit()
    return len(found)


async def purge_shared_records(session: AsyncSession, retention: timedelta) -> int:
    """Deletes what customers gave more than `retention` ago for sharing; commits."""
    result = await session.exec(
        delete(ComplianceRecord).where(col(ComplianceRecord.recorded_at) <= utcnow() - retention)
    )
    await session.commit()
    return int(result.rowcount or 0)


async def _steps(
    session: AsyncSession, intent_ids: set[str]
) -> dict[tuple[str, str], ComplianceStepRow]:
    rows: Sequence[ComplianceStepRow] = (
        await session.exec(
            select(ComplianceStepRow).where(col(ComplianceStepRow.intent_id).in_(intent_ids))
        )
    ).all()
    return {(row.intent_id, row.code): row for row in rows}


def _verdict(step: ComplianceStepRow | None) -> str:
    if step is None:
        return UNDECIDED
    return VERDICT_BY_STEP_STATUS.get(StepStatus(step.status), UNDECIDED)


def _decided_at(step: ComplianceStepRow | None) -> datetime | None:
    if step is None:
        return None
    metadata: dict[str, Any] = step.step_metadata
    stamp = metadata.get("verifiedAt") or metadata.get("rejectedAt")
    return datetime.fromisoformat(stamp) if isinstance(stamp, str) else None


def _canonical(payload_json: str) -> str:
    # The hash covers the content, not the spelling of its JSON.
    return json.dumps(json.loads(payload_json), sort_keys=True, separators=(",", ":"))
