"""Property-based conformance of the whole API to its OpenAPI document (schemathesis).

Every operation of `GET /v1/openapi.json` is exercised in-process (ASGI, the app served
through its lifespan, the session's Temporal and worker, the real database) with
generated requests, a fixed seed and real credentials of a project, a customer and an
onboarding link. Each answer must be no 5xx, a documented status, the documented
content type, headers and schema. Generation runs in a thread of its own; requests go
through the test's client on its event loop.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, reject, settings
from schemathesis import Case
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from sqlalchemy.ext.asyncio import async_sessionmaker
from sqlmodel.ext.asyncio.session import AsyncSession

from tests.helpers.dashboard import owner_api_key
from tests.helpers.onboarding import onboarding_token
from tests.helpers.payments import create_intent, register_accounts
from tests.helpers.projects import ProjectCredentials

pytestmark = pytest.mark.usefixtures("worker")

# Per operation; with a fixed seed (derandomize) every run sends the same requests.
MAX_EXAMPLES = 30
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]


async def test_every_operation_answers_as_documented(
    client: httpx.AsyncClient,
    project: ProjectCredentials,
    customer: dict[str, Any],
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    token = customer["access_token"]
    accounts = await register_accounts(client, token)
    opened = await create_intent(client, token, accounts)
    assert opened.status_code == 201, opened.text
    document = (await client.get("/v1/openapi.json")).json()
    credentials = {
        "basicAuth": project.basic["Authorization"],
        "bearerAuth": f"Bearer {token}",
        "onboardingToken": f"Bearer {onboarding_token(opened.json())}",
        # The admin API (issue 15), as an owner of the project's organization.
        "organizationApiKey": f"Bearer {await owner_api_key(sessions, project)}",
    }
    loop = asyncio.get_running_loop()
    failures = await asyncio.to_thread(_explore, document, credentials, client, loop)
    assert failures == [], "\n\n".join(failures)


def _explore(
    document: dict[str, Any],
    credentials: dict[str, str],
    client: httpx.AsyncClient,
    loop: asyncio.AbstractEventLoop,
) -> list[str]:
    schema = schemathesis.openapi.from_dict(document)
    failures: list[str] = []
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    assert len(operations) == sum(len(methods) for methods in document["paths"].values())
    for operation in operations:
        raw = document["paths"][operation.path][operation.method.lower()]
        schemes = [name for requirement in raw.get("security", []) for name in requirement]
        authorization = credentials[schemes[0]] if schemes else None

        try:
            _conforms(operation, authorization, client, loop)
        except (KeyboardInterrupt, SystemExit):
            raise
        except BaseException as failure:  # its first failure (a group), for the report
            failures.append(f"{operation.label}: {_summary(failure)}")
    return failures


def _conforms(
    operation: Any,
    authorization: str | None,
    client: httpx.AsyncClient,
    loop: asyncio.AbstractEventLoop,
) -> None:
    """Runs the operation's generated requests; raises its first failure."""

    @settings(
        max_examples=MAX_EXAMPLES,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: report the first
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy())
    def conforms(case: Case[Any]) -> None:
        response = _send(case, authorization, client, loop)
        case.validate_response(response, checks=CHECKS)

    conforms()


def _send(
    case: Case[Any],
    authorization: str | None,
    client: httpx.AsyncClient,
    loop: asyncio.AbstractEventLoop,
) -> httpx.Response:
    kwargs = case.as_transport_kwargs(base_url="http://testserver/v1")
    headers = {k: v for k, v in (kwargs.get("headers") or {}).items() if k != "Authorization"}
    if authorization is not None:
        headers["Authorization"] = authorization
    url = urlsplit(kwargs["url"])
    body: dict[str, Any] = {}
    if "json" in kwargs:
        body["json"] = kwargs["json"]
    elif kwargs.get("data") is not None:
        body["content"] = kwargs["data"]
    request = client.request(
        kwargs["method"],
        url.path + (f"?{url.query}" if url.query else ""),
        params=kwargs.get("params") or None,
        headers=headers,
        **body,
    )
    try:
        return asyncio.run_coroutine_threadsafe(request, loop).result(timeout=60)
    except (httpx.LocalProtocolError, UnicodeEncodeError):
        reject()  # not sendable over HTTP at all (a header no client could send)
        raise


def _summary(failure: BaseException) -> str:
    """The failure's own lines, without the traceback."""
    lines = [line for line in str(failure).splitlines() if line.strip()]
    return "\n    ".join(lines[:12])
