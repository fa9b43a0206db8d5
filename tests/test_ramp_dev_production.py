"""`ramp dev --environment production` as a user runs it: production on one machine,
set up only with documented commands (`ramp project create`, `ramp provider-account
set`) on its data dir, against the Bridge simulator. The commands run in the test's
process (tests/helpers/cli.py): the test is about what they do to the stack's data, and
tests/test_cli.py runs the command line as processes."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from bench.sandbox import SandboxProcess
from ramp.config import Environment
from ramp.settings_loader import StackMismatch, mark_stack, stack_environment
from tests.helpers.cli import ramp_in_process as ramp
from tests.simulators.bridge import BridgeSimulator, running

KEY = "sk-test-ramp-dev-production"


@pytest.fixture
async def bridge() -> AsyncIterator[BridgeSimulator]:
    async with running(BridgeSimulator(api_keys={KEY})) as simulator:
        yield simulator


async def test_production_on_one_machine(tmp_path: Path, bridge: BridgeSimulator) -> None:
    data = tmp_path / "prod"
    dev = await asyncio.to_thread(SandboxProcess, data, None, "production")
    try:
        await asyncio.to_thread(dev.ready, "production (local) is ready")
        api = f"{dev.api}/v1"
        async with httpx.AsyncClient(timeout=10) as http:
            assert (await http.get(f"{dev.api}/healthz")).status_code == 200
            # No sandbox endpoints, no demo project.
            assert "Demo client id" not in dev.log
            stand_in = await http.post(f"{api}/sandbox/transactions/x/events", json={})
            assert stand_in.status_code in (401, 404)

            created = await asyncio.to_thread(
                ramp, "project", "create", "--name", "Shop", "--data-dir", str(data)
            )
            assert created.returncode == 0, created.stderr
            project = json.loads(created.stdout)
            auth = (project["clientId"], project["clientSecret"])
            assert (await http.get(f"{api}/providers", auth=auth)).json() == []

            credentials = tmp_path / "bridge.json"
            credentials.write_text(
                json.dumps({"apiKey": KEY, "environment": "sandbox", "baseUrl": bridge.url})
            )
            connected = await asyncio.to_thread(
                ramp, "provider-account", "set", "--project-id", project["projectId"],
                "--provider", "BRIDGE", "--credentials-file", str(credentials),
                "--data-dir", str(data),
            )  # fmt: skip
            assert connected.returncode == 0, connected.stderr
            account = json.loads(connected.stdout)
            assert account["status"] == "HEALTHY"
            assert account["webhookUrl"].startswith(f"{dev.api}/v1/provider-webhooks/")

            providers = (await http.get(f"{api}/providers", auth=auth)).json()
            assert [p["code"] for p in providers] == ["BRIDGE"]
            routes = (await http.get(f"{api}/currencies/supported", auth=auth)).json()
            assert {"USD", "EUR", "MXN"} <= {r["from"] for r in routes}
    finally:
        code, left = await asyncio.to_thread(dev.interrupt)
    assert code == 0, dev.log
    assert left == []
    # The data dir remembers its environment: a sandbox stack refuses it.
    assert stack_environment(data) is Environment.PRODUCTION


def test_a_data_dir_keeps_its_environment(tmp_path: Path) -> None:
    mark_stack(tmp_path, Environment.PRODUCTION)
    mark_stack(tmp_path, Environment.PRODUCTION)
    with pytest.raises(StackMismatch, match="local production stack"):
        mark_stack(tmp_path, Environment.SANDBOX)
