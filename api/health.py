"""GET /healthz: does this process reach its database and Temporal?"""

from __future__ import annotations

import asyncio
import logging

from sqlalchemy import text
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from api.services import services

CHECK_TIMEOUT_SECONDS = 3.0
logger = logging.getLogger("ramp.api")


async def healthz(request: Request) -> Response:
    app = services(request)

    async def database() -> None:
        async with app.engine.connect() as connection:
            await connection.execute(text("SELECT 1"))

    async def temporal() -> None:
        await app.temporal.service_client.check_health()

    checks: dict[str, str] = {}
    for name, check in (("database", database), ("temporal", temporal)):
        try:
            await asyncio.wait_for(check(), CHECK_TIMEOUT_SECONDS)
            checks[name] = "ok"
        except Exception as error:
            # The detail (hosts, users) is for operators' logs, not for the public.
            logger.warning("health check %s failed: %r", name, error)
            checks[name] = f"unavailable: {type(error).__name__}"
    healthy = all(value == "ok" for value in checks.values())
    return JSONResponse(
        {"status": "ok" if healthy else "unavailable", "checks": checks},
        status_code=200 if healthy else 503,
        headers={"Cache-Control": "no-store"},
    )
