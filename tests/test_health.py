"""GET /healthz: 200 when the database and Temporal answer, 503 with what failed."""

from __future__ import annotations

from pathlib import Path

import httpx

from api.app import create_app
from ramp.config import Settings
from tests.helpers.projects import ProjectCredentials
from tests.helpers.servers import derive_settings, serve


async def test_healthy_when_database_and_temporal_answer(client: httpx.AsyncClient) -> None:
    response = await client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "checks": {"database": "ok", "temporal": "ok"}}


async def test_unhealthy_names_what_failed(migrated: Settings, tmp_path: Path) -> None:
    # A port nothing listens on, and a database file in a folder that does not exist.
    broken = derive_settings(
        migrated,
        TEMPORAL_ADDRESS="127.0.0.1:1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'missing' / 'x.db'}",
        RAMP_DATA_DIR=str(tmp_path),
    )
    async with serve(create_app(broken)) as client:
        response = await client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["database"].startswith("unavailable: ")
    assert body["checks"]["temporal"].startswith("unavailable: ")
    # The detail (paths, hosts) stays in the operators' log.
    assert str(tmp_path) not in response.text
    assert "127.0.0.1" not in response.text


async def test_a_database_out_of_reach_answers_503_with_retry_after(
    migrated: Settings, project: ProjectCredentials, tmp_path: Path
) -> None:
    """A database that refuses connections (stopped, restarting): what needs it answers
    503 TEMPORARILY_UNAVAILABLE with Retry-After, never a 500 (tests/test_scale_out.py
    stops a real one mid-burst)."""
    for database_url in (
        "postgresql://ramp@127.0.0.1:1/ramp",  # nothing listens on port 1
        f"sqlite:///{tmp_path / 'missing' / 'x.db'}",
    ):
        gone = derive_settings(migrated, DATABASE_URL=database_url, RAMP_DATA_DIR=str(tmp_path))
        async with serve(create_app(gone)) as client:
            response = await client.get("/v1/providers", headers=project.basic)
        assert response.status_code == 503, response.text
        assert response.headers["retry-after"] == "1"
        body = response.json()
        assert body["code"] == "TEMPORARILY_UNAVAILABLE"
        assert body["message"] == "the service could not reach its database; retry the request"
        assert "127.0.0.1" not in response.text
        assert str(tmp_path) not in response.text
