"""The migrations build exactly the schema the code declares, and keep the data."""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine
from sqlmodel import SQLModel
from sqlmodel.ext.asyncio.session import AsyncSession
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from api.app import create_app
from ramp.config import Settings, sync_database_url
from ramp.db import engine as engines
from ramp.db import tables  # noqa: F401  (registers the tables)
from ramp.db.migrate import alembic_config, upgrade
from ramp.db.types import UTCDateTime, utcnow
from ramp.intents.provider_calls import provider_event_id
from ramp.intents.states import ProviderEventType
from ramp.security.encryption import SecretBox
from ramp.security.tokens import TokenService
from tests.helpers.payments import (
    ACH,
    EVM_ADDRESS,
    create_intent,
    get_intent,
    register_accounts,
    wallet,
)
from tests.helpers.projects import ProjectCredentials, make_project
from tests.helpers.servers import derive_settings, serve, service_on
from worker import build_worker

SIGNER = "0x" + "ab" * 20
PERSONAL_TABLES = ("external_account", "customer", "customer_identity")


def test_migrated_schema_matches_the_tables(migrated: Settings) -> None:
    engine = create_engine(migrated.migration_url)
    with engine.connect() as connection:
        context = MigrationContext.configure(connection)
        differences = compare_metadata(context, SQLModel.metadata)
    engine.dispose()
    assert differences == []


def test_a_transaction_event_id_holds_the_longest_provider_reference() -> None:
    """The event's id is the provider's reference, a colon and the type: PostgreSQL
    refused Monerium's (76 characters) in a column of 64, SQLite stored them."""
    longest = "x" * _length("intent_transaction", "provider_reference")
    ids = [provider_event_id(longest, event_type) for event_type in ProviderEventType]
    assert max(map(len, ids)) <= _length("transaction_event", "id")


def _length(table: str, column: str) -> int:
    kind = SQLModel.metadata.tables[table].c[column].type
    if isinstance(kind, sa.TypeDecorator):  # SQLModel's AutoString
        kind = kind.impl_instance
    assert isinstance(kind, sa.String)
    assert kind.length is not None
    return kind.length


def test_upgrade_is_idempotent(migrated: Settings) -> None:
    upgrade(migrated)
    upgrade(migrated)


@contextmanager
def fresh_database(tmp_path: Path) -> Iterator[str]:
    """An empty database of the kind the suite runs on (SQLite, or a PostgreSQL schema)."""
    postgres = os.environ.get("RAMP_TEST_DATABASE_URL")
    if not postgres:
        yield f"sqlite:///{tmp_path / 'old.db'}"
        return
    schema = f"ramp_old_{uuid.uuid4().hex[:12]}"
    admin = create_engine(sync_database_url(postgres))
    with admin.begin() as connection:
        connection.execute(sa.text(f'CREATE SCHEMA "{schema}"'))
    separator = "&" if "?" in postgres else "?"
    try:
        yield f"{postgres}{separator}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def legacy_project(settings: Settings) -> ProjectCredentials:
    """A sandbox project with its mock providers' accounts, written with the columns of
    revision 0004 only (the models of today have more)."""
    from ramp.catalog import SANDBOX_PROVIDERS
    from ramp.security.credentials import generate_client_credentials, hash_client_secret

    now = utcnow()
    ids = {"organization": str(uuid.uuid4()), "project": str(uuid.uuid4())}
    credentials = generate_client_credentials(sandbox=True)

    def stamps() -> tuple[sa.ColumnClause[Any], ...]:
        return (sa.column("created_at", UTCDateTime()), sa.column("updated_at", UTCDateTime()))

    organization = sa.table("organization", sa.column("id"), sa.column("name"), stamps()[0])
    project = sa.table(
        "project",
        *map(sa.column, ("id", "organization_id", "name", "environment", "client_id")),
        *map(sa.column, ("client_secret_hash", "client_secret_encrypted")),
        *stamps(),
    )
    account = sa.table(
        "provider_account", *map(sa.column, ("id", "project_id", "provider_code", "active")),
        *stamps(),
    )  # fmt: skip
    engine = create_engine(settings.migration_url)
    with engine.begin() as connection:
        connection.execute(
            organization.insert().values(id=ids["organization"], name="Legacy", created_at=now)
        )
        connection.execute(
            project.insert().values(
                id=ids["project"], organization_id=ids["organization"], name="Legacy",
                environment="sandbox", client_id=credentials.client_id,
                client_secret_hash=hash_client_secret(credentials.client_secret),
                client_secret_encrypted=SecretBox.from_settings(settings).encrypt(
                    credentials.client_secret
                ),
                created_at=now, updated_at=now,
            )
        )  # fmt: skip
        for provider in SANDBOX_PROVIDERS:
            connection.execute(
                account.insert().values(
                    id=str(uuid.uuid4()), project_id=ids["project"],
                    provider_code=provider.code, active=True, created_at=now, updated_at=now,
                )
            )  # fmt: skip
    engine.dispose()
    return ProjectCredentials(
        ids["organization"], ids["project"], credentials.client_id, credentials.client_secret
    )


