"""Personal data at rest: account identifiers and customer metadata are stored
encrypted (the raw rows and the SQLite files hold none of them in plain text) while
the API serves them unchanged; data files are readable by the service's user only."""

from __future__ import annotations

import copy
import os
import stat
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
from sqlalchemy import create_engine as create_sync_engine
from sqlalchemy import make_url, text
from sqlmodel import SQLModel
from temporalio.worker import Worker

from ramp.config import Settings
from ramp.db.engine import create_engine
from ramp.db.migrate import upgrade
from ramp.db.tables import Organization
from ramp.security.keys import dev_keys, generated_keys
from ramp.security.tokens import TokenService
from tests.helpers.payments import ACH as USUAL_ACH
from tests.helpers.payments import SEPA, bank, create_intent, register_accounts, wallet
from tests.helpers.projects import ProjectCredentials

EMAIL = "alex.morgan@example.com"
OTHER_EMAIL = "sam.rivera@example.test"
SIGNER = "0x" + "cd" * 20
# A routing number of its own: the usual one (JPMorgan Chase's) is also in the sandbox
# providers' deposit instructions, which are the provider's and stored as they are; other
# modules of the process leave such transactions in the shared database.
ACH = {
    **USUAL_ACH,
    "accountIdentifier": {"routingNumber": "011000028", "accountNumber": "000987654321"},
}
# Everything here identifies a person or an account: none may be stored in plain text.
SECRETS = [
    ACH["accountIdentifier"]["accountNumber"],
    ACH["accountIdentifier"]["routingNumber"],
    ACH["beneficiary"]["taxId"],
    SEPA["accountIdentifier"]["iban"],
    SEPA["beneficiary"]["taxId"],
    "Alex Morgan",
    EMAIL,
    OTHER_EMAIL,
    SIGNER,
]


def _raw_rows(settings: Settings) -> str:
    """Every row of every table, as the database returns it (no decryption)."""
    engine = create_sync_engine(settings.migration_url)
    with engine.connect() as connection:
        dump = "\n".join(
            repr(row)
            for table in SQLModel.metadata.sorted_tables
            # Table names come from our own metadata; text() skips the column types,
            # which would decrypt.
            for row in connection.execute(text(f'SELECT * FROM "{table.name}"'))  # noqa: S608
        )
    engine.dispose()
    return dump


def _sqlite_bytes(settings: Settings) -> bytes:
    if not settings.migration_url.startswith("sqlite"):
        return b""
    database = Path(str(make_url(settings.migration_url).database))
    files = [database, *(Path(f"{database}{suffix}") for suffix in ("-wal", "-journal"))]
    return b"".join(path.read_bytes() for path in files if path.exists())


async def test_account_identifiers_and_customer_data_are_stored_encrypted(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings, worker: Worker
) -> None:
    metadata: dict[str, Any] = {"email": EMAIL, "plan": "pro"}
    # Signed in with a wallet: its address is the identity's subject.
    signed_in = TokenService.from_settings(migrated).issue_wallet_token(
        SIGNER, 100, timedelta(minutes=5)
    )
    body = {"id": "user-at-rest", "metadata": metadata, "subject_token": signed_in}
    created = await client.post("/v1/customers", json=body, headers=project.basic)
    assert created.status_code == 201, created.text
    token = created.json()["access_token"]
    # Without a subject token, a customer is written and read back as Core rows.
    plain = {"id": "user-at-rest-2", "metadata": {"email": OTHER_EMAIL}}
    first = await client.post("/v1/customers", json=plain, headers=project.basic)
    assert first.status_code == 201, first.text
    again = await client.post("/v1/customers", json={"id": "user-at-rest-2"}, headers=project.basic)
    assert again.status_code == 200, again.text
    assert again.json()["metadata"] == {"email": OTHER_EMAIL}
    usd = await register_accounts(
        client, token, "USD", "USDC_ETHEREUM", copy.deepcopy(ACH), wallet("USDC_ETHEREUM")
    )
    eur = await register_accounts(
        client, token, "EUR", "USDC_ETHEREUM", bank(SEPA), wallet("USDC_ETHEREUM")
    )
    # Read back from the database by the API and by the workflow's activities (provider
    # selection reads rails and country from the account): all decrypted.
    opened = await create_intent(client, token, usd)
    assert opened.status_code == 201, opened.text
    intent = opened.json()["intent"]
    assert intent["src"]["metadata"] == ACH
    assert intent["dest"]["metadata"] == wallet("USDC_ETHEREUM")
    retrieved = await client.post(
        "/v1/customers",
        json={"id": "user-at-rest", "subject_token": signed_in},
        headers=project.basic,
    )
    assert retrieved.status_code == 200, retrieved.text
    assert retrieved.json()["metadata"] == metadata
    opened_eur = await create_intent(client, token, eur)
    assert opened_eur.status_code == 201, opened_eur.text
    assert opened_eur.json()["intent"]["src"]["metadata"] == SEPA

    rows = _raw_rows(migrated)
    assert ACH["institutionName"] not in rows  # the metadata as a whole is encrypted
    for value in SECRETS:
        assert value not in rows, value
    files = _sqlite_bytes(migrated)
    for value in SECRETS:
        assert value.encode() not in files, value
    # The encrypted columns are there, and hold ciphertext.
    assert "gAAAAA" in rows  # Fernet tokens start with version byte 0x80


async def test_data_dir_and_sqlite_files_are_private(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    settings = _sqlite_settings(data_dir)
    previous = os.umask(0o022)  # the usual default: world-readable files
    try:
        upgrade(settings)
        engine = create_engine(settings)
        async with engine.begin() as connection:  # a write: WAL and shared memory appear
            await connection.execute(
                Organization.__table__.insert().values(id="org", name="x")  # type: ignore[attr-defined]
            )
        database = data_dir / "ramp.db"
        assert _mode(data_dir) == 0o700
        for path in (database, Path(f"{database}-wal"), Path(f"{database}-shm")):
            assert path.exists(), path
            assert _mode(path) == 0o600, path
        await engine.dispose()

        keys_dir = tmp_path / "keys"
        dev_keys(keys_dir)
        assert _mode(keys_dir) == 0o700
        assert _mode(keys_dir / "keys.json") == 0o600
    finally:
        os.umask(previous)


async def test_files_an_older_version_left_readable_are_tightened(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o755)
    settings = _sqlite_settings(data_dir)
    upgrade(settings)
    database = data_dir / "ramp.db"
    wal = Path(f"{database}-wal")
    os.close(os.open(wal, os.O_CREAT | os.O_WRONLY, 0o644))
    for path in (data_dir, database, wal):
        os.chmod(path, 0o755 if path.is_dir() else 0o644)
    engine = create_engine(settings)
    await engine.dispose()
    assert _mode(data_dir) == 0o700
    assert _mode(database) == 0o600
    assert _mode(wal) == 0o600


def _sqlite_settings(data_dir: Path) -> Settings:
    keys: dict[str, Any] = generated_keys()
    return Settings(RAMP_DATA_DIR=str(data_dir), DATABASE_URL="", **keys)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)
