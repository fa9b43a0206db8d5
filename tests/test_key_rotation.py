"""Key rotation on the test database (SQLite or PostgreSQL): every encrypted column
re-encrypted under the new key, all or nothing."""

from __future__ import annotations

import httpx
import pytest
import sqlalchemy as sa
from cryptography.fernet import InvalidToken
from sqlmodel import SQLModel

from ramp.config import Settings
from ramp.security.encryption import SecretBox
from ramp.security.keys import generate_encryption_key
from ramp.security.rotation import encrypted_columns, rotate_all
from tests.helpers.projects import ProjectCredentials


def _tokens(settings: Settings) -> dict[str, list[str]]:
    """Every stored token, per column, in primary key order (as stored: no decryption)."""
    engine = sa.create_engine(settings.migration_url)
    found: dict[str, list[str]] = {}
    with engine.connect() as connection:
        for table, columns in encrypted_columns(SQLModel.metadata):
            keys = [c.name for c in table.primary_key.columns]
            for column in columns:
                raw = sa.table(table.name, *(sa.column(n, sa.Text) for n in (*keys, column.name)))
                rows = connection.execute(
                    sa.select(raw.c[column.name])
                    .where(raw.c[column.name].is_not(None))
                    .order_by(*(raw.c[k] for k in keys))
                ).all()
                if rows:
                    found[f"{table.name}.{column.name}"] = [row[0] for row in rows]
    engine.dispose()
    return found


async def test_every_encrypted_value_moves_to_the_new_key(
    client: httpx.AsyncClient, project: ProjectCredentials, migrated: Settings
) -> None:
    created = await client.post(
        "/v1/customers", json={"id": "u1", "metadata": {"email": "a@b.test"}}, headers=project.basic
    )
    assert created.status_code == 201, created.text
    before = _tokens(migrated)
    assert {"project.client_secret_encrypted", "customer.metadata_encrypted"} <= set(before)
    old = migrated.encryption_keys.get_secret_value()
    new_key = generate_encryption_key()
    engine = sa.create_engine(migrated.migration_url)
    with engine.begin() as connection:
        counts = rotate_all(connection, SQLModel.metadata, SecretBox(f"{new_key},{old}"))
    engine.dispose()
    after = _tokens(migrated)
    assert {name: len(values) for name, values in after.items()} == {
        name: count for name, count in counts.items() if count
    }
    only_new, only_old = SecretBox(new_key), SecretBox(old)
    for name, tokens in before.items():
        for old_token, new_token in zip(tokens, after[name], strict=True):
            assert only_new.decrypt(new_token) == only_old.decrypt(old_token)
            with pytest.raises(InvalidToken):
                only_old.decrypt(new_token)
