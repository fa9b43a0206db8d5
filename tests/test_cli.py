"""The `ramp` administration commands, run as a user would run them: as processes where
the test is about the process (its exit status, what it prints, the real password
hashing, settings from its environment only), in the test's process where it is about
what a command does with its options and data dir (tests/helpers/cli.py: each process
costs about 1 s of CPU in imports)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Environment, Settings
from ramp.db.tables import Project
from ramp.security.credentials import client_secret_matches
from ramp.security.tokens import CustomerClaims, TokenService
from ramp.settings_loader import STACK_FILE, mark_stack
from tests.helpers.cli import ramp, ramp_in_process


def trust_issuer(
    data_dir: Path, project_id: str, jwks_url: str
) -> subprocess.CompletedProcess[str]:
    return ramp_in_process(
        "project",
        "trust-issuer",
        "--project-id",
        project_id,
        "--issuer",
        "https://login.example",
        "--audience",
        "app",
        "--jwks-url",
        jwks_url,
        "--data-dir",
        str(data_dir),
    )


def test_project_create_prints_credentials_once(tmp_path: Path) -> None:
    created = ramp("project", "create", "--name", "Acme", "--data-dir", str(tmp_path))
    assert created.returncode == 0, created.stderr
    body = json.loads(created.stdout)
    assert set(body) == {"organizationId", "projectId", "clientId", "clientSecret"}
    assert body["clientSecret"].startswith("sk_sandbox_")

    import sqlite3

    with sqlite3.connect(tmp_path / "ramp.db") as connection:
        row = connection.execute(
            "SELECT client_secret_hash, client_secret_encrypted FROM project WHERE id = ?",
            (body["projectId"],),
        ).fetchone()
    stored_hash, encrypted = row
    # Stored as a hash and as ciphertext, never in plaintext.
    assert client_secret_matches(body["clientSecret"], stored_hash)
    assert body["clientSecret"] not in encrypted
    for stored in tmp_path.glob("ramp.db*"):  # the database and its WAL
        assert body["clientSecret"] not in stored.read_bytes().decode("latin-1")

    trusted = trust_issuer(tmp_path, body["projectId"], "https://login.example/jwks")
    assert trusted.returncode == 0, trusted.stderr
    assert json.loads(trusted.stdout)["issuer"] == "https://login.example"


def test_trust_issuer_refuses_bad_input_clearly(tmp_path: Path) -> None:
    created = ramp_in_process("project", "create", "--name", "A", "--data-dir", str(tmp_path))
    project_id = json.loads(created.stdout)["projectId"]
    insecure = trust_issuer(tmp_path, project_id, "http://login.example/jwks")
    assert insecure.returncode == 1
    assert "https" in insecure.stderr
    assert "Traceback" not in insecure.stderr
    unknown = trust_issuer(tmp_path, "nope", "https://login.example/jwks")
    assert unknown.returncode == 1
    assert "no project nope" in unknown.stderr


def test_generated_keys_configure_the_service(tmp_path: Path) -> None:
    generated = ramp("keys", "generate")
    assert generated.returncode == 0
    env_file = tmp_path / ".env"
    env_file.write_text(generated.stdout)
    settings = Settings(_env_file=env_file)
    tokens = TokenService.from_settings(settings)
    claims = CustomerClaims("c", "p", "o", "production")
    assert tokens.verify_customer_token(tokens.issue_customer_token(claims)) == claims


def test_production_never_invents_keys(tmp_path: Path) -> None:
    result = ramp(
        "project",
        "create",
        "--name",
        "Live",
        env={"RAMP_ENV": "production", "RAMP_DATA_DIR": str(tmp_path)},
    )
    assert result.returncode != 0
    assert "RAMP_ENCRYPTION_KEYS is not set" in result.stderr
    assert not (tmp_path / "keys.json").exists()


# --- the database of the data dir's stack (issue 23) -------------------------------------


async def test_commands_use_the_database_their_stack_runs_on(
    tmp_path: Path, migrated: Settings, db: AsyncSession
) -> None:
    """`ramp dev --database-url URL` records URL in its data dir; `ramp project create
    --data-dir D` used to create a SQLite ramp.db in D instead and print credentials the
    running API refused. Here the stack's database is the test run's (PostgreSQL in
    that pass)."""
    data = tmp_path / "stack"
    mark_stack(data, Environment.SANDBOX, "http://127.0.0.1:8000", migrated.database_url)
    assert (data / STACK_FILE).stat().st_mode & 0o777 == 0o600  # the URL may hold a password
    created = ramp_in_process(
        "project", "create", "--name", "On the stack", "--data-dir", str(data)
    )
    assert created.returncode == 0, created.stderr
    project_id = json.loads(created.stdout)["projectId"]
    assert await db.get(Project, project_id) is not None
    assert not (data / "ramp.db").exists()


def test_a_command_refuses_another_database_than_its_stacks(tmp_path: Path) -> None:
    data = tmp_path / "stack"
    mark_stack(data, Environment.SANDBOX, None, f"sqlite:///{tmp_path / 'stack.db'}")
    elsewhere = f"sqlite:///{tmp_path / 'elsewhere.db'}"
    given = ramp(
        "project", "create", "--name", "A", "--data-dir", str(data), "--database-url", elsewhere
    )
    from_env = ramp(
        "org",
        "create",
        "--name",
        "A",
        "--owner-email",
        "a@b.test",
        "--data-dir",
        str(data),
        env={"DATABASE_URL": elsewhere},
    )
    for refused in (given, from_env):
        assert refused.returncode == 1, refused.stdout
        assert "holds a local stack on sqlite:///" in refused.stderr
        assert "Traceback" not in refused.stderr
    assert not (tmp_path / "elsewhere.db").exists()
    assert not (data / "ramp.db").exists()


def test_a_stack_from_before_the_record_is_not_given_a_second_database(tmp_path: Path) -> None:
    """A data dir of an older `ramp dev --database-url` (its stack.json without the
    database, keys, no ramp.db): a command refuses rather than creating SQLite there."""
    data = tmp_path / "stack"
    data.mkdir()
    (data / STACK_FILE).write_text(json.dumps({"environment": "sandbox", "publicUrl": None}))
    refused = ramp_in_process("project", "create", "--name", "A", "--data-dir", str(data))
    assert refused.returncode == 1, refused.stdout
    assert "pass that --database-url" in refused.stderr
    assert not (data / "ramp.db").exists()


def test_every_data_command_takes_database_url(tmp_path: Path) -> None:
    database = tmp_path / "chosen.db"
    url = f"sqlite:///{database}"
    created = ramp_in_process(
        "project", "create", "--name", "A", "--data-dir", str(tmp_path / "d"), "--database-url", url
    )
    assert created.returncode == 0, created.stderr
    project_id = json.loads(created.stdout)["projectId"]
    assert database.exists()
    assert not (tmp_path / "d" / "ramp.db").exists()
    fee = ramp_in_process(
        "project",
        "set-partner-fee",
        "--project-id",
        project_id,
        "--bps",
        "25",
        "--data-dir",
        str(tmp_path / "d"),
        "--database-url",
        url,
    )
    assert fee.returncode == 0, fee.stderr
    for command in (
        ["org", "create"],
        ["project", "rotate-secret"],
        ["project", "trust-issuer"],
        ["project", "allow-origin"],
        ["project", "disallow-origin"],
        ["project", "set-partner-fee"],
        ["provider-account", "set"],
        ["provider-account", "list"],
        ["provider-account", "disable"],
        ["webhook", "add"],
        ["webhook", "list"],
        ["webhook", "enable"],
        ["webhook", "disable"],
        ["webhook", "remove"],
        ["webhook", "listen"],
        ["db", "upgrade"],
        ["keys", "rotate"],
        ["api"],
        ["worker"],
        ["dispatcher"],
    ):
        helped = ramp_in_process(*command, "--help")
        assert "--database-url" in helped.stdout, command
