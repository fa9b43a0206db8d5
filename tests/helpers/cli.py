"""Runs the `ramp` command as a process, with none of the test run's settings."""

from __future__ import annotations

import os
import subprocess
import sys


def ramp(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RAMP_", "DATABASE"))}
    return subprocess.run(
        [sys.executable, "-m", "devstack", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **(env or {})},
        check=False,
    )
