"""`ramp dev` as a subprocess on free ports: what the end-to-end test and the
benchmarks start, exactly as a user would."""

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

# How long `ramp dev` may take to say it is ready before it counts as hung: about 2 s on
# an idle machine, but its five processes import and connect in turn, which a machine
# at a load of 20 on two cores stretched past a minute.
START_TIMEOUT = 180.0
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


class SandboxProcess:
    """One `ramp dev` with its own ports and data dir; output is kept for diagnosis."""

    def __init__(
        self,
        data_dir: Path,
        database_url: str | None = None,
        environment: str = "sandbox",
        env: dict[str, str] | None = None,
    ) -> None:
        self.port = free_port()
        self.api = f"http://127.0.0.1:{self.port}"
        self.temporal_address = f"127.0.0.1:{free_port()}"
        self.output: list[str] = []
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "devstack",
                "dev",
                "--port",
                str(self.port),
                "--temporal-port",
                self.temporal_address.rsplit(":", 1)[1],
                "--ui-port",
                str(free_port()),
                "--data-dir",
                str(data_dir),
                *(["--database-url", database_url] if database_url else []),
                *(["--environment", environment] if environment != "sandbox" else []),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            # Only what a new user would have: no RAMP_* or DATABASE_URL from the caller;
            # `env` on top.
            env={
                **{k: v for k, v in os.environ.items() if not k.startswith(("RAMP_", "DATABASE"))},
                **(env or {}),
            },
        )
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.output.append(line)

    @property
    def log(self) -> str:
        return "".join(self.output)

    def credentials(self, timeout: float = START_TIMEOUT) -> tuple[str, str]:
        """The demo project's client id and secret, once the sandbox says it is ready."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = BANNER.search(self.log)
            if match:
                return match.group(1), match.group(2)
            if self.process.poll() is not None:
                raise RuntimeError("ramp dev exited before it was ready:\n" + self.log)
            time.sleep(0.1)
        raise TimeoutError("ramp dev did not print its banner:\n" + self.log)

    def ready(self, banner: str, timeout: float = START_TIMEOUT) -> None:
        """Until `ramp dev` prints `banner` (its first line once healthy)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if banner in self.log:
                return
            if self.process.poll() is not None:
                raise RuntimeError("ramp dev exited before it was ready:\n" + self.log)
            time.sleep(0.1)
        raise TimeoutError("ramp dev did not print its banner:\n" + self.log)

    def interrupt(self) -> tuple[int, list[int]]:
        """Ctrl-C; returns the exit code and the children still alive after it."""
        children = descendants(self.process.pid)
        self.process.send_signal(signal.SIGINT)
        code = self.process.wait(timeout=60)
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.reader.join(timeout=10)
        assert self.process.stdout is not None
        self.process.stdout.close()
        return code, [pid for pid in children if alive(pid)]
