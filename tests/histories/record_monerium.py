"""Records IntentWorkflow histories of production intents through the Monerium connector.

    .venv/bin/python -m tests.histories.record_monerium              # paths without a file

Like tests/histories/record_connector.py (same files, same replay check before
writing), with a production project whose Monerium account points at the Monerium
simulator:

- `monerium_declined_onramp`: the profile approved by a signed `profile.updated`; the
  order declined while the wallet is not linked (asked twice), placed when asked again
  after the link (patch `monerium-declined-order-placed-again`, the IBAN awaited after
  its 202), the SEPA payment quoting our reference minted and processed (dev server).
"""

from __future__ import annotations

import asyncio
import copy
import json
import sys
import tempfile
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from ramp import projects
from ramp.config import Environment
from ramp.db.engine import create_engine, session_factory
from ramp.db.migrate import upgrade
from ramp.db.tables import ProviderAccount
from ramp.intents.states import IntentStatus
from ramp.provider_accounts import service
from ramp.provider_accounts.credentials import unseal_webhook_secret
from ramp.security.encryption import SecretBox
from tests.helpers.payments import SEPA, register_accounts, wait_for_intent, wallet
from tests.helpers.production import customer_token, fast_connectors, production_stack
from tests.helpers.projects import ProjectCredentials, bearer
from tests.helpers.servers import dev_server
from tests.histories.record import MONERIUM_PATHS, Recorded, Stack, _save
from tests.histories.record_connector import _settings
from tests.histories.recorder_cli import run_recorder
from tests.simulators.monerium import MoneriumSimulator, running

CLIENT_ID = "7d1e5b3a-2c4f-4e8a-9b6d-1f0a3c5e7b92"
CLIENT_SECRET = "replay-client-secret"
ADDRESS = "0x52908400098527886E0F7030069857D2E4169EE7"


@asynccontextmanager
async def monerium_stack(
    env: WorkflowEnvironment, data_dir: Path, monerium: MoneriumSimulator
) -> AsyncIterator[tuple[Stack, str, str]]:
    """The stack, the account's webhook path and its webhook secret."""
    await asyncio.to_thread(data_dir.mkdir, parents=True, exist_ok=True)
    settings = _settings(data_dir, env.client.service_client.config.target_host)
    upgrade(settings)
    engine = create_engine(settings)
    box = SecretBox.from_settings(settings)
    try:
        sessions = session_factory(engine)
        async with sessions() as db:
            created = await projects.create_project(
                db, name="Replay", environment=Environment.PRODUCTION, secret_box=box
            )
            account = await service.set_provider_account(
                db,
                project_id=created.projectId,
                provider_code="MONERIUM",
                credentials={
                    "clientId": CLIENT_ID,
                    "clientSecret": CLIENT_SECRET,
                    "environment": "sandbox",
                    "baseUrl": monerium.url,
                },
                secret_box=box,
                public_url=settings.public_url,
                connectors=fast_connectors(),
            )
            row = await db.get(ProviderAccount, account.id)
            assert row is not None
            assert row.webhook_secret_encrypted is not None
            secret = unseal_webhook_secret(
                box,
                row.webhook_secret_encrypted,
                provider_account_id=row.id,
                provider_code="MONERIUM",
            )
        project = ProjectCredentials(
            created.organizationId, created.projectId, created.clientId, created.clientSecret
        )
        client = Client(
            env.client.service_client, namespace="default", data_converter=pydantic_data_converter
        )
        async with production_stack(settings, client, sessions) as http:
            stack = Stack(http=http, temporal=client, project=project)
            yield stack, f"/v1/provider-webhooks/{account.id}", secret
    finally:
        await engine.dispose()


async def _notify(
    stack: Stack, monerium: MoneriumSimulator, path: str, secret: str, kind: str,
    data: dict[str, Any],
) -> None:  # fmt: skip
    body = json.dumps({"type": kind, "timestamp": "2026-11-26T03:00:00Z", "data": data}).encode()
    answer = await stack.http.post(path, content=body, headers=monerium.signed(secret, body))
    assert answer.status_code == 200, answer.text


async def record_monerium_declined_onramp(
    stack: Stack, monerium: MoneriumSimulator, path: str, secret: str
) -> Recorded:
    token = await customer_token(stack.http, stack.project, "replay-monerium")
    accounts = await register_accounts(
        stack.http, token, "EUR", "EURE_GNOSIS", copy.deepcopy(SEPA), wallet("EURE_GNOSIS", ADDRESS)
    )
    opened = await stack.http.post(
        "/v1/intent",
        json={"srcExternalAccountId": accounts[0], "destExternalAccountId": accounts[1],
              "amount": "40.00", "autoExecute": False},
        headers=bearer(token),
    )  # fmt: skip
    assert opened.status_code == 201, opened.text
    intent_id: str = opened.json()["intent"]["id"]
    await wait_for_intent(stack.http, token, intent_id, lambda _: bool(monerium.profiles))
    [profile] = monerium.profiles.values()
    await monerium.set_profile_state(profile["id"], "approved")
    await _notify(stack, monerium, path, secret, "profile.updated", profile)
    await wait_for_intent(
        stack.http, token, intent_id,
        lambda b: all(s["status"] == "COMPLETED" for s in b["intent"]["compliancePlan"]["steps"]),
    )  # fmt: skip
    execute = f"/v1/intent/{intent_id}/transaction"
    for _ in range(2):
        declined = await stack.http.post(execute, json={}, headers=bearer(token))
        assert declined.status_code == 502, declined.text
    monerium.addresses[ADDRESS.lower()] = {
        "profile": profile["id"], "address": ADDRESS, "chains": ["chiado"]}  # fmt: skip
    placed = await stack.http.post(execute, json={}, headers=bearer(token))
    assert placed.status_code in (200, 201), placed.text
    envelope = await wait_for_intent(
        stack.http, token, intent_id, lambda b: b.get("transaction") is not None
    )
    [iban] = monerium.ibans
    reference = envelope["transaction"]["context"]["depositInstructions"][0]["instructions"][
        "reference"
    ]
    order = await monerium.incoming_sepa(iban, "40.00", reference)
    await _notify(stack, monerium, path, secret, "order.created", order)
    await monerium.set_order_state(order["id"], "processed")
    await _notify(stack, monerium, path, secret, "order.updated", order)
    await wait_for_intent(
        stack.http, token, intent_id, lambda b: b["intent"]["status"] == "COMPLETED"
    )
    return Recorded(intent_id, IntentStatus.COMPLETED)


async def record(paths: Sequence[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="ramp-histories-") as tmp:
        async with running(MoneriumSimulator(clients={CLIENT_ID: CLIENT_SECRET})) as monerium:
            if "monerium_declined_onramp" in paths:
                async with (
                    dev_server() as env,
                    monerium_stack(env, Path(tmp) / "dev", monerium) as (stack, path, secret),
                ):
                    recorded = await record_monerium_declined_onramp(stack, monerium, path, secret)
                    await _save(stack, "monerium_declined_onramp", recorded)


def main(argv: Sequence[str]) -> None:
    run_recorder("tests.histories.record_monerium", MONERIUM_PATHS, record, argv)


if __name__ == "__main__":
    main(sys.argv[1:])
