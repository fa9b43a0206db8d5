"""`ramp project`: projects, their client secrets, trusted issuers and embedding origins."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click

from devstack.cli.common import DATA_DIR_OPTION, command_session
from ramp.settings_loader import load_settings


@click.group()
def project() -> None:
    """Projects and their credentials."""


@project.command("create")
@click.option("--name", required=True, help="Project name.")
@click.option(
    "--organization-id",
    default=None,
    help="The organization that owns it (from `ramp org create`); a new one if omitted.",
)
@DATA_DIR_OPTION
def project_create(name: str, organization_id: str | None, data_dir: Path | None) -> int:
    """Create a project; print its ids and client credentials as JSON (secret shown once)."""
    from ramp import projects
    from ramp.db.migrate import upgrade
    from ramp.security.encryption import SecretBox

    settings = load_settings(data_dir)
    upgrade(settings)

    async def create() -> projects.NewProject:
        from ramp.organizations.members import organization_exists

        async with command_session(settings) as session:
            if organization_id is not None and not await organization_exists(
                session, organization_id
            ):
                raise LookupError(f"no organization {organization_id}")
            return await projects.create_project(
                session,
                name=name,
                environment=settings.ramp_env,
                secret_box=SecretBox.from_settings(settings),
                organization_id=organization_id,
            )

    try:
        created = asyncio.run(create())
    except LookupError as error:
        raise click.ClickException(str(error)) from error
    click.echo(json.dumps(created.as_json()))
    return 0


@project.command("rotate-secret")
@click.option("--project-id", "--project", "project_id", required=True)
@click.option(
    "--grace-hours",
    type=click.FloatRange(min=0),
    default=24.0,
    show_default=True,
    help="How long the current secret keeps working (and signing webhooks) beside the new one.",
)
@click.option(
    "--force",
    is_flag=True,
    help="Rotate even while the previous secret's grace period runs (it stops working).",
)
@DATA_DIR_OPTION
def project_rotate_secret(
    project_id: str, grace_hours: float, force: bool, data_dir: Path | None
) -> int:
    """Issue a new client secret; print it as JSON (shown once)."""
    from datetime import timedelta

    from ramp import projects
    from ramp.security.encryption import SecretBox

    settings = load_settings(data_dir)

    async def rotate() -> projects.RotatedSecret:
        async with command_session(settings) as session:
            return await projects.rotate_client_secret(
                session,
                project_id=project_id,
                secret_box=SecretBox.from_settings(settings),
                grace=timedelta(hours=grace_hours),
                force=force,
            )

    try:
        rotated = asyncio.run(rotate())
    except (LookupError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    click.echo(json.dumps(rotated.as_json()))
    return 0


@project.command("trust-issuer")
@click.option("--project-id", required=True)
@click.option("--issuer", required=True, help="The OIDC issuer (the tokens' `iss`).")
@click.option("--audience", "audiences", multiple=True, required=True, help="Repeatable.")
@click.option("--jwks-url", required=True, help="Where the issuer publishes its keys.")
@DATA_DIR_OPTION
def project_trust_issuer(
    project_id: str, issuer: str, audiences: tuple[str, ...], jwks_url: str, data_dir: Path | None
) -> int:
    """Accept ID tokens of an OIDC issuer as `subject_token` for a project."""
    from ramp import projects

    settings = load_settings(data_dir)

    async def trust() -> None:
        async with command_session(settings) as session:
            await projects.trust_issuer(
                session,
                project_id=project_id,
                issuer=issuer,
                audiences=list(audiences),
                jwks_url=jwks_url,
            )

    try:
        asyncio.run(trust())
    except (LookupError, ValueError) as error:
        raise click.ClickException(str(error)) from error
    click.echo(json.dumps({"projectId": project_id, "issuer": issuer, "audiences": audiences}))
    return 0


@project.command("allow-origin")
@click.option("--project-id", required=True)
@click.option(
    "--origin",
    "origins",
    multiple=True,
    required=True,
    help="scheme://host[:port] that may embed the hosted onboarding page; repeatable.",
)
@DATA_DIR_OPTION
def project_allow_origin(project_id: str, origins: tuple[str, ...], data_dir: Path | None) -> int:
    """Let an origin embed the hosted onboarding page (and receive its messages)."""
    return _change_origins(project_id, data_dir, add=origins)


@project.command("disallow-origin")
@click.option("--project-id", required=True)
@click.option("--origin", "origins", multiple=True, required=True, help="Repeatable.")
@DATA_DIR_OPTION
def project_disallow_origin(
    project_id: str, origins: tuple[str, ...], data_dir: Path | None
) -> int:
    """Stop an origin from embedding the hosted onboarding page."""
    return _change_origins(project_id, data_dir, remove=origins)


def _change_origins(
    project_id: str,
    data_dir: Path | None,
    add: tuple[str, ...] = (),
    remove: tuple[str, ...] = (),
) -> int:
    from ramp.config import Environment
    from ramp.onboarding.projects import load_project, set_onboarding_origins
    from ramp.origins import InvalidOrigin, normalize_origins

    settings = load_settings(data_dir)

    async def change() -> list[str]:
        async with command_session(settings) as session:
            found = await load_project(session, project_id)
            production = found.environment == Environment.PRODUCTION
            dropped = set(normalize_origins(remove, production=production))
            kept = [o for o in found.onboarding_origins if o not in dropped]
            return await set_onboarding_origins(session, found, [*kept, *add])

    try:
        allowed = asyncio.run(change())
    except (LookupError, InvalidOrigin) as error:
        raise click.ClickException(str(error)) from error
    click.echo(json.dumps({"projectId": project_id, "onboardingOrigins": allowed}))
    return 0


@project.command("set-partner-fee")
@click.option("--project-id", required=True)
@click.option(
    "--bps",
    type=int,
    required=True,
    help="The project's fee in basis points of the source amount (100 = 1 %), 0 to 1000.",
)
@DATA_DIR_OPTION
def project_set_partner_fee(project_id: str, bps: int, data_dir: Path | None) -> int:
    """Set the partner fee shown in quotes and recorded on transactions."""
    from ramp.errors import DomainError
    from ramp.quotes.partner_fee import set_partner_fee

    settings = load_settings(data_dir)

    async def change() -> int:
        async with command_session(settings) as session:
            return await set_partner_fee(session, project_id, bps)

    try:
        stored = asyncio.run(change())
    except DomainError as error:
        raise click.ClickException(error.message) from error
    click.echo(json.dumps({"projectId": project_id, "partnerFeeBps": stored}))
    return 0
