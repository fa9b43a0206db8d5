"""Projects and customers made the way the service makes them, and their credentials."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

import httpx
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp import projects
from ramp.config import Environment, Settings
from ramp.security.encryption import SecretBox


@dataclass(frozen=True)
class ProjectCredentials:
    organization_id: str
    project_id: str
    client_id: str
    client_secret: str

    @property
    def basic(self) -> dict[str, str]:
        raw = f"{self.client_id}:{self.client_secret}".encode()
        return {"Authorization": "Basic " + base64.b64encode(raw).decode()}


async def make_project(
    db: AsyncSession, settings: Settings, name: str = "Test project"
) -> ProjectCredentials:
    created = await projects.create_project(
        db, name=name, environment=Environment.SANDBOX, secret_box=SecretBox.from_settings(settings)
    )
    return ProjectCredentials(
        created.organizationId, created.projectId, created.clientId, created.clientSecret
    )


async def make_customer(
    client: httpx.AsyncClient, project: ProjectCredentials, external_id: str = "user-1"
) -> dict[str, Any]:
    response = await client.post("/v1/customers", json={"id": external_id}, headers=project.basic)
    assert response.status_code in (200, 201), response.text
    body: dict[str, Any] = response.json()
    return body


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}
