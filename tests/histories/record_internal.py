"""Records the IntentWorkflow history of an order that failed on our side.

    .venv/bin/python -m tests.histories.record_internal   # paths without a file

Like tests/histories/record.py (same stack, files and replay check before writing):

- `order_internal_error` (patch `internal-order-error-kept`): a sandbox intent onboarded
  without autoExecute; `POST /intent/{id}/transaction` while the database refuses the
  order's statement (its `partner_fee` table renamed away) answers 503 and the intent
  keeps Atlas; asked again once the table is back, the order is placed with Atlas, and
  the transfer settles (dev server).
"""

from __future__ import annotations

import asyncio
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from ramp.intents.states import IntentStatus
from tests.helpers.payments import (
    complete_onboarding,
    provider_event,
    register_accounts,
    wait_for_intent,
)
from tests.helpers.projects import bearer
from tests.helpers.servers import dev_server
from tests.histories.record import (
    INTERNAL_ERROR_PATHS,
    Recorded,
    Stack,
    _new_intent,
    _save,
    running_stack,
)
from tests.histories.recorder_cli import run_recorder


def _rename(database: Path, old: str, new: str) -> None:
    with sqlite3.connect(database) as connection:
        connection.execute(f"ALTER TABLE {old} RENAME TO {new}")


async def record_order_internal_error(stack: Stack, database: Path) -> Recorded:
    _, token = await stack.customer("replay-order-internal-error")
    accounts = await register_accounts(stack.http, token)
    envelope = await _new_intent(stack, token, accounts, autoExecute=False)
    intent_id = envelope["intent"]["id"]
    atlas = envelope["intent"]["mmPlan"]["providerAccountId"]
    await complete_onboarding(stack.http, stack.project, token, intent_id)
    execute = f"/v1/intent/{intent_id}/transaction"

    await asyncio.to_thread(_rename, database, "partner_fee", "partner_fee_away")
    try:
        failed = await stack.http.post(execute, json={}, headers=bearer(token))
    finally:
        await asyncio.to_thread(_rename, database, "partner_fee_away", "partner_fee")
    assert failed.status_code == 503, failed.text
    assert failed.json()["code"] == "TEMPORARILY_UNAVAILABLE", failed.text

    placed = await stack.http.post(execute, json={}, headers=bearer(token))
    assert placed.status_code == 201, placed.text
    envelope = placed.json()
    assert envelope["intent"]["mmPlan"]["providerAccountId"] == atlas, envelope
    assert envelope["intent"]["mmPlan"]["providerMoves"] == [], envelope
    for event in ("DEPOSIT_RECEIVED", "PAYOUT_SENT", "SETTLED"):
        updated = envelope["intent"]["updatedAt"]
        response = await provider_event(
            stack.http, stack.project, envelope["transaction"]["id"], event
        )
        assert response.status_code == 202, response.text
        envelope = await wait_for_intent(
            stack.http,
            token,
            intent_id,
            lambda body, updated=updated: body["intent"]["updatedAt"] != updated,  # type: ignore[misc]
        )
    assert envelope["intent"]["status"] == "COMPLETED", envelope
    return Recorded(intent_id, IntentStatus.COMPLETED)


async def record(paths: Sequence[str]) -> None:
    if "order_internal_error" not in paths:
        return
    with tempfile.TemporaryDirectory(prefix="ramp-histories-") as tmp:
        data_dir = Path(tmp) / "dev"
        await asyncio.to_thread(data_dir.mkdir, parents=True, exist_ok=True)
        async with dev_server() as env, running_stack(env, data_dir) as stack:
            recorded = await record_order_internal_error(stack, data_dir / "ramp.db")
            await _save(stack, "order_internal_error", recorded)


def main(argv: Sequence[str]) -> None:
    run_recorder("tests.histories.record_internal", INTERNAL_ERROR_PATHS, record, argv)


if __name__ == "__main__":
    main(sys.argv[1:])