def _insert_plain_rows(settings: Settings, project_id: str, rows: dict[str, Any]) -> None:
    """A customer and its two accounts as revision 0004 stored them: plain JSON."""
    now = utcnow()

    def table(name: str, *plain: str) -> sa.TableClause:
        return sa.table(
            name, *map(sa.column, plain), sa.column("metadata", sa.JSON),
            sa.column("created_at", UTCDateTime()), sa.column("updated_at", UTCDateTime()),
        )  # fmt: skip

    customer = table("customer", "id", "project_id", "external_id")
    account = table("external_account", "id", "project_id", "customer_id", "type", "currency_code")
    engine = create_engine(settings.migration_url)
    with engine.begin() as connection:
        connection.execute(
            customer.insert().values(
                id=rows["customer"], project_id=project_id, external_id="legacy-1",
                metadata=rows["customer_metadata"], created_at=now, updated_at=now,
            )
        )  # fmt: skip
        for account_id, kind, currency, metadata in rows["accounts"]:
            connection.execute(
                account.insert().values(
                    id=account_id, project_id=project_id, customer_id=rows["customer"],
                    type=kind, currency_code=currency, metadata=metadata,
                    created_at=now, updated_at=now,
                )
            )  # fmt: skip
        identity = sa.table(
            "customer_identity",
            *map(sa.column, ("id", "project_id", "customer_id", "issuer", "subject")),
            sa.column("created_at", UTCDateTime()),
        )
        issuer, subject = rows["identity"]
        connection.execute(
            identity.insert().values(
                id=str(uuid.uuid4()), project_id=project_id, customer_id=rows["customer"],
                issuer=issuer, subject=subject, created_at=now,
            )
        )  # fmt: skip
    engine.dispose()


def _raw(settings: Settings, table: str) -> str:
    engine = create_engine(settings.migration_url)
    with engine.connect() as connection:
        dump = repr(connection.execute(sa.text(f"SELECT * FROM {table}")).all())  # noqa: S608
    engine.dispose()
    return dump


