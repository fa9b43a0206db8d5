"""Migration 0007 hands every delivery still on its way to the dispatchers.

A database at revision 0006 holds deliveries as the previous design stored them (each
owned by its workflow, no `due_at`): one not attempted yet, one between retries, one
that ended. After the upgrade the first is due at once, the second at its next attempt
time, the third never; a downgrade and a second upgrade keep them so.
"""

from __future__ import annotations

import uuid
from datetime import timedelta
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command

from ramp.config import Settings
from ramp.db.migrate import alembic_config, upgrade
from ramp.db.types import UTCDateTime, utcnow
from tests.helpers.servers import derive_settings
from tests.test_migrations import fresh_database, legacy_project


def _table(name: str, *columns: str, times: tuple[str, ...] = ()) -> sa.TableClause:
    return sa.table(
        name, *map(sa.column, columns), *(sa.column(time, UTCDateTime()) for time in times)
    )


# A database of its own, beside the one under test (fresh_database).
@pytest.mark.database
async def test_upgrade_makes_deliveries_on_their_way_due(
    settings: Settings, tmp_path: Path
) -> None:
    now = utcnow().replace(microsecond=0)
    next_attempt = now + timedelta(minutes=5)
    with fresh_database(tmp_path) as url:
        db = derive_settings(settings, DATABASE_URL=url)
        command.upgrade(alembic_config(db), "0006")
        # Written with revision 0006's columns (today's models have more).
        project_id = legacy_project(db).project_id

        event = _table(
            "webhook_event", "id", "project_id", "intent_id", "event_type", "body",
            times=("occurred_at",),
        )  # fmt: skip
        delivery = _table(
            "webhook_delivery", "id", "project_id", "event_id", "endpoint_id", "event_type",
            "intent_id", "url", "status", "attempt_count", "max_attempts",
            times=("next_attempt_at", "created_at", "updated_at"),
        )  # fmt: skip
        ids = {status: str(uuid.uuid4()) for status in ("PENDING", "RETRYING", "SUCCEEDED")}
        sync = sa.create_engine(db.migration_url)
        with sync.begin() as connection:
            for status, delivery_id in ids.items():
                event_id = str(uuid.uuid4())
                connection.execute(
                    event.insert().values(
                        id=event_id, project_id=project_id, intent_id="i", body="{}",
                        event_type="INTENT_STATUS_CHANGED", occurred_at=now,
                    )
                )  # fmt: skip
                connection.execute(
                    delivery.insert().values(
                        id=delivery_id, project_id=project_id, event_id=event_id,
                        endpoint_id="e", event_type="INTENT_STATUS_CHANGED", intent_id="i",
                        url="http://127.0.0.1:9/", status=status,
                        attempt_count=0 if status == "PENDING" else 1, max_attempts=6,
                        next_attempt_at=next_attempt if status == "RETRYING" else None,
                        created_at=now, updated_at=now,
                    )
                )  # fmt: skip

        def due() -> dict[str, object]:
            columns = _table("webhook_delivery", "id", "lease_token", times=("due_at",))
            with sync.connect() as connection:
                rows = connection.execute(
                    sa.select(columns.c.id, columns.c.due_at, columns.c.lease_token)
                ).all()
            assert {row.lease_token for row in rows} == {None}
            return {row.id: row.due_at for row in rows}

        expected = {ids["PENDING"]: now, ids["RETRYING"]: next_attempt, ids["SUCCEEDED"]: None}
        try:
            upgrade(db)
            assert due() == expected
            command.downgrade(alembic_config(db), "0006")
            upgrade(db)
            assert due() == expected
        finally:
            sync.dispose()
