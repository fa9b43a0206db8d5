"""`ramp dev` as a new user runs it: a subprocess on free ports, driven over HTTP."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import httpx

from bench.sandbox import SandboxProcess, descendants


def test_sandbox_serves_the_integration_order_and_keeps_data(tmp_path: Path) -> None:
    dev = SandboxProcess(tmp_path / "data")
    try:
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
    finally:
        code, left = dev.interrupt()
    assert code == 0, dev.log
    assert left == [], f"children left running: {left}"

    again = SandboxProcess(tmp_path / "data")
    try:
        assert again.credentials() == (client_id, secret)
        assert "[ramp] demo project found (" in again.log
        retrieved = httpx.post(
            f"{again.api}/v1/customers", json={"id": "walkthrough"}, auth=(client_id, secret)
        )
        assert retrieved.status_code == 200
        assert retrieved.json()["id"] == created.json()["id"]
    finally:
        code, left = again.interrupt()
    assert code == 0, again.log
    assert left == []
