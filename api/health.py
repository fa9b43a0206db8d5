"""GET /healthz and GET /readyz.

`/healthz`: does this process reach its database and Temporal? (liveness: a 503 here
names what it cannot reach.) `/readyz`: should a load balancer send it traffic? Only
when the database and Temporal answer and some worker polls the service's task queue;
the body names what is missing (ramp/observability/readiness.py).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from api.services import services
from ramp.observability.readiness import (
    READY,
    checked,
    database_answers,
    temporal_answers,
    worker_polls,
)


async def healthz(request: Request) -> Response:
    app = services(request)
    checks = await checked(
        {
            "database": lambda: database_answers(app.engine),
            "temporal": lambda: temporal_answers(app.temporal),
        }
    )
    return _answer(checks)


async def readyz(request: Request) -> Response:
    app = services(request)
    checks = await checked(
        {
            "database": lambda: database_answers(app.engine),
            "temporal": lambda: temporal_answers(app.temporal),
            "worker": lambda: worker_polls(app.temporal, app.settings.task_queue),
        }
    )
    if checks["temporal"] != READY:
        # No word from Temporal is no word about its workers either.
        checks["worker"] = "unknown: temporal unavailable"
    return _answer(checks)


def _answer(checks: dict[str, str]) -> Response:
    healthy = all(value == READY for value in checks.values())
    return JSONResponse(
        {"status": "ok" if healthy else "unavailable", "checks": checks},
        status_code=200 if healthy else 503,
        headers={"Cache-Control": "no-store"},
    )
