"""The `ramp` command line: run the sandbox, the API, the worker; administer projects."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import click
from sqlmodel.ext.asyncio.session import AsyncSession

from ramp.config import Settings
from ramp.db.engine import create_engine
from ramp.security.encryption import MissingKey
from ramp.settings_loader import load_settings

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
    from ramp.devstack import DevStack

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

    app = create_app(load_settings(data_dir))
    uvicorn.run(app, host=host, port=port, log_level="info", proxy_headers=True)
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


@asynccontextmanager
async def _session(settings: Settings) -> AsyncIterator[AsyncSession]:
    """A session on a short-lived engine, for one CLI command."""
    engine = create_engine(settings)
    try:
        async with AsyncSession(engine, expire_on_commit=False) as session:
            yield session
    finally:
        await engine.dispose()


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
