"""How timestamps look on the wire: ISO 8601, UTC, millisecond precision, `Z` suffix."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import PlainSerializer, WithJsonSchema


def format_timestamp(value: datetime) -> str:
    """ISO 8601, UTC, millisecond precision: 2026-03-29T10:05:00.000Z."""
    value = value.astimezone(UTC)
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"


Timestamp = Annotated[
    datetime,
    PlainSerializer(format_timestamp, return_type=str),
    WithJsonSchema(
        {"type": "string", "format": "date-time", "examples": ["2026-03-29T10:05:00.000Z"]}
    ),
]
