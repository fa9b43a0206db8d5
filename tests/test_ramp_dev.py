"""`ramp dev` as a new user runs it: a subprocess on free ports, driven over HTTP."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx

RAMP = [sys.executable, "-m", "ramp"]
BANNER = re.compile(r"Demo client id:\s+(\S+)\s+Demo client secret:\s+(\S+)", re.S)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def descendants(pid: int) -> set[int]:
    found: set[int] = set()
    pending = [pid]
    while pending:
        current = pending.pop()
        for task in Path(f"/proc/{current}/task").glob("*"):
            children = (task / "children").read_text().split() if task.exists() else []
            for child in map(int, children):
                if child not in found:
                    found.add(child)
                    pending.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


class DevProcess:
    def __init__(self, data_dir: Path) -> None:
        self.port = free_port()
        self.api = f"http://127.0.0.1:{self.port}"
        self.output: list[str] = []
        self.process = subprocess.Popen(
            [
                *RAMP,
                "dev",
                "--port",
                str(self.port),
                "--temporal-port",
                str(free_port()),
                "--ui-port",
                str(free_port()),
                "--data-dir",
                str(data_dir),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env={k: v for k, v in os.environ.items() if not k.startswith(("RAMP_", "DATABASE"))},
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)

    def credentials(self, timeout: float = 60) -> tuple[str, str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = BANNER.search("".join(self.output))
            if match:
                return match.group(1), match.group(2)
            assert self.process.poll() is None, "".join(self.output)
            time.sleep(0.1)
        raise AssertionError("no banner:\n" + "".join(self.output))

    def interrupt(self) -> int:
        children = descendants(self.process.pid)
        assert children, "ramp dev started no children"
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=60)
        self.reader.join(timeout=10)
        assert self.process.stdout is not None
        self.process.stdout.close()
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [pid for pid in children if alive(pid)]
        assert left == [], f"children left running: {left}"
        return code


def test_sandbox_serves_the_integration_order_and_keeps_data(tmp_path: Path) -> None:
    dev = DevProcess(tmp_path / "data")
    try:
        client_id, secret = dev.credentials()
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
        code = dev.interrupt()
    assert code == 0, "".join(dev.output)

    again = DevProcess(tmp_path / "data")
    try:
        assert again.credentials() == (client_id, secret)
        retrieved = httpx.post(
            f"{again.api}/v1/customers", json={"id": "walkthrough"}, auth=(client_id, secret)
        )
        assert retrieved.status_code == 200
        assert retrieved.json()["id"] == created.json()["id"]
    finally:
        assert again.interrupt() == 0, "".join(again.output)
