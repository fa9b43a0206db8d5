"""`ramp webhook`: a project's webhook endpoints, and a local receiver."""

from __future__ import annotations

import asyncio
import json
import signal
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click
from sqlmodel.ext.asyncio.session import AsyncSession

from devstack.cli.common import DATA_DIR_OPTION, command_session
from ramp.settings_loader import load_settings

if TYPE_CHECKING:
    from ramp.db.tables import Project, WebhookEndpoint

T = TypeVar("T")

PROJECT_OPTION = click.option("--project", "--project-id", "project_id", required=True)
EVENT_TYPES = ("INTENT_STATUS_CHANGED", "COMPLIANCE_UPDATED", "MONEY_MOVEMENT_UPDATED")


@click.group()
def webhook() -> None:
    """A project's webhook endpoints, and a local receiver."""


@webhook.command("add")
@PROJECT_OPTION
@click.option("--url", required=True, help="Where the events are POSTed.")
@click.option(
    "--event",
    "events",
    multiple=True,
    type=click.Choice(EVENT_TYPES),
    help="Repeatable; default: every event type.",
)
@click.option("--description", default=None)
@DATA_DIR_OPTION
def webhook_add(
    project_id: str,
    url: str,
    events: tuple[str, ...],
    description: str | None,
    data_dir: Path | None,
) -> int:
    """Add a webhook endpoint to a project; print it as JSON."""
    from ramp.intents.events import WebhookEventType
    from ramp.webhooks import endpoints

    async def add(session: AsyncSession) -> dict[str, object]:
        project = await _project(session, project_id)
        endpoint = await endpoints.add_endpoint(
            session,
            project,
            url=url,
            event_types=[WebhookEventType(e) for e in events or EVENT_TYPES],
            description=description,
        )
        return _endpoint_json(endpoint)

    click.echo(json.dumps(_run(data_dir, add)))
    return 0


@webhook.command("list")
@PROJECT_OPTION
@DATA_DIR_OPTION
def webhook_list(project_id: str, data_dir: Path | None) -> int:
    """List a project's webhook endpoints as JSON."""
    from ramp.webhooks import endpoints

    async def listed(session: AsyncSession) -> list[dict[str, object]]:
        await _project(session, project_id)
        return [_endpoint_json(e) for e in await endpoints.project_endpoints(session, project_id)]

    click.echo(json.dumps(_run(data_dir, listed)))
    return 0


def _switch(enabled: bool) -> click.Command:
    @PROJECT_OPTION
    @click.option("--id", "endpoint_id", required=True, help="The endpoint's id.")
    @DATA_DIR_OPTION
    def command(project_id: str, endpoint_id: str, data_dir: Path | None) -> int:
        from ramp.webhooks import endpoints

        async def switch(session: AsyncSession) -> dict[str, object]:
            project = await _project(session, project_id)
            endpoint = await endpoints.project_endpoint(session, project_id, endpoint_id)
            if endpoint is None:
                raise click.ClickException(f"no webhook endpoint {endpoint_id} in this project")
            changed = await endpoints.change_endpoint(session, project, endpoint, enabled=enabled)
            return _endpoint_json(changed)

        click.echo(json.dumps(_run(data_dir, switch)))
        return 0

    command.__doc__ = "Enable a webhook endpoint." if enabled else "Disable a webhook endpoint."
    return click.command("enable" if enabled else "disable")(command)


webhook.add_command(_switch(True))
webhook.add_command(_switch(False))


@webhook.command("remove")
@PROJECT_OPTION
@click.option("--id", "endpoint_id", required=True, help="The endpoint's id.")
@DATA_DIR_OPTION
def webhook_remove(project_id: str, endpoint_id: str, data_dir: Path | None) -> int:
    """Remove a webhook endpoint (its delivery log stays)."""
    from ramp.webhooks import endpoints

    async def remove(session: AsyncSession) -> dict[str, object]:
        await _project(session, project_id)
        endpoint = await endpoints.project_endpoint(session, project_id, endpoint_id)
        if endpoint is None:
            raise click.ClickException(f"no webhook endpoint {endpoint_id} in this project")
        await endpoints.remove_endpoint(session, endpoint)
        return {"removed": endpoint_id}

    click.echo(json.dumps(_run(data_dir, remove)))
    return 0


@webhook.command("listen")
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8787, show_default=True)
@click.option(
    "--secret",
    envvar="RAMP_CLIENT_SECRET",
    default=None,
    help="The project's client secret (or $RAMP_CLIENT_SECRET).",
)
@click.option(
    "--project",
    "--project-id",
    "project_id",
    default=None,
    help="Read the secret of this project from the service's database instead (sandbox data dir).",
)
@DATA_DIR_OPTION
def webhook_listen(
    host: str, port: int, secret: str | None, project_id: str | None, data_dir: Path | None
) -> int:
    """Receive webhooks locally and print each verified event (Ctrl-C stops)."""
    from devstack.webhook_listener import Listener

    if secret is None and project_id is None:
        raise click.UsageError("give --secret (or $RAMP_CLIENT_SECRET) or --project")
    if secret is None:
        from ramp.db.types import utcnow
        from ramp.projects import signing_secrets
        from ramp.security.encryption import SecretBox

        async def read(session: AsyncSession) -> str:
            project = await _project(session, str(project_id))
            box = SecretBox.from_settings(load_settings(data_dir))
            return signing_secrets(project, box, utcnow())[0]

        secret = _run(data_dir, read)
    listener = Listener(host, port, secret)
    # SIGTERM stops it like Ctrl-C does (a background job ignores SIGINT).
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    click.echo(f"listening on {listener.url} for verified webhooks (Ctrl-C stops)")
    try:
        listener.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        listener.server_close()
    return 0


async def _project(session: AsyncSession, project_id: str) -> Project:
    from ramp.db.tables import Project

    found = await session.get(Project, project_id)
    if found is None:
        raise click.ClickException(f"no project {project_id}")
    return found


def _run(data_dir: Path | None, work: Callable[[AsyncSession], Awaitable[T]]) -> T:
    """Runs `work` in a session on the configured database (migrated first)."""
    from ramp.db.migrate import upgrade

    settings = load_settings(data_dir)
    upgrade(settings)

    async def run() -> T:
        async with command_session(settings) as session:
            return await work(session)

    try:
        return asyncio.run(run())
    except ValueError as error:  # a refused setting (EndpointRefused is one)
        raise click.ClickException(str(error)) from error


def _endpoint_json(endpoint: WebhookEndpoint) -> dict[str, object]:
    return {
        "id": endpoint.id,
        "projectId": endpoint.project_id,
        "url": endpoint.url,
        "eventTypes": endpoint.event_types,
        "enabled": endpoint.enabled,
        "disabledReason": endpoint.disabled_reason,
        "description": endpoint.description,
    }
