"""What the sync and async clients share: building a request from an endpoint's row,
reading its answer into models or an error, the next page of a list, and when to retry."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any
from urllib.parse import quote

import httpx
from pydantic import BaseModel, TypeAdapter

from ramp_client._endpoints import Endpoint
from ramp_client.errors import error_from_response

USER_AGENT = "ramp-client-python/0.1.0"
# Answers worth the same request again: the service, or its provider, was unavailable.
RETRIED_STATUSES = frozenset({429, 502, 503, 504})


@dataclass(frozen=True)
class Credentials:
    """Who calls: a project (Basic) and, for customer calls, the customer's access token."""

    client_id: str | None = None
    client_secret: str | None = None
    access_token: str | None = None

    def header(self, endpoint: Endpoint) -> dict[str, str]:
        if endpoint.auth == "basic":
            if self.client_id is None or self.client_secret is None:
                raise ValueError(f"{endpoint.operation_id} needs the project's client credentials")
            pair = f"{self.client_id}:{self.client_secret}".encode()
            return {"Authorization": "Basic " + base64.b64encode(pair).decode()}
        if endpoint.auth == "bearer":
            if self.access_token is None:
                raise ValueError(
                    f"{endpoint.operation_id} is a customer's call: use .as_customer(token)"
                )
            return {"Authorization": f"Bearer {self.access_token}"}
        return {}


@dataclass(frozen=True)
class Prepared:
    endpoint: Endpoint
    method: str
    url: str
    params: dict[str, str] = field(default_factory=dict)
    headers: dict[str, str] = field(default_factory=dict)
    json: Any = None

    @property
    def retriable(self) -> bool:
        """A read, or a creating call with its key: sending it again changes nothing."""
        return self.method == "GET" or "Idempotency-Key" in self.headers


def prepare(
    endpoint: Endpoint,
    credentials: Credentials,
    *,
    path: Mapping[str, str] | None = None,
    query: Mapping[str, Any] | None = None,
    body: BaseModel | None = None,
    idempotency_key: str | None = None,
) -> Prepared:
    if body is not None and not isinstance(body, endpoint.request):
        names = " or ".join(model.__name__ for model in endpoint.request)
        raise TypeError(f"{endpoint.operation_id} takes {names}, not {type(body).__name__}")
    url = "/v1" + endpoint.path.format_map(
        {name: quote(str(value), safe="") for name, value in (path or {}).items()}
    )
    headers = {"User-Agent": USER_AGENT, **credentials.header(endpoint)}
    if endpoint.creates:
        headers["Idempotency-Key"] = idempotency_key or str(uuid.uuid4())
    return Prepared(
        endpoint,
        endpoint.method,
        url,
        params={
            name: _query_value(value) for name, value in (query or {}).items() if value is not None
        },
        headers=headers,
        json=None
        if body is None
        else body.model_dump(mode="json", by_alias=True, exclude_unset=True),
    )


def _query_value(value: Any) -> str:
    if isinstance(value, list | tuple):  # several values of one filter (`type=A,B`)
        return ",".join(_query_value(item) for item in value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def decode(endpoint: Endpoint, response: httpx.Response) -> Any:
    """The answer as the endpoint's model (a list of them for a list), its text, or None;
    an error answer raises its RampError."""
    if response.status_code >= 400:
        raise error_from_response(response)
    if endpoint.text:
        return response.text
    if endpoint.response is None or response.status_code == 204:
        return None
    if endpoint.listed:
        return TypeAdapter(list[endpoint.response]).validate_json(response.content)  # type: ignore[name-defined]
    return endpoint.response.model_validate_json(response.content)


def next_page(response: httpx.Response) -> str | None:
    """The URL of the next page (`Link: <...>; rel="next"`), None on the last page."""
    link = response.links.get("next")
    return link.get("url") if link else None


def retry_delay(attempt: int, response: httpx.Response | None) -> float:
    """Seconds before attempt `attempt + 1`: the service's Retry-After when it gives one
    (at most 30), else 0.5, 1, 2... seconds."""
    if response is not None:
        value = response.headers.get("retry-after", "")
        if value.isdigit():
            return min(float(value), 30.0)
    return min(0.5 * 2.0**attempt, 8.0)
