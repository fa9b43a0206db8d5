"""Table models read as Core rows: a model's columns for a `select`, and the model built
back from its slice of a row, without the ORM's loading (identity map, instance state,
events per entity), which was the largest share of the API's hottest read.

The tables stay the one definition of the schema: the columns come from the model's
mapper. What `load` builds is a read-only copy (pydantic's `model_construct`: no
validation, no ORM state), for rendering; it is never added to a session.

Encrypted columns are selected as their ciphertext and decrypted by `load` only: a join
repeats a row's columns (an intent's accounts on each of its steps), and the result's
own processing would decrypt every copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Generic, TypeVar, cast

from sqlalchemy import ColumnElement, Dialect, FromClause, Text, inspect, type_coerce
from sqlalchemy.orm import configure_mappers
from sqlmodel import SQLModel

from ramp.db.encrypted import EncryptedJSON

Model = TypeVar("Model", bound=SQLModel)


class ModelColumns(Generic[Model]):
    """The columns of a table model (of an alias of its table, when `alias` is given)."""

    def __init__(self, model: type[Model], alias: str | None = None) -> None:
        # A model's attributes read only once its mapper is configured: an ORM query
        # would do it, but a process's first read may be one of these.
        configure_mappers()
        mapper = inspect(model)
        table = mapper.local_table
        self.model = model
        self.table: FromClause = table.alias(alias) if alias else table
        attributes = list(mapper.column_attrs)
        self._keys = tuple(attribute.key for attribute in attributes)
        # Null in an outer join's row that found none.
        self._identity = next(i for i, a in enumerate(attributes) if a.columns[0].primary_key)
        columns: list[ColumnElement[Any]] = []
        self._encrypted: list[tuple[int, EncryptedJSON]] = []
        for index, attribute in enumerate(attributes):
            column = self.table.c[attribute.columns[0].key]
            if isinstance(column.type, EncryptedJSON):
                self._encrypted.append((index, column.type))
                columns.append(type_coerce(column, Text))
            else:
                columns.append(column)
        self.columns = tuple(columns)

    def __len__(self) -> int:
        return len(self.columns)

    def load(self, values: Sequence[Any], dialect: Dialect) -> Model:
        """The model of these values (this model's slice of a row, in `columns` order)."""
        if self._encrypted:
            values = list(values)
            for index, decorator in self._encrypted:
                values[index] = decorator.process_result_value(values[index], dialect)
        built = self.model.model_construct(**dict(zip(self._keys, values, strict=True)))
        return cast(Model, built)  # SQLModel types it as SQLModel, not as the class

    def found(self, values: Sequence[Any]) -> bool:
        """Whether these values are a row, not the nulls of an outer join that found none."""
        return values[self._identity] is not None

    def load_found(self, values: Sequence[Any], dialect: Dialect) -> Model | None:
        """As `load`, or None for the nulls of an outer join that found no row."""
        return self.load(values, dialect) if self.found(values) else None


def slices(*parts: ModelColumns[Any]) -> tuple[slice, ...]:
    """Where each part's values are in a row of `select(*part.columns for each part)`."""
    found, start = [], 0
    for part in parts:
        found.append(slice(start, start + len(part)))
        start += len(part)
    return tuple(found)
