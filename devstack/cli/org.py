"""`ramp org`: create an organization and its owner's one-time setup link."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

from devstack.cli.common import DATA_DIR_OPTION, command_session
from ramp.settings_loader import load_settings


@click.group()
def org() -> None:
    """Organizations: who logs in to the dashboard."""


@org.command("create")
@click.option("--name", required=True, help="Organization name.")
@click.option("--owner-email", required=True, help="The owner's email address (their login).")
@DATA_DIR_OPTION
def org_create(name: str, owner_email: str, data_dir: Path | None) -> int:
    """Create an organization; print its id and the owner's setup link (24 h, one use).

    In the sandbox, the first organization also gets the demo project (and what the
    README's walk made with it): printed as "demoProjectId"."""
    from devstack.stack import DEMO_PROJECT_FILE
    from ramp.config import Environment
    from ramp.db.migrate import upgrade
    from ramp.errors import DomainError
    from ramp.organizations import members

    settings = load_settings(data_dir)
    upgrade(settings)
    marker = settings.data_dir / DEMO_PROJECT_FILE
    demo_project_id = (
        json.loads(marker.read_text())["projectId"]
        if settings.ramp_env is Environment.SANDBOX and marker.exists()
        else None
    )

    async def create() -> tuple[members.IssuedLink, bool]:
        async with command_session(settings) as session:
            link = await members.create_organization(session, name=name, owner_email=owner_email)
            adopted = demo_project_id is not None and await members.adopt_unclaimed_project(
                session, organization_id=link.organization_id, project_id=demo_project_id
            )
            return link, adopted

    try:
        link, adopted = asyncio.run(create())
    except DomainError as error:
        raise click.ClickException(error.message) from error
    created: dict[str, str | None] = {
        "organizationId": link.organization_id,
        "ownerEmail": link.email,
        "setupUrl": link.url(settings.public_url),
    }
    if adopted:
        created["demoProjectId"] = demo_project_id
    click.echo(json.dumps(created))
    return 0
