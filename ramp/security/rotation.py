"""Key rotation: every encrypted column re-encrypted under a new key (`ramp keys rotate`).

Encrypted columns are the ones named `*_encrypted` (SecretBox strings and EncryptedJSON
alike: both are Fernet tokens). Each token is decrypted with whichever key made it and
encrypted again under the new first key, in one transaction: a failure leaves
everything as it was. Keyed hashes (customer_identity.subject_hash) cannot be recomputed,
since their values are never stored: keep the old keys after the new one for as long as
identities linked before the rotation must still be found.
"""

from __future__ import annotations

from sqlalchemy import Column, MetaData, Table, Text, column, select, table, update
from sqlalchemy.engine import Connection

from ramp.security.encryption import SecretBox

SUFFIX = "_encrypted"


def encrypted_columns(metadata: MetaData) -> list[tuple[Table, list[Column[str]]]]:
    found = []
    for mapped in metadata.sorted_tables:
        columns = [c for c in mapped.columns if c.name.endswith(SUFFIX)]
        if columns:
            found.append((mapped, columns))
    return found


def rotate_all(connection: Connection, metadata: MetaData, box: SecretBox) -> dict[str, int]:
    """Re-encrypts every non-null encrypted value under `box`'s first key; returns how
    many values each `table.column` held. The caller's transaction commits."""
    counts: dict[str, int] = {}
    for mapped, columns in encrypted_columns(metadata):
        # Plain text columns: the ciphertext as stored, not the mapped types' plaintext.
        key_names = [c.name for c in mapped.primary_key.columns]
        names = [c.name for c in columns]
        raw = table(mapped.name, *(column(name, Text) for name in (*key_names, *names)))
        rows = connection.execute(select(*(raw.c[name] for name in (*key_names, *names)))).all()
        for name in names:
            counts[f"{mapped.name}.{name}"] = 0
        for row in rows:
            values = {}
            for name in names:
                token = row._mapping[name]
                if token is not None:
                    values[name] = box.rotate(token)
                    counts[f"{mapped.name}.{name}"] += 1
            if values:
                match = [raw.c[key] == row._mapping[key] for key in key_names]
                connection.execute(update(raw).where(*match).values(**values))
    return counts
