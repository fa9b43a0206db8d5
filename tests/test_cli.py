"""The `ramp` administration commands, run as a user would run them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from ramp.config import Settings
from ramp.security.credentials import client_secret_matches
from ramp.security.tokens import CustomerClaims, TokenService
from tests.helpers.cli import ramp


def trust_issuer(
    data_dir: Path, project_id: str, jwks_url: str
) -> subprocess.CompletedProcess[str]:
    return ramp(
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
    created = ramp("project", "create", "--name", "A", "--data-dir", str(tmp_path))
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
