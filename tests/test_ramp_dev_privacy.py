"""What `ramp dev` leaves where others could read it (issue 23): every file it writes is
0600 and every folder 0700, Temporal's own SQLite files included (they hold labels,
amounts, customer ids and deposit instructions), and its logs hold no link token."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.sandbox import SandboxProcess


class Stack(SandboxProcess):
    def __init__(self, data_dir: Path) -> None:
        super().__init__(data_dir)
        self.data_dir = data_dir


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    data_dir = tmp_path_factory.mktemp("privacy") / "data"
    # What an older version left readable is tightened on start.
    data_dir.mkdir(mode=0o755)
    left_readable = data_dir / "written-by-an-older-version.json"
    left_readable.write_text("{}")
    left_readable.chmod(0o644)
    previous = os.umask(0o022)  # the usual default, inherited: world-readable files
    try:
        dev = Stack(data_dir)
    finally:
        os.umask(previous)
    try:
        dev.credentials()
        yield dev
    finally:
        code, left = dev.interrupt()
    assert code == 0, dev.log
    assert left == []


def test_every_file_the_stack_writes_is_private(stack: Stack) -> None:
    client_id, secret = stack.credentials()
    # A write through every part: the API and the worker write to Temporal too.
    created = httpx.post(
        f"{stack.api}/v1/customers", json={"id": "private-files"}, auth=(client_id, secret)
    )
    assert created.status_code == 201, created.text
    data_dir = stack.data_dir
    temporal_db = data_dir / "temporal.db"
    for companion in (temporal_db, Path(f"{temporal_db}-wal"), Path(f"{temporal_db}-shm")):
        assert companion.exists(), sorted(p.name for p in data_dir.iterdir())
    assert _loose_modes(data_dir) == {}


def test_a_setup_link_never_reaches_the_access_log(stack: Stack) -> None:
    token = "setup-link-token-that-must-not-be-logged"
    for path in (f"/dashboard/join/{token}", f"/dashboard/join/{token}?next=1"):
        answered = httpx.get(f"{stack.api}{path}")
        assert answered.status_code < 500
    onboarding = httpx.get(f"{stack.api}/onboarding/x?token={token}&access_token={token}")
    assert onboarding.status_code < 500
    # The access log line of the last request is there before we read the log.
    marker = httpx.get(f"{stack.api}/healthz?probe=privacy")
    assert marker.status_code == 200
    stack.ready("/healthz?probe=privacy")
    assert "/dashboard/join/[redacted]" in stack.log
    assert token not in stack.log


def _loose_modes(root: Path) -> dict[str, str]:
    """Every path under `root` (itself included) that others could read, with its mode."""
    found: dict[str, str] = {}
    for path in [root, *root.rglob("*")]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        wanted = 0o700 if path.is_dir() else 0o600
        if mode != wanted:
            found[str(path.relative_to(root.parent))] = oct(mode)
    return found
