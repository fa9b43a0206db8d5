"""Runs the `ramp` command with none of the test run's settings: as a process, or in the
test's own process where the test is about what a command does rather than about the
process (each process pays 1 to 3 s of imports; in-process the command runs in a thread
of its own, so that its `asyncio.run` never meets the test's event loop)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading

from click.testing import CliRunner

from devstack.cli import run

_OURS = ("RAMP_", "DATABASE")
# What click names the program when it runs as `python -m devstack` (usage lines).
_PROG_NAME = "python -m devstack"
_RUNNING = threading.Lock()  # one command at a time: it swaps the process's streams


def ramp(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(_OURS)}
    return subprocess.run(
        [sys.executable, "-m", "devstack", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **(env or {})},
        check=False,
    )


def ramp_in_process(
    *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`ramp(*args)` run in this process: the same environment (ours removed, `env`
    added), exit status and output."""
    overrides: dict[str, str | None] = {k: None for k in os.environ if k.startswith(_OURS)}
    overrides.update(env or {})
    code: list[int] = []
    errors: list[BaseException] = []

    def command() -> None:
        try:
            code.append(run(list(args), prog_name=_PROG_NAME))
        except SystemExit as exit_:
            code.append(exit_.code if isinstance(exit_.code, int) else 1)
        except BaseException as error:  # re-raised in the test's thread
            errors.append(error)

    with _RUNNING, CliRunner().isolation(env=overrides) as (stdout, stderr, _):
        thread = threading.Thread(target=command, name=f"ramp {' '.join(args[:2])}")
        thread.start()
        thread.join(timeout=60)
        assert not thread.is_alive(), f"ramp {' '.join(args)} did not end within 60 s"
        out, err = stdout.getvalue(), stderr.getvalue()
    if errors:
        raise errors[0]
    return subprocess.CompletedProcess(
        ["ramp", *args], code[0], out.decode(errors="replace"), err.decode(errors="replace")
    )
