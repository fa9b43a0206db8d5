"""The `ramp` command line: run the sandbox, the API, the worker; administer projects."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.db.engine import create_engine
from ramp.security.encryption import MissingKey
from ramp.settings_loader import load_settings

if TYPE_CHECKING:
    from ramp.db.tables import Project, WebhookEndpoint

T = TypeVar("T")

DATA_DIR_OPTION = click.option(
    "--data-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where sandbox data lives (default: $RAMP_DATA_DIR or ./.ramp).",
)


@click.group()
def cli() -> None:
    """Payment ramp orchestration service."""


# --- running ----------------------------------------------------------------------


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="API bind address.")
@click.option("--port", default=8000, show_default=True, help="API port.")
@click.option("--temporal-port", default=7233, show_default=True, help="Temporal gRPC port.")
@click.option("--ui-port", default=8233, show_default=True, help="Temporal Web UI port.")
@click.option(
    "--temporal-address",
    default=None,
    help="Use this Temporal server (HOST:PORT) instead of starting one.",
)
@click.option(
    "--database-url",
    default=None,
    help="Keep the service's data in this database (sqlite:///... or postgresql://...) "
    "instead of SQLite in the data dir.",
)
@DATA_DIR_OPTION
def dev(
    host: str,
    port: int,
    temporal_port: int,
    ui_port: int,
    temporal_address: str | None,
    database_url: str | None,
    data_dir: Path | None,
) -> int:
    """Run the whole sandbox: Temporal dev server, worker and API, as one group."""
    from devstack.stack import DevStack

    data_dir = (data_dir or Path(os.environ.get("RAMP_DATA_DIR", ".ramp"))).absolute()
    stack = DevStack(
        host=host,
        port=port,
        temporal_port=temporal_port,
        ui_port=ui_port,
        temporal_address=temporal_address,
        data_dir=data_dir,
        database_url=database_url,
    )
    return stack.run()


@cli.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True)
@DATA_DIR_OPTION
def api(host: str, port: int, data_dir: Path | None) -> int:
    """Serve the HTTP API (configured by environment)."""
    import uvicorn

    from api.app import create_app
    from api.protocol import ENVELOPE_PROTOCOL

    app = create_app(load_settings(data_dir))
    uvicorn.run(
        app, host=host, port=port, log_level="info", proxy_headers=True, http=ENVELOPE_PROTOCOL
    )
    return 0


@cli.command()
@DATA_DIR_OPTION
def worker(data_dir: Path | None) -> int:
    """Run a Temporal worker (configured by environment)."""
    import logging

    import worker as worker_module

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(worker_module.run(load_settings(data_dir)))
    return 0


# --- database ---------------------------------------------------------------------


@cli.group()
def db() -> None:
    """Database schema."""


@db.command("upgrade")
@DATA_DIR_OPTION
def db_upgrade(data_dir: Path | None) -> int:
    """Apply every schema migration (SQLite in the data dir, or DATABASE_URL)."""
    from ramp.db.migrate import upgrade

    upgrade(load_settings(data_dir))
    click.echo("database schema is up to date", err=True)
    return 0


# --- keys -------------------------------------------------------------------------


@cli.group()
def keys() -> None:
    """Key material."""


@keys.command("generate")
def keys_generate() -> int:
    """Print a fresh RAMP_SIGNING_KEY and RAMP_ENCRYPTION_KEYS, as .env lines."""
    from ramp.security.keys import generated_keys

    for name, value in generated_keys().items():
        # One line per variable: newlines escaped, which Settings accepts back.
        click.echo(f'{name}="{value.strip().replace(chr(10), chr(92) + "n")}"')
    return 0


# --- projects ---------------------------------------------------------------------


@cli.group()
def project() -> None:
    """Projects and their credentials."""


@project.command("create")
@click.option("--name", required=True, help="Project name.")
@DATA_DIR_OPTION
def project_create(name: str, data_dir: Path | None) -> int:
    """Create a project; print its ids and client credentials as JSON (secret shown once)."""
    from ramp import projects
    from ramp.db.migrate import upgrade
    from ramp.security.encryption import SecretBox

    settings = load_settings(data_dir)
    upgrade(settings)

    async def create() -> projects.NewProject:
        async with _session(settings) as session:
            return await projects.create_project(
                session,
                name=name,
                environment=settings.ramp_env,
                secret_box=SecretBox.from_settings(settings),
            )

    click.echo(json.dumps(asyncio.run(create()).as_json()))
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
        async with _session(settings) as session:
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
        async with _session(settings) as session:
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
    from ramp.onboarding.origins import InvalidOrigin, normalize_origins
    from ramp.onboarding.projects import load_project, set_onboarding_origins

    settings = load_settings(data_dir)

    async def change() -> list[str]:
        async with _session(settings) as session:
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


@asynccontextmanager
async def _session(settings: Settings) -> AsyncIterator[AsyncSession]:
    """A session on a short-lived engine, for one CLI command."""
    engine = create_engine(settings)
    try:
        async with AsyncSession(engine, expire_on_commit=False) as session:
            yield session
    finally:
        await engine.dispose()


# --- webhooks ---------------------------------------------------------------------

PROJECT_OPTION = click.option("--project", "--project-id", "project_id", required=True)
EVENT_TYPES = ("INTENT_STATUS_CHANGED", "COMPLIANCE_UPDATED", "MONEY_MOVEMENT_UPDATED")


@cli.group()
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
    from ramp.webhooks import endpoints
    from ramp.webhooks.events import WebhookEventType

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
        async with _session(settings) as session:
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


def main() -> None:
    try:
        result = cli.main(standalone_mode=False)
        code = result if isinstance(result, int) else 0
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        code = 130
    except click.exceptions.Exit as exit_:
        code = exit_.exit_code
    except click.ClickException as error:
        error.show()
        code = error.exit_code
    except MissingKey as error:
        click.echo(f"Error: {error}", err=True)
        code = 2
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter finalisation: the Temporal SDK's native threads can abort it
    # (exit 134, sdk-python issue 300), which would turn a success into a failure.
    os._exit(code)
