"""The `ramp` command line: run the sandbox, the API, the worker; administer projects.

One module per command group; this one assembles them and runs the command.
"""

from __future__ import annotations

import os
import sys

import click

from devstack.cli import deployment, org, project, provider_account, running, webhook
from ramp.security.encryption import MissingKey
from ramp.settings_loader import InvalidSettings


@click.group()
def cli() -> None:
    """Payment ramp orchestration service."""


for command in (
    running.dev,
    running.api,
    running.worker,
    running.dispatcher,
    deployment.db,
    deployment.keys,
    project.project,
    org.org,
    provider_account.provider_account,
    webhook.webhook,
):
    cli.add_command(command)


def main() -> None:
    code = run()
    sys.stdout.flush()
    sys.stderr.flush()
    # Skip interpreter finalisation: the Temporal SDK's native threads can abort it
    # (exit 134, sdk-python issue 300), which would turn a success into a failure.
    os._exit(code)


def run(args: list[str] | None = None, prog_name: str | None = None) -> int:
    """The command's exit status, its errors said on stderr (the tests run commands
    whose subject is not the process through this, in their own process)."""
    try:
        result = cli.main(args=args, prog_name=prog_name, standalone_mode=False)
        return result if isinstance(result, int) else 0
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        return 130
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except click.ClickException as error:
        error.show()
        return error.exit_code
    except MissingKey as error:
        click.echo(f"Error: {error}", err=True)
        return 2
    except InvalidSettings as error:
        # Settings from the environment: say which and why, without a traceback.
        for line in str(error).splitlines():
            click.echo(f"Error: {line}", err=True)
        return 2
