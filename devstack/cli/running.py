"""`ramp dev`, `ramp api`, `ramp worker`, `ramp dispatcher`: the processes, alone or as
the sandbox."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import click

from devstack.cli.common import DATA_DIR_OPTION, command_settings, data_options


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
@click.option(
    "--metrics-port",
    type=click.IntRange(1, 65533),
    default=None,
    help="Serve Prometheus metrics: the API's at this port, the worker's at the next, the "
    "dispatcher's (if one runs) at the one after (on RAMP_METRICS_HOST, loopback by default).",
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
    metrics_port: int | None,
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
        metrics_port=metrics_port,
    )
    try:
        return stack.run()
    except StackMismatch as error:
        raise click.ClickException(str(error)) from None


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", default=8000, show_default=True)
@data_options
def api(host: str, port: int, data_dir: Path | None) -> int:
    """Serve the HTTP API (configured by environment)."""
    import uvicorn

    from api.app import create_app
    from api.protocol import SERVER_OPTIONS
    from ramp.heap import tune_gc_after_startup
    from ramp.observability.process import configure_process_logging, observe_process

    settings = command_settings(data_dir)
    # Ours, uvicorn's lines included (log_config=None: they reach our handler).
    configure_process_logging(settings)
    # Before the app: with tracing on, it adds the server span's middleware.
    observe_process(settings, "ramp-api")
    app = create_app(settings)
    tune_gc_after_startup()
    uvicorn.run(app, host=host, port=port, log_level="info", log_config=None, **SERVER_OPTIONS)
    return 0


@click.command()
@data_options
def worker(data_dir: Path | None) -> int:
    """Run a Temporal worker (configured by environment)."""
    import worker as worker_module
    from ramp.observability.process import configure_process_logging

    settings = command_settings(data_dir)
    configure_process_logging(settings)
    asyncio.run(worker_module.run(settings))
    return 0


@click.command()
@data_options
def dispatcher(data_dir: Path | None) -> int:
    """Make webhook deliveries (configured by environment; for workers started with
    RAMP_WEBHOOK_DISPATCH=separate, which leave them to this process)."""
    import webhook_dispatcher
    from ramp.observability.process import configure_process_logging

    settings = command_settings(data_dir)
    if not settings.on_postgresql:
        raise click.ClickException(webhook_dispatcher.NEEDS_POSTGRES)
    configure_process_logging(settings)
    asyncio.run(webhook_dispatcher.run(settings))
    return 0
