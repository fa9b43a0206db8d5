"""`ramp org create` (the owner's setup link) and `ramp keys rotate` (every encrypted
column re-encrypted under a new key), run on a sandbox data dir in the test's process
(what they print, write and exit with; tests/test_cli.py runs `ramp` as processes)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from cryptography.fernet import InvalidToken

from ramp.security.encryption import SecretBox
from ramp.security.keys import generate_encryption_key
from tests.helpers.cli import ramp_in_process as ramp


def test_org_create_prints_a_one_time_setup_link(tmp_path: Path) -> None:
    created = ramp(
        "org", "create", "--name", "Acme", "--owner-email", "Owner@Acme.test",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert created.returncode == 0, created.stderr
    body = json.loads(created.stdout)
    assert set(body) == {"organizationId", "ownerEmail", "setupUrl"}
    assert body["ownerEmail"] == "owner@acme.test"
    assert body["setupUrl"].startswith("http://")
    assert "/dashboard/join/" in body["setupUrl"]
    token = body["setupUrl"].rsplit("/", 1)[1]
    with sqlite3.connect(tmp_path / "ramp.db") as connection:
        stored = connection.execute("SELECT token_hash, expires_at FROM org_invite").fetchall()
    assert len(stored) == 1
    assert token not in repr(stored)  # only its hash
    again = ramp(
        "org", "create", "--name", "Other", "--owner-email", "owner@acme.test",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert again.returncode == 0  # one pending link per address is fine; joining twice is not
    # The CLI's projects can belong to it: its owner sees them in the dashboard.
    made = ramp(
        "project", "create", "--name", "Shop", "--organization-id", body["organizationId"],
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert json.loads(made.stdout)["organizationId"] == body["organizationId"]
    unknown = ramp(
        "project", "create", "--name", "Shop", "--organization-id", "nope",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert unknown.returncode == 1
    assert "no organization nope" in unknown.stderr
    bad = ramp(
        "org", "create", "--name", "X", "--owner-email", "not-an-address",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert bad.returncode == 1
    assert "email address is not valid" in bad.stderr


def test_in_the_sandbox_the_first_organization_gets_the_demo_project(tmp_path: Path) -> None:
    # The demo project as `ramp dev` leaves it: in an organization nobody belongs to,
    # named by the data dir's marker.
    made = ramp("project", "create", "--name", "Demo", "--data-dir", str(tmp_path))
    assert made.returncode == 0, made.stderr
    demo = json.loads(made.stdout)
    (tmp_path / "demo-project.json").write_text(json.dumps({"projectId": demo["projectId"]}))
    first = ramp(
        "org", "create", "--name", "Acme", "--owner-email", "owner@acme.test",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    body = json.loads(first.stdout)
    assert body["demoProjectId"] == demo["projectId"]
    second = ramp(
        "org", "create", "--name", "Other", "--owner-email", "other@acme.test",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert second.returncode == 0, second.stderr
    assert "demoProjectId" not in json.loads(second.stdout)
    with sqlite3.connect(tmp_path / "ramp.db") as connection:
        [(owner,)] = connection.execute(
            "SELECT organization_id FROM project WHERE id = ?", (demo["projectId"],)
        ).fetchall()
    assert owner == body["organizationId"]


def test_ramp_dev_help_says_what_the_data_dir_holds_in_any_environment() -> None:
    shown = ramp("dev", "--help")
    assert shown.returncode == 0, shown.stderr
    assert "sandbox data" not in shown.stdout
    assert "Where the stack's data lives" in " ".join(shown.stdout.split())


def _encrypted_values(database: Path) -> list[str]:
    with sqlite3.connect(database) as connection:
        return [
            row[0]
            for query in (
                "SELECT client_secret_encrypted FROM project",
                "SELECT metadata_encrypted FROM customer",
            )
            for row in connection.execute(query).fetchall()
            if row[0] is not None
        ]


def test_keys_rotate_reencrypts_every_encrypted_column(tmp_path: Path) -> None:
    made = ramp("project", "create", "--name", "Acme", "--data-dir", str(tmp_path))
    assert made.returncode == 0, made.stderr
    old_keys = json.loads((tmp_path / "keys.json").read_text())["RAMP_ENCRYPTION_KEYS"]
    project_id = json.loads(made.stdout)["projectId"]
    with sqlite3.connect(tmp_path / "ramp.db") as connection:
        connection.execute(
            "INSERT INTO customer (id, project_id, external_id, metadata_encrypted, created_at, "
            "updated_at) VALUES ('c1', ?, 'user-1', ?, '2026-01-01', '2026-01-01')",
            (project_id, SecretBox(old_keys).encrypt('{"email":"a@b.test"}')),
        )
    before = _encrypted_values(tmp_path / "ramp.db")
    assert len(before) == 2

    new_key = generate_encryption_key()
    rotated = ramp("keys", "rotate", "--new-key", new_key, "--data-dir", str(tmp_path))
    assert rotated.returncode == 0, rotated.stderr
    body = json.loads(rotated.stdout)
    assert body["RAMP_ENCRYPTION_KEYS"].split(",")[0] == new_key
    assert body["reencrypted"]["project.client_secret_encrypted"] == 1
    assert body["reencrypted"]["customer.metadata_encrypted"] == 1
    stored = json.loads((tmp_path / "keys.json").read_text())
    assert stored["RAMP_ENCRYPTION_KEYS"] == body["RAMP_ENCRYPTION_KEYS"]

    after = _encrypted_values(tmp_path / "ramp.db")
    only_new, only_old = SecretBox(new_key), SecretBox(old_keys)
    for old_token, new_token in zip(before, after, strict=True):
        assert new_token != old_token
        assert only_new.decrypt(new_token) == only_old.decrypt(old_token)
        with pytest.raises(InvalidToken):
            only_old.decrypt(new_token)
    # Run again with the key already first (the no-downtime order): the list is unchanged.
    again = ramp("keys", "rotate", "--new-key", new_key, "--data-dir", str(tmp_path))
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout)["RAMP_ENCRYPTION_KEYS"] == body["RAMP_ENCRYPTION_KEYS"]
    # The service runs on the new keys: the CLI reads the project back.
    rotate_again = ramp(
        "project", "rotate-secret", "--project-id", project_id, "--grace-hours", "0",
        "--data-dir", str(tmp_path),
    )  # fmt: skip
    assert rotate_again.returncode == 0, rotate_again.stderr
