"""`ramp webhook ...` and `ramp project rotate-secret`, run as a user would run them: the
commands in the test's process (what they print and their exit status), `ramp webhook
listen` as a process of its own (it runs until signalled)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import sys
from datetime import UTC, datetime
from pathlib import Path

import httpx

from ramp.security.credentials import client_secret_matches
from ramp.webhooks.signing import signature_headers
from tests.helpers.cli import ramp_in_process as ramp
from tests.helpers.processes import ROOT


def new_project(data_dir: Path) -> dict[str, str]:
    created = ramp("project", "create", "--name", "Hooks", "--data-dir", str(data_dir))
    assert created.returncode == 0, created.stderr
    body: dict[str, str] = json.loads(created.stdout)
    return body


def webhook(data_dir: Path, *args: str) -> tuple[int, str, str]:
    result = ramp("webhook", *args, "--data-dir", str(data_dir))
    return result.returncode, result.stdout, result.stderr


def test_endpoints_are_managed_from_the_command_line(tmp_path: Path) -> None:
    project = new_project(tmp_path)["projectId"]
    code, out, err = webhook(
        tmp_path,
        "add",
        "--project",
        project,
        "--url",
        "https://hooks.example.com/ramp",
        "--event",
        "MONEY_MOVEMENT_UPDATED",
        "--event",
        "INTENT_STATUS_CHANGED",
    )
    assert code == 0, err
    added = json.loads(out)
    assert added["eventTypes"] == ["INTENT_STATUS_CHANGED", "MONEY_MOVEMENT_UPDATED"]
    assert added["enabled"] is True

    code, out, _ = webhook(tmp_path, "disable", "--project", project, "--id", added["id"])
    assert code == 0
    assert json.loads(out)["enabled"] is False
    code, out, _ = webhook(tmp_path, "enable", "--project", project, "--id", added["id"])
    assert json.loads(out)["enabled"] is True
    code, out, _ = webhook(tmp_path, "list", "--project", project)
    assert [e["id"] for e in json.loads(out)] == [added["id"]]
    code, out, _ = webhook(tmp_path, "remove", "--project", project, "--id", added["id"])
    assert code == 0
    code, out, _ = webhook(tmp_path, "list", "--project", project)
    assert json.loads(out) == []


def test_bad_webhook_commands_fail_clearly(tmp_path: Path) -> None:
    project = new_project(tmp_path)["projectId"]
    code, _, err = webhook(tmp_path, "add", "--project", project, "--url", "https://u:p@x.example")
    assert code == 1
    assert "must not carry credentials" in err
    code, _, err = webhook(tmp_path, "add", "--project", "nope", "--url", "https://x.example")
    assert code == 1
    assert "no project nope" in err
    code, _, err = webhook(tmp_path, "disable", "--project", project, "--id", "nope")
    assert code == 1
    assert "no webhook endpoint nope" in err
    assert "Traceback" not in err


def test_rotate_secret_keeps_the_old_one_for_the_grace_period(tmp_path: Path) -> None:
    project = new_project(tmp_path)
    result = ramp(
        "project",
        "rotate-secret",
        "--project-id",
        project["projectId"],
        "--grace-hours",
        "2",
        "--data-dir",
        str(tmp_path),
    )
    assert result.returncode == 0, result.stderr
    rotated = json.loads(result.stdout)
    assert rotated["clientId"] == project["clientId"]
    assert rotated["clientSecret"].startswith("sk_sandbox_")
    assert rotated["clientSecret"] != project["clientSecret"]
    assert rotated["previousSecretValidUntil"].endswith("Z")
    with sqlite3.connect(tmp_path / "ramp.db") as connection:
        current, previous = connection.execute(
            "SELECT client_secret_hash, previous_client_secret_hash FROM project WHERE id = ?",
            (project["projectId"],),
        ).fetchone()
    assert client_secret_matches(rotated["clientSecret"], current)
    assert client_secret_matches(project["clientSecret"], previous)

    # Again within the grace period: refused, since it would revoke the oldest secret now.
    again = ramp(
        "project",
        "rotate-secret",
        "--project-id",
        project["projectId"],
        "--data-dir",
        str(tmp_path),
    )
    assert again.returncode == 1
    assert "use --force" in again.stderr
    forced = ramp(
        "project",
        "rotate-secret",
        "--project-id",
        project["projectId"],
        "--force",
        "--data-dir",
        str(tmp_path),
    )
    assert forced.returncode == 0, forced.stderr
    with sqlite3.connect(tmp_path / "ramp.db") as connection:
        (previous,) = connection.execute(
            "SELECT previous_client_secret_hash FROM project WHERE id = ?",
            (project["projectId"],),
        ).fetchone()
    assert client_secret_matches(rotated["clientSecret"], previous)


# A hang detector: the process imports its stack before it prints its banner, which a
# loaded machine stretches to tens of seconds.
START_TIMEOUT = 120


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_listen_prints_verified_events_and_refuses_forgeries() -> None:
    secret = "sk_sandbox_listen-test"
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("RAMP_", "DATABASE"))}
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "devstack",
        "webhook",
        "listen",
        "--port",
        str(port),
        "--secret",
        secret,
        cwd=ROOT,
        env={**clean, "PYTHONUNBUFFERED": "1"},
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    assert process.stdout is not None
    try:
        banner = await asyncio.wait_for(process.stdout.readline(), START_TIMEOUT)
        assert f"listening on http://127.0.0.1:{port}/" in banner.decode()
        envelope = {
            "eventId": "e1",
            "eventType": "INTENT_STATUS_CHANGED",
            "timestamp": "2026-11-22T10:00:00.000Z",
            "projectId": "p",
            "data": {"intentId": "i", "status": "PENDING"},
        }
        body = json.dumps(envelope).encode()
        headers = signature_headers(
            message_id="e1",
            event_type="INTENT_STATUS_CHANGED",
            client_id="c",
            secrets=[secret],
            body=body,
            at=datetime.now(UTC),
        )
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as http:
            good = await http.post("/", content=body, headers=headers)
            forged = await http.post(
                "/", content=body.replace(b"PENDING", b"FAILED"), headers=headers
            )
        assert good.status_code == 204
        assert forged.status_code == 401
        printed = b""
        while b"REFUSED" not in printed:
            printed += await asyncio.wait_for(process.stdout.readline(), 60)
        text = printed.decode()
        assert "INTENT_STATUS_CHANGED e1 (verified)" in text
        assert '"status": "PENDING"' in text
        assert "REFUSED e1" in text
    finally:
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 10) == 0