# A database of its own, beside the one under test (fresh_database).
@pytest.mark.database
async def test_upgrade_encrypts_existing_accounts_and_customers_in_place(
    settings: Settings, tmp_path: Path, own_server: WorkflowEnvironment, own_client: Client
) -> None:
    address = own_server.client.service_client.config.target_host
    with fresh_database(tmp_path) as url:
        old = derive_settings(settings, DATABASE_URL=url, TEMPORAL_ADDRESS=address)
        upgrade(old, "0004")
        credentials = legacy_project(old)
        rows: dict[str, Any] = {
            "customer": str(uuid.uuid4()),
            "customer_metadata": {"email": "legacy@example.com"},
            "accounts": [
                (str(uuid.uuid4()), "BANK_ACCOUNT", "USD", ACH),
                (str(uuid.uuid4()), "CRYPTO_ADDRESS", "USDC_ETHEREUM", wallet("USDC_ETHEREUM")),
            ],
        }
        tokens = TokenService.from_settings(old)
        rows["identity"] = (tokens.wallet_issuer, f"eip155:100:{SIGNER}")
        _insert_plain_rows(old, credentials.project_id, rows)

        upgrade(old)

        stored = "".join(_raw(old, table) for table in PERSONAL_TABLES)
        for plain in ("000123456789", "12-3456789", "Alex Morgan", EVM_ADDRESS, "legacy@", SIGNER):
            assert plain not in stored, plain
        async with service_on(old, own_client) as client:
            retrieved = await client.post(
                "/v1/customers", json={"id": "legacy-1"}, headers=credentials.basic
            )
            assert retrieved.status_code == 200, retrieved.text
            assert retrieved.json()["metadata"] == {"email": "legacy@example.com"}
            token = retrieved.json()["access_token"]
            source, destination = (account[0] for account in rows["accounts"])
            opened = await create_intent(client, token, (source, destination))
            assert opened.status_code == 201, opened.text
            intent = opened.json()["intent"]
            assert intent["src"]["metadata"] == ACH
            assert intent["dest"]["metadata"] == wallet("USDC_ETHEREUM")
            # The wallet linked before the upgrade is found by its keyed hash.
            wallet_token = tokens.issue_wallet_token(SIGNER, 100, timedelta(minutes=5))
            taken = await client.post(
                "/v1/customers",
                json={"id": "someone-else", "subject_token": wallet_token},
                headers=credentials.basic,
            )
            assert taken.status_code == 409, taken.text
            assert taken.json()["code"] == "IDENTITY_ALREADY_LINKED"


def _stored_amounts(settings: Settings) -> tuple[str, dict[str, Any]]:
    """The amount column's type, and the intents' amounts as the database returns them."""
    engine = create_engine(settings.migration_url)
    with engine.connect() as connection:
        (column,) = (
            c for c in sa.inspect(connection).get_columns("intent") if c["name"] == "amount"
        )
        rows = connection.execute(sa.text("SELECT id, amount FROM intent")).all()
    engine.dispose()
    return str(column["type"]), {row_id: amount for row_id, amount in rows}


# A database of its own, beside the one under test (fresh_database).
@pytest.mark.database
async def test_upgrade_keeps_amounts_exactly_as_they_were_sent(
    settings: Settings, tmp_path: Path, own_server: WorkflowEnvironment, own_client: Client
) -> None:
    address = own_server.client.service_client.config.target_host
    sent = ("100.50", "12.5", "25000", "10.00")
    with fresh_database(tmp_path) as url:
        db = derive_settings(settings, DATABASE_URL=url, TEMPORAL_ADDRESS=address)
        upgrade(db)
        engine = engines.create_engine(db)
        try:
            async with AsyncSession(engine, expire_on_commit=False) as session:
                credentials = await make_project(session, db)
            box = SecretBox.from_settings(db)
            async with (
                build_worker(
                    own_client,
                    engines.session_factory(engine),
                    box,
                    task_queue=db.task_queue,
                ),
                serve(create_app(db)) as client,
            ):
                customer = await client.post(
                    "/v1/customers", json={"id": "amounts"}, headers=credentials.basic
                )
                token = customer.json()["access_token"]
                accounts = await register_accounts(client, token)
                intents = {}
                for amount in sent:
                    opened = await create_intent(client, token, accounts, amount=amount)
                    assert opened.status_code == 201, opened.text
                    intents[opened.json()["intent"]["id"]] = amount
        finally:
            await engine.dispose()

        # Back to the schema before NUMERIC amounts: each amount is its decimal string.
        command.downgrade(alembic_config(db), "0005")
        kind, old = _stored_amounts(db)
        assert kind.startswith("VARCHAR"), kind
        assert old == intents

        upgrade(db)
        kind, new = _stored_amounts(db)
        postgres = db.migration_url.startswith("postgresql")
        assert kind.startswith("NUMERIC" if postgres else "VARCHAR"), kind
        assert {row_id: str(amount) for row_id, amount in new.items()} == intents

        async with service_on(db, own_client) as client:
            for intent_id, amount in intents.items():
                shown = await get_intent(client, token, intent_id)
                assert shown["intent"]["transferAmount"] == {
                    "amount": amount,
                    "currencyCode": "USD",
                }


