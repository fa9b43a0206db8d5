"""A provider's credential form, generated from its credentials' JSON Schema: one labelled
field per property (a select for an enum, a password field for a `writeOnly` secret),
and the submitted form read back into the credentials object the schema describes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from starlette.datastructures import FormData

PREFIX = "cred_"


@dataclass(frozen=True)
class FormField:
    name: str  # the form field's name
    label: str
    kind: str  # "text", "password" or "select"
    required: bool
    options: tuple[str, ...]
    help: str


def form_fields(schema: Mapping[str, Any]) -> list[FormField]:
    required = set(schema.get("required", ()))
    fields = []
    for name, spec in dict(schema.get("properties", {})).items():
        options = tuple(str(v) for v in spec.get("enum", ()))
        kind = "select" if options else "password" if spec.get("writeOnly") else "text"
        fields.append(
            FormField(
                name=PREFIX + name,
                label=str(spec.get("title") or _words(name)),
                kind=kind,
                required=name in required,
                options=options,
                help=str(spec.get("description", "")),
            )
        )
    return fields


def credentials_from(form: FormData, schema: Mapping[str, Any]) -> dict[str, Any]:
    """The non-empty fields of the form, by their schema names (the schema validates)."""
    found: dict[str, Any] = {}
    for name in dict(schema.get("properties", {})):
        value = form.get(PREFIX + name)
        if isinstance(value, str) and value.strip():
            found[name] = value.strip()
    return found


def _words(name: str) -> str:
    """`apiKey` -> `API key`, `baseUrl` -> `Base URL`."""
    words: list[str] = []
    current = ""
    for char in name:
        if char.isupper() and current:
            words.append(current)
            current = char.lower()
        else:
            current += char
    words.append(current)
    text = " ".join({"api": "API", "url": "URL", "id": "ID"}.get(w, w) for w in words)
    return text[0].upper() + text[1:]
