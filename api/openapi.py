"""The OpenAPI 3.1 description of the API, generated from the request/response models.

`OPERATIONS` documents each route of `api.routes`; a test keeps the two in step.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from api import schemas
from ramp.catalog import Rail

Auth = Literal["basic", "bearer"] | None


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    operation_id: str
    summary: str
    auth: Auth
    status: int
    response: type[BaseModel] | Literal["text", "list"] | None
    request: type[BaseModel] | None = None
    item: type[BaseModel] | None = None  # for "list" responses
    parameters: tuple[dict[str, Any], ...] = ()
    errors: tuple[int, ...] = ()
    # Other success statuses with the same body (create-or-retrieve answers 200 too).
    also: tuple[int, ...] = ()


def _query(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "in": "query",
        "required": True,
        "description": description,
        "schema": {"$ref": "#/components/schemas/CurrencyCode"},
    }


OPERATIONS: tuple[Operation, ...] = (
    Operation(
        "GET",
        "/walletpay/auth/nonce",
        "issueWalletNonce",
        "A single-use nonce for a Sign-In with Ethereum message (plain text)",
        auth=None,
        status=200,
        response="text",
    ),
    Operation(
        "POST",
        "/walletpay/auth/challenge",
        "verifyWalletChallenge",
        "Verify a signed SIWE message; returns a token for `subject_token`",
        auth=None,
        status=200,
        request=schemas.WalletChallenge,
        response=schemas.WalletToken,
        errors=(400, 401),
    ),
    Operation(
        "POST",
        "/customers",
        "createCustomer",
        "Create or retrieve a customer (201 created, 200 retrieved) with a fresh access token",
        auth="basic",
        status=201,
        request=schemas.CreateCustomer,
        response=schemas.CustomerResource,
        errors=(400, 401, 409),
        also=(200,),
    ),
    Operation(
        "GET",
        "/currencies/supported",
        "listSupportedRoutes",
        "Routes available to the project, with the providers serving each",
        auth="basic",
        status=200,
        response="list",
        item=schemas.RouteResource,
        errors=(401,),
    ),
    Operation(
        "GET",
        "/providers",
        "listProviders",
        "Providers available to the project, with their capabilities",
        auth="basic",
        status=200,
        response="list",
        item=schemas.ProviderResource,
        errors=(401,),
    ),
    Operation(
        "GET",
        "/external-accounts/requirements",
        "getAccountRequirements",
        "JSON Schemas (draft 2020-12) of the source and destination accounts of a route",
        auth="basic",
        status=200,
        response=schemas.RequirementsResource,
        parameters=(
            _query("src", "Source currency code"),
            _query("dest", "Destination currency code"),
        ),
        errors=(400, 401),
    ),
    Operation(
        "POST",
        "/customers/external-accounts",
        "createExternalAccounts",
        "Register the customer's source and destination accounts, together",
        auth="bearer",
        status=201,
        request=schemas.CreateExternalAccounts,
        response=schemas.ExternalAccountPair,
        errors=(400, 401),
    ),
)

_COMMON_ERRORS = (413, 415, 500)


def _response(operation: Operation) -> dict[str, Any]:
    if operation.response == "text":
        return {"description": "OK", "content": {"text/plain": {"schema": {"type": "string"}}}}
    if operation.response == "list":
        assert operation.item is not None
        schema: dict[str, Any] = {
            "type": "array",
            "items": {"$ref": f"#/components/schemas/{operation.item.__name__}"},
        }
    else:
        assert operation.response is not None
        schema = {"$ref": f"#/components/schemas/{operation.response.__name__}"}
    return {"description": "OK", "content": {"application/json": {"schema": schema}}}


def _operation(operation: Operation) -> dict[str, Any]:
    error = {
        "description": "Error",
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorEnvelope"}}},
    }
    responses: dict[str, Any] = {str(operation.status): _response(operation)}
    for status in operation.also:
        responses[str(status)] = _response(operation)
    for status in (*operation.errors, *_COMMON_ERRORS):
        if status == 415 and operation.request is None:
            continue
        responses[str(status)] = error
    body: dict[str, Any] = {
        "operationId": operation.operation_id,
        "summary": operation.summary,
        "security": [{"basicAuth": []}]
        if operation.auth == "basic"
        else [{"bearerAuth": []}]
        if operation.auth == "bearer"
        else [],
        "responses": responses,
    }
    if operation.parameters:
        body["parameters"] = list(operation.parameters)
    if operation.request is not None:
        body["requestBody"] = {
            "required": True,
            "content": {
                "application/json": {
                    "schema": {"$ref": f"#/components/schemas/{operation.request.__name__}"}
                }
            },
        }
    return body


@cache
def openapi_document() -> dict[str, Any]:
    requests = {op.request for op in OPERATIONS if op.request is not None}
    responses = {
        model
        for op in OPERATIONS
        for model in (op.item, op.response)
        if isinstance(model, type) and issubclass(model, BaseModel)
    }
    models = [(model, "validation") for model in requests] + [
        (model, "serialization") for model in (*responses, schemas.ErrorEnvelope)
    ]
    _, definitions = models_json_schema(
        sorted(models, key=lambda pair: pair[0].__name__),  # type: ignore[arg-type]
        ref_template="#/components/schemas/{model}",
    )
    components: dict[str, Any] = dict(definitions.get("$defs", {}))
    components["CurrencyCode"] = schemas.CURRENCY_CODE_SCHEMA
    components["Rail"] = {"type": "string", "enum": [rail.value for rail in Rail]}
    paths: dict[str, Any] = {}
    for operation in OPERATIONS:
        paths.setdefault(operation.path, {})[operation.method.lower()] = _operation(operation)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Payment ramp orchestration service",
            "version": "1.0.0",
            "description": "See docs/decisions.md for every convention this API follows.",
        },
        "servers": [{"url": "/v1"}],
        "paths": paths,
        "components": {
            "schemas": components,
            "securitySchemes": {
                "basicAuth": {
                    "type": "http",
                    "scheme": "basic",
                    "description": "Project client id and secret",
                },
                "bearerAuth": {
                    "type": "http",
                    "scheme": "bearer",
                    "bearerFormat": "JWT",
                    "description": "Customer access token from POST /customers",
                },
            },
        },
    }


async def openapi_json(_request: Request) -> Response:
    return JSONResponse(openapi_document())
