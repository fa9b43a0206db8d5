"""data at rest: account and customer metadata encrypted in place, identity subjects
replaced by their keyed hash, onboarding verdicts

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23 13:00:00.000000

Existing rows are kept: each plain JSON `metadata` is encrypted into
`metadata_encrypted` with the first of RAMP_ENCRYPTION_KEYS (ramp/db/migrate.py passes
the SecretBox), then the plain column is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import context, op

import ramp.db.types
from ramp.security.encryption import MissingKey, SecretBox

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# (table, may the metadata be null?)
_TABLES = (("external_account", False), ("customer", True))


def upgrade() -> None:
    for table, nullable in _TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("metadata_encrypted", sa.Text(), nullable=True))
        _encrypt_rows(table)
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("metadata")
            if not nullable:
                batch_op.alter_column("metadata_encrypted", existing_type=sa.Text(), nullable=False)

    with op.batch_alter_table("customer_identity", schema=None) as batch_op:
        batch_op.alter_column(
            "subject", new_column_name="subject_hash", existing_type=sa.String(length=500)
        )
    _hash_subjects()

    op.create_table(
        "onboarding_verdict",
        sa.Column("submission_id", sa.String(length=36), nullable=False),
        sa.Column("intent_id", sa.String(length=36), nullable=False),
        sa.Column("customer_id", sa.String(length=36), nullable=False),
        sa.Column("provider_code", sa.String(length=64), nullable=False),
        sa.Column("step_code", sa.String(length=64), nullable=False),
        sa.Column("verdict", sa.String(length=16), nullable=False),
        sa.Column("submitted_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.Column("decided_at", ramp.db.types.UTCDateTime(timezone=True), nullable=True),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("purged_at", ramp.db.types.UTCDateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(["intent_id"], ["intent.id"]),
        sa.PrimaryKeyConstraint("submission_id"),
    )
    with op.batch_alter_table("onboarding_verdict", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_onboarding_verdict_customer_id"), ["customer_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_onboarding_verdict_intent_id"), ["intent_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("onboarding_verdict", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_onboarding_verdict_intent_id"))
        batch_op.drop_index(batch_op.f("ix_onboarding_verdict_customer_id"))
    op.drop_table("onboarding_verdict")
    with op.batch_alter_table("customer_identity", schema=None) as batch_op:
        batch_op.alter_column(
            "subject_hash", new_column_name="subject", existing_type=sa.String(length=500)
        )
    for table, nullable in _TABLES:
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.add_column(sa.Column("metadata", sa.JSON(), nullable=True))
        _decrypt_rows(table)
        with op.batch_alter_table(table, schema=None) as batch_op:
            batch_op.drop_column("metadata_encrypted")
            if not nullable:
                batch_op.alter_column("metadata", existing_type=sa.JSON(), nullable=False)


def _hash_subjects() -> None:
    """A hash cannot be undone: a downgrade keeps the hashes (such identities are not
    found again by the old code; their customers still are, by their own id)."""
    identities = sa.table(
        "customer_identity", sa.column("id", sa.String), sa.column("subject_hash", sa.String)
    )
    connection = op.get_bind()
    plain = connection.execute(sa.select(identities.c.id, identities.c.subject_hash)).all()
    box = _secret_box(len(plain))
    for row_id, subject in plain:
        assert box is not None
        connection.execute(
            identities.update()
            .where(identities.c.id == row_id)
            .values(subject_hash=box.keyed_hash(subject))
        )


def _secret_box(rows: int) -> SecretBox | None:
    box: SecretBox | None = context.config.attributes.get("secret_box")
    if box is None and rows:
        raise MissingKey(
            "encrypting existing rows needs RAMP_ENCRYPTION_KEYS: set it and upgrade again"
        )
    return box


def _encrypt_rows(table: str) -> None:
    rows = sa.table(
        table,
        sa.column("id", sa.String),
        sa.column("metadata", sa.JSON),
        sa.column("metadata_encrypted", sa.Text),
    )
    connection = op.get_bind()
    plain = connection.execute(
        sa.select(rows.c.id, rows.c.metadata).where(rows.c.metadata.is_not(None))
    ).all()
    box = _secret_box(len(plain))
    for row_id, metadata in plain:
        if metadata is None:  # a JSON null on SQLite
            continue
        assert box is not None
        ciphertext = box.encrypt(json.dumps(metadata, separators=(",", ":")))
        connection.execute(
            rows.update().where(rows.c.id == row_id).values(metadata_encrypted=ciphertext)
        )


def _decrypt_rows(table: str) -> None:
    rows = sa.table(
        table,
        sa.column("id", sa.String),
        sa.column("metadata", sa.JSON),
        sa.column("metadata_encrypted", sa.Text),
    )
    connection = op.get_bind()
    encrypted = connection.execute(
        sa.select(rows.c.id, rows.c.metadata_encrypted).where(
            rows.c.metadata_encrypted.is_not(None)
        )
    ).all()
    box = _secret_box(len(encrypted))
    for row_id, ciphertext in encrypted:
        assert box is not None
        connection.execute(
            rows.update()
            .where(rows.c.id == row_id)
            .values(metadata=json.loads(box.decrypt(ciphertext)))
        )
