"""`ramp org`: create an organization and its owner's one-time setup link."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

from devstack.cli.common import command_session, command_settings, data_options


@click.group()
def org() -> None:
    """Organizations: who logs in to the dashboard."""


@org.command("create")
@click.option("--name", required=True, help="Organization name.")
@click.option("--owner-email", required=True, help="The owner's email address (their login).")
@data_options
def org_create(name: str, owner_email: str, data_dir: Path | None) -> int:
    """Create an organization; print its id and the owner's setup link (24 h, one use)."""
    from ramp.db.migrate import upgrade
    from ramp.errors import DomainError
    from ramp.organizations import members

    settings = command_settings(data_dir)
    upgrade(settings)

    async def create() -> members.IssuedLink:
        async with command_session(settings) as session:
            return await members.create_organization(session, name=name, owner_email=owner_email)

    try:
        link = asyncio.run(create())
    except DomainError as error:
        raise click.ClickException(error.message) from error
    click.echo(
        json.dumps(
            {
                "organizationId": link.organization_id,
                "ownerEmail": link.email,
                "setupUrl": link.url(settings.public_url),
            }
        )
    )
    return 0
