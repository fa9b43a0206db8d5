"""Models read as Core rows (ramp/db/rows.py): what the API's intent reads and customer
authentication build instead of ORM entities."""

from __future__ import annotations

import subprocess
import sys


def test_a_model_built_from_a_row_reads_back_before_any_orm_query() -> None:
    # A fresh interpreter: nothing has configured the mappers yet, as in an API process
    # whose first request is a read of Core rows. Unconfigured, the model's attributes
    # raise instead of answering.
    script = """
from datetime import UTC, datetime
from sqlalchemy.dialects import sqlite
from ramp.db.rows import ModelColumns
from ramp.db.tables import TransactionRow
columns = ModelColumns(TransactionRow)
values = {
    "id": "t1", "intent_id": "i1", "project_id": "p1", "status": "PENDING",
    "provider_code": "atlas", "provider_reference": "REF", "context": {}, "receipt": None,
    "failure_reason": None, "created_at": datetime(2026, 1, 1, tzinfo=UTC),
    "updated_at": datetime(2026, 1, 1, tzinfo=UTC),
    "last_activity_at": datetime(2026, 1, 1, tzinfo=UTC),
}
row = [values[c.key] for c in columns.columns]
transaction = columns.load(row, sqlite.dialect())
print(transaction.id, transaction.status, transaction.provider_reference)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["t1", "PENDING", "REF"]
