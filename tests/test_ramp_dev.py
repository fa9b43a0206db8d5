"""`ramp dev` as a new user runs it: a subprocess on free ports, driven over HTTP."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import httpx
import pytest

from bench.sandbox import SandboxProcess, descendants
from devstack.stack import DemoCredentials, DevStack
from ramp.config import Settings
from tests.helpers.cli import ramp_in_process
from tests.helpers.sandbox import SharedSandbox


def test_sandbox_serves_the_integration_order_and_keeps_data(
    shared_sandbox: SharedSandbox,
) -> None:
    """On a new data dir (tests/helpers/sandbox.py: the stack the other `ramp dev` modules
    of this process share), then restarted there: the demo project and the data kept."""
    dev = shared_sandbox
    client_id, secret = dev.credentials()
    assert len(descendants(dev.process.pid)) >= 3  # temporal, worker, api
    # Each step of the start says what it did and how long it took.
    for step in (
        "[ramp] starting the sandbox stack",
        "[ramp] database migrated in ",
        "[ramp] demo project created (",
        "[ramp] Temporal dev server answering (",
        "[ramp] worker and API answering (",
        "[ramp] sandbox is ready (",
    ):
        assert step in dev.log, (step, dev.log)
    assert re.search(r"sandbox is ready \(\d+\.\d s after start\)", dev.log), dev.log
    # The command the banner names works as typed (from where the sandbox runs).
    named = re.search(r"first: (\S+) org create", dev.log)
    assert named, dev.log
    assert named.group(1) != "ramp"  # not on the PATH
    typed = subprocess.run(
        [named.group(1), "org", "--help"], capture_output=True, text=True, timeout=60
    )
    assert typed.returncode == 0, typed.stderr
    assert httpx.get(f"{dev.api}/healthz").json()["status"] == "ok"
    api = f"{dev.api}/v1"
    auth = (client_id, secret)

    routes = httpx.get(f"{api}/currencies/supported", auth=auth)
    assert routes.status_code == 200
    assert any(r["from"] == "USD" and r["to"] == "USDC_ETHEREUM" for r in routes.json())
    requirements = httpx.get(
        f"{api}/external-accounts/requirements",
        params={"src": "USD", "dest": "USDC_ETHEREUM"},
        auth=auth,
    ).json()
    created = httpx.post(f"{api}/customers", json={"id": "walkthrough"}, auth=auth)
    assert created.status_code == 201
    token = created.json()["access_token"]
    pair = httpx.post(
        f"{api}/customers/external-accounts",
        json={
            "src": "USD",
            "dest": "USDC_ETHEREUM",
            "source": requirements["source"]["examples"][0],
            "destination": requirements["destination"]["examples"][0],
        },
        headers={"Authorization": f"Bearer {token}"},
    )
    assert pair.status_code == 201, pair.text

    # Ctrl-C (exit 0, no child left), then `ramp dev` again on the same data dir.
    dev.restart()
    assert dev.credentials() == (client_id, secret)
    assert "[ramp] demo project found (" in dev.log
    retrieved = httpx.post(
        f"{dev.api}/v1/customers", json={"id": "walkthrough"}, auth=(client_id, secret)
    )
    assert retrieved.status_code == 200
    assert retrieved.json()["id"] == created.json()["id"]


# A stack on a database of its own is how PostgreSQL deployments run `ramp dev`; on
# SQLite the test proved nothing more and started one more stack (about 7 s of CPU).
@pytest.mark.postgresql_only
def test_commands_reach_the_database_of_a_stack_started_with_database_url(
    tmp_path: Path, migrated: Settings
) -> None:
    """Issue 23: `ramp project create --data-dir D` against `ramp dev --database-url URL`
    made a SQLite ramp.db in D and printed credentials the running API refused. URL is
    the test run's PostgreSQL database."""
    data = tmp_path / "data"
    dev = SandboxProcess(data, database_url=migrated.database_url)
    try:
        dev.credentials()
        created = ramp_in_process("project", "create", "--name", "Shop", "--data-dir", str(data))
        assert created.returncode == 0, created.stderr
        body = json.loads(created.stdout)
        routes = httpx.get(
            f"{dev.api}/v1/currencies/supported", auth=(body["clientId"], body["clientSecret"])
        )
        assert routes.status_code == 200, routes.text
        assert not (data / "ramp.db").exists()
    finally:
        code, left = dev.interrupt()
    assert code == 0, dev.log
    assert left == []


def test_banner_names_the_data_dir_the_org_command_must_use(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`ramp org create` as the banner prints it reaches the running stack's database: a
    sandbox on another data dir than the commands' default names it (without it, the
    command made an organization in ./.ramp, with a setup link to port 8000)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RAMP_DATA_DIR", raising=False)
    demo = DemoCredentials("project", "ci_sandbox_x", "sk_sandbox_x")

    def first_command(data_dir: Path) -> str:
        stack = DevStack("127.0.0.1", 8100, 7300, 8300, None, data_dir)
        named = re.search(r"first: (.*),\n", stack.banner(demo, 1.0))
        assert named, stack.banner(demo, 1.0)
        return named.group(1)

    elsewhere = tmp_path / "walk"
    assert first_command(elsewhere).endswith(
        f"org create --name NAME --owner-email EMAIL --data-dir {elsewhere}"
    )
    # The default data dir needs no option (the README's banner).
    assert first_command(Path(".ramp").absolute()).endswith(
        "org create --name NAME --owner-email EMAIL"
    )
