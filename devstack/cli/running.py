"""`ramp dev`, `ramp api`, `ramp worker`, `ramp dispatcher`: the processes, alone or as
the sandbox."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import click

from devstack.cli.common import DATA_DIR_OPTION
from ramp.settings_loader import load_settings


@click.command()
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
@click.option(
    "--environment",
    type=click.Choice(["sandbox", "production"]),
    default="sandbox",
    show_default=True,
    help="production: real provider connectors only, no sandbox endpoints, no demo project.",
)
@DATA_DIR_OPTION
def dev(
    host: str,
    port: int,
    temporal_port: int,
    ui_port: int,
    temporal_address: str | None,
    database_url: str | None,
    environment: str,
    data_dir: Path | None,
) -> int:
    """Run the whole stack: Temporal dev server, worker and API (and, on PostgreSQL, a
    webhook dispatcher), as one group."""
    import time

    started_at = time.monotonic()
    # Before the imports below (a second or more on a cold cache): the start says at once
    # what it is doing.
    click.echo(f"[ramp] starting the {environment} stack")
    from devstack.stack import DevStack
    from ramp.config import Environment
    from ramp.settings_loader import StackMismatch

    data_dir = (data_dir or Path(os.environ.get("RAMP_DATA_DIR", ".ramp"))).absolute()
    stack = DevStack(
        host=host,
        port=port,
        temporal_port=temporal_port,
        ui_port=ui_port,
        temporal_address=temporal_address,
        data_dir=data_dir,
        database_url=database_url,
        environment=Environment(environment),
        started_at=started_at,
    )
    try:
        return stack.run()
    except StackMismatch as error:
        raise click.ClickException(str(error)) from None


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True)
@DATA_DIR_OPTION
def api(host: str, port: int, data_dir: Path | None) -> int:
    """Serve the HTTP API (configured by environment)."""
    import uvicorn

    from api.app import create_app
    from api.protocol import SERVER_OPTIONS

    app = create_app(load_settings(data_dir))
    uvicorn.run(app, host=host, port=port, log_level="info", **SERVER_OPTIONS)
    return 0


@click.command()
@DATA_DIR_OPTION
def worker(data_dir: Path | None) -> int:
    """Run a Temporal worker (configured by environment)."""
    import logging

    import worker as worker_module

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(worker_module.run(load_settings(data_dir)))
    return 0


@click.command()
@DATA_DIR_OPTION
def dispatcher(data_dir: Path | None) -> int:
    """Make webhook deliveries (configured by environment; for workers started with
    RAMP_WEBHOOK_DISPATCH=separate, which leave them to this process)."""
    import logging

    import webhook_dispatcher

    settings = load_settings(data_dir)
    if not settings.on_postgresql:
        raise click.ClickException(webhook_dispatcher.NEEDS_POSTGRES)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    asyncio.run(webhook_dispatcher.run(settings))
    return 0
