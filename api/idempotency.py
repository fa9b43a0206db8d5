"""`Idempotency-Key` on the creating POSTs: a retry gets the stored response.

`idempotent(handler, auth)` wraps a route's handler: with a key, the caller is
authenticated first (the key's scope is the project, or the customer for Bearer
routes), the key is claimed or its stored response replayed (ramp/idempotency/store.py),
and a 2xx response is stored for 24 hours. Replays carry `Idempotent-Replayed: true`
and the reference's `X-Idempotency-Replayed: true`. `POST /intent` keeps its own
mechanism (its workflow is the store; ramp/intents/service.py) and answers alike.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from starlette.requests import Request
from starlette.responses import Response

from api.auth import authenticate_customer, authenticate_project
from api.services import services
from ramp.idempotency import store

logger = logging.getLogger("ramp.api")
Handler = Callable[[Request], Awaitable[Response]]
HEADER = "idempotency-key"
REPLAYED_HEADERS = {"Idempotent-Replayed": "true", "X-Idempotency-Replayed": "true"}
# Headers of a response that belong to its exchange, not to the stored answer.
_NOT_STORED = {"content-length", "date", "server", "retry-after", "set-cookie"}


def idempotent(handler: Handler, auth: Literal["basic", "bearer"]) -> Handler:
    async def endpoint(request: Request) -> Response:
        key = request.headers.get(HEADER)
        if key is None:
            return await handler(request)
        store.check_key(key)
        if auth == "basic":
            scope = store.project_scope((await authenticate_project(request)).id)
        else:
            scope = store.customer_scope((await authenticate_customer(request)).id)
        db = services(request).db
        fingerprint = store.request_fingerprint(
            request.method, request.url.path, await request.body()
        )
        outcome = await store.claim_or_replay(db, scope, key, fingerprint)
        if isinstance(outcome, store.StoredResponse):
            return _replay(outcome)
        try:
            response = await handler(request)
        except BaseException:
            with contextlib.suppress(Exception):  # the handler's error is the answer
                await store.release(db, outcome)
            raise
        try:
            if 200 <= response.status_code < 300:
                await store.complete(db, outcome, _stored(response))
            else:
                await store.release(db, outcome)
        except Exception:
            # What was done is done and the caller hears of it; without the stored
            # response a retry after the lease runs again (logged for operators).
            logger.exception("idempotency key %r: the response could not be stored", key)
        return response

    endpoint.__name__ = getattr(handler, "__name__", "endpoint")
    endpoint.__doc__ = handler.__doc__
    return endpoint


def _stored(response: Response) -> store.StoredResponse:
    headers = {
        name: value
        for name, value in response.headers.items()
        if name.lower() not in _NOT_STORED and not name.lower().startswith("ratelimit")
    }
    return store.StoredResponse(response.status_code, headers, bytes(response.body))


def _replay(stored: store.StoredResponse) -> Response:
    headers: dict[str, Any] = {**stored.headers, **REPLAYED_HEADERS}
    return Response(stored.body, status_code=stored.status, headers=headers)
