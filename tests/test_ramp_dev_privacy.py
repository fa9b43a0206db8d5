"""What `ramp dev` leaves where others could read it (issue 23): every file it writes is
0600 and every folder 0700, Temporal's own SQLite files included (they hold labels,
amounts, customer ids and deposit instructions), and its logs hold no link token."""

from __future__ import annotations

import stat
from pathlib import Path

import httpx
import pytest

from tests.helpers.sandbox import LEFT_READABLE, SharedSandbox


@pytest.fixture(scope="module")
def stack(shared_sandbox: SharedSandbox) -> SharedSandbox:
    """The module's sandbox (tests/helpers/sandbox.py): a new data dir that held a file an
    older version left readable, started with a umask that leaves new files readable."""
    assert (shared_sandbox.data_dir / LEFT_READABLE).exists()
    return shared_sandbox


def test_every_file_the_stack_writes_is_private(stack: SharedSandbox) -> None:
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


def test_a_setup_link_never_reaches_the_access_log(stack: SharedSandbox) -> None:
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
