"""`ramp provider-account`: connect a production project to a real provider."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import click

from devstack.cli.common import command_session, command_settings, data_options
from ramp.errors import DomainError


@click.group("provider-account")
def provider_account() -> None:
    """Provider accounts of production projects (credentials are never shown back)."""


@provider_account.command("set")
@click.option("--project-id", required=True)
@click.option("--provider", required=True, help="The provider's code, e.g. BRIDGE.")
@click.option(
    "--credentials-file",
    required=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A JSON file with the credentials (see docs/providers.md for each provider's schema).",
)
@click.option(
    "--name",
    default=None,
    help="The account's name, to hold several accounts of one provider: sets the account "
    "of that name (created if new). Without it: the account named 'default'.",
)
@click.option(
    "--priority",
    type=int,
    default=None,
    help="Routing priority among the provider's accounts, lower first (a new account: 100; "
    "an existing one keeps its own unless given).",
)
@data_options
def provider_account_set(
    project_id: str,
    provider: str,
    credentials_file: Path,
    name: str | None,
    priority: int | None,
    data_dir: Path | None,
) -> int:
    """Check the credentials with the provider, store them encrypted, register our
    webhook endpoint there; print {"providerAccountId", "name", "priority",
    "webhookUrl", "status"}."""
    from ramp.adapters.registry import Connectors
    from ramp.provider_accounts import service
    from ramp.security.encryption import SecretBox

    try:
        credentials = json.loads(credentials_file.read_text())
    except (OSError, ValueError) as error:
        raise click.ClickException(f"the credentials file is not JSON: {error}") from None
    if not isinstance(credentials, dict):
        raise click.ClickException("the credentials file must hold a JSON object")
    settings = command_settings(data_dir)

    async def put() -> service.ProviderAccountView:
        async with command_session(settings) as session:
            return await service.set_provider_account(
                session,
                project_id=project_id,
                provider_code=provider,
                credentials=credentials,
                secret_box=SecretBox.from_settings(settings),
                public_url=settings.public_url,
                connectors=Connectors.from_settings(settings),
                name=name,
                priority=priority,
            )

    account = _run(put())
    click.echo(
        json.dumps(
            {
                "providerAccountId": account.id,
                "name": account.name,
                "priority": account.priority,
                "webhookUrl": account.webhook_url,
                "status": account.status,
            }
        )
    )
    return 0


@provider_account.command("list")
@click.option("--project-id", required=True)
@data_options
def provider_account_list(project_id: str, data_dir: Path | None) -> int:
    """Print the project's provider accounts as JSON (masked credential hints only)."""
    from ramp.provider_accounts import service

    settings = command_settings(data_dir)

    async def listed() -> list[service.ProviderAccountView]:
        async with command_session(settings) as session:
            return await service.list_provider_accounts(
                session, project_id=project_id, public_url=settings.public_url
            )

    click.echo(json.dumps([account.as_json() for account in _run(listed())]))
    return 0


@provider_account.command("disable")
@click.option("--project-id", required=True)
@click.option("--provider", default=None, help="The provider's code, e.g. BRIDGE.")
@click.option("--name", default=None, help="With --provider: the account's name ('default').")
@click.option("--provider-account-id", default=None)
@data_options
def provider_account_disable(
    project_id: str,
    provider: str | None,
    name: str | None,
    provider_account_id: str | None,
    data_dir: Path | None,
) -> int:
    """Take an account out of routing (intents already placed with it finish there)."""
    from ramp.provider_accounts import service

    if (provider is None) == (provider_account_id is None):
        raise click.UsageError("name the account with --provider or --provider-account-id")
    settings = command_settings(data_dir)

    async def disable() -> service.ProviderAccountView:
        async with command_session(settings) as session:
            return await service.disable_provider_account(
                session,
                project_id=project_id,
                public_url=settings.public_url,
                provider_account_id=provider_account_id,
                provider_code=provider,
                name=name,
            )

    click.echo(json.dumps(_run(disable()).as_json()))
    return 0


def _run(work: Any) -> Any:
    # The refusal below says what happened; the connectors' own log lines (for the
    # worker's log) would print the same on stderr first, without a handler of ours.
    logging.getLogger("ramp").addHandler(logging.NullHandler())
    try:
        return asyncio.run(work)
    except DomainError as refused:
        # The message names the first problem; further ones (fields) follow, one a line.
        fields = refused.details.get("fields") if refused.details else None
        more = (
            "".join(f"\n  {field['pointer']}: {field['reason']}" for field in fields[1:])
            if isinstance(fields, list)
            else ""
        )
        raise click.ClickException(f"{refused.code}: {refused.message}{more}") from None