@pytest.mark.database
def test_upgrade_names_the_customer_of_events_stored_before(
    settings: Settings, tmp_path: Path
) -> None:
    """0015 (issue 29): events stored before carry their customer, read from the body."""
    with fresh_database(tmp_path) as url:
        old = derive_settings(settings, DATABASE_URL=url)
        upgrade(old, "0004")
        project = legacy_project(old)
        customer = str(uuid.uuid4())
        events = sa.table(
            "webhook_event",
            *map(sa.column, ("id", "project_id", "intent_id", "event_type", "body")),
            sa.column("occurred_at", UTCDateTime()),
        )
        bodies = {
            str(uuid.uuid4()): json.dumps({"eventId": "e", "data": {"customerId": customer}}),
            str(uuid.uuid4()): "not json",
        }
        engine = create_engine(old.migration_url)
        with engine.begin() as connection:
            for event_id, body in bodies.items():
                connection.execute(
                    events.insert().values(
                        id=event_id, project_id=project.project_id, intent_id=str(uuid.uuid4()),
                        event_type="INTENT_STATUS_CHANGED", body=body, occurred_at=utcnow(),
                    )
                )  # fmt: skip
        upgrade(old)
        command.downgrade(alembic_config(old), "0015-1")
        upgrade(old)
        with engine.connect() as connection:
            found: dict[str, str | None] = dict(
                connection.execute(sa.text("SELECT id, customer_id FROM webhook_event")).all()
            )
        engine.dispose()
        assert found == dict(zip(bodies, (customer, None), strict=True))


@pytest.mark.database
def test_upgrade_names_existing_provider_accounts_and_allows_several(
    settings: Settings, tmp_path: Path
) -> None:
    """0017 (issue 26): accounts stored before are named `default` at priority 100, and
    a project may then hold another account of the same provider, by another name."""
    with fresh_database(tmp_path) as url:
        old = derive_settings(settings, DATABASE_URL=url)
        upgrade(old, "0016")
        project = legacy_project(old)
        upgrade(old)
        engine = create_engine(old.migration_url)
        select_accounts = sa.text(
            "SELECT id, provider_code, name, priority FROM provider_account WHERE project_id = :p"
        )
        with engine.connect() as connection:
            rows = connection.execute(select_accounts, {"p": project.project_id}).all()
        assert rows
        assert {(name, priority) for _, _, name, priority in rows} == {("default", 100)}
        code = rows[0][1]
        insert = sa.text(
            "INSERT INTO provider_account (id, project_id, provider_code, active, status, name,"
            " priority, created_at, updated_at) VALUES (:id, :p, :code, :active, 'HEALTHY',"
            " :name, 10, :now, :now)"
        )
        values = {"p": project.project_id, "code": code, "active": True, "now": utcnow()}
        with engine.begin() as connection:
            connection.execute(insert, {**values, "id": str(uuid.uuid4()), "name": "entity-b"})
        with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
            connection.execute(insert, {**values, "id": str(uuid.uuid4()), "name": "entity-b"})
        with engine.begin() as connection:
            connection.execute(sa.text("DELETE FROM provider_account WHERE name = 'entity-b'"))
        # Down and up again: one account per provider before, named again after.
        command.downgrade(alembic_config(old), "0016")
        upgrade(old)
        with engine.connect() as connection:
            again = connection.execute(select_accounts, {"p": project.project_id}).all()
        engine.dispose()
        assert sorted(again) == sorted(rows)
