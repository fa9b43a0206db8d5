"""The process supervisor and the local Temporal dev server, with real processes."""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import queue
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from google.protobuf.duration_pb2 import Duration
from temporalio.api.enums.v1 import IndexedValueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.api.workflowservice.v1 import RegisterNamespaceRequest
from temporalio.client import Client
from temporalio.common import SearchAttributeIndexedValueType

from devstack.supervisor import ChildSpec, RestartPolicy, Supervisor
from devstack.temporal_server import (
    THROTTLE_LIFTING_DYNAMIC_CONFIG,
    dev_server_args,
    ensure_search_attributes,
    temporal_cli_path,
    wait_until_serving,
)
from ramp.config import Settings
from ramp.temporal import SEARCH_ATTRIBUTES

REPO = Path(__file__).resolve().parent.parent
REGISTER_SCRIPT = REPO / "deploy" / "temporal" / "register-search-attributes.sh"
KEYWORD = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD

# A well-behaved service: says when it is ready, exits quietly on SIGINT/SIGTERM.
SERVICE = textwrap.dedent(
    """
    import signal, sys, time
    def bye(signum, frame):
        sys.exit(0)
    signal.signal(signal.SIGTERM, bye)
    signal.signal(signal.SIGINT, bye)
    print("ready", flush=True)
    time.sleep(60)
    """
)

# Ignores SIGTERM (and SIGINT), like a process stuck in shutdown.
STUBBORN = textwrap.dedent(
    """
    import signal, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("ready", flush=True)
    time.sleep(60)
    """
)


def py(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def wait_for(predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.02)


def reaped(pid: int) -> bool:
    """True if `pid` was our child and has been waited for (so it no longer exists)."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def running(pid: int) -> bool:
    """For processes that are not our children: alive and not a zombie."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    state = stat.rpartition(")")[2].split()[0]
    return state not in ("Z", "X")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def out() -> io.StringIO:
    return io.StringIO()


@pytest.fixture
def supervisor(out: io.StringIO) -> Iterator[Supervisor]:
    sup = Supervisor(grace_period=5.0, out=out)
    yield sup
    sup.stop()  # whatever a test did, leave no process behind


def wait_ready(out: io.StringIO, *names: str) -> None:
    wait_for(lambda: all(f"[{name}] ready\n" in out.getvalue() for name in names))


# -- Supervisor in this process ---------------------------------------------------------


def test_clean_stop_in_reverse_order_leaves_no_child(
    supervisor: Supervisor, out: io.StringIO, tmp_path: Path
) -> None:
    order = tmp_path / "order"
    record_stop = SERVICE.replace(
        "sys.exit(0)", f"open({str(order)!r}, 'a').write(sys.argv[1] + ' '); sys.exit(0)"
    )
    for name in ("temporal", "worker", "api"):
        supervisor.start(ChildSpec(name, [*py(record_stop), name]))
    wait_ready(out, "temporal", "worker", "api")
    pids = [supervisor.pid(name) for name in supervisor.names]

    supervisor.stop()

    assert order.read_text().split() == ["api", "worker", "temporal"]
    assert all(reaped(pid) for pid in pids)
    assert [supervisor.returncode(n) for n in supervisor.names] == [0, 0, 0]
    assert "unexpectedly" not in out.getvalue()


def test_request_stop_returns_zero_and_env_is_layered(
    supervisor: Supervisor, out: io.StringIO
) -> None:
    code = "import os; print(os.environ['RAMP_X'], 'PATH' in os.environ, flush=True); "
    supervisor.start(ChildSpec("svc", py(code + SERVICE), env={"RAMP_X": "hello"}))
    wait_ready(out, "svc")
    threading.Timer(0.1, supervisor.request_stop).start()

    assert supervisor.wait() == 0
    assert "[svc] hello True\n" in out.getvalue()
    assert reaped(supervisor.pid("svc"))


def test_stop_from_another_thread_releases_wait(supervisor: Supervisor, out: io.StringIO) -> None:
    supervisor.start(ChildSpec("svc", py(SERVICE)))
    wait_ready(out, "svc")
    threading.Timer(0.1, supervisor.stop).start()

    assert supervisor.wait() == 0
    assert reaped(supervisor.pid("svc"))
    assert "unexpectedly" not in out.getvalue()


@pytest.mark.parametrize(
    ("child_code", "expected_rc", "described"), [(3, 3, "code 3"), (0, 1, "code 0")]
)
def test_child_exit_is_reported_and_the_rest_stopped(
    supervisor: Supervisor, out: io.StringIO, child_code: int, expected_rc: int, described: str
) -> None:
    supervisor.start(ChildSpec("temporal", py(SERVICE)))
    supervisor.start(ChildSpec("api", py(SERVICE)))
    wait_ready(out, "temporal", "api")
    supervisor.start(ChildSpec("worker", py(f"import sys; print('boom'); sys.exit({child_code})")))

    assert supervisor.wait() == expected_rc

    text = out.getvalue()
    assert f"[ramp] worker exited unexpectedly with {described}\n" in text
    assert "[worker] boom\n" in text
    assert text.count("exited unexpectedly") == 2  # once at the event, once as the summary
    assert all(reaped(supervisor.pid(name)) for name in supervisor.names)
    assert supervisor.returncode("api") == 0


class Waiting:
    """`Supervisor.wait()` in a thread (it is where restarts happen); its result kept."""

    def __init__(self, supervisor: Supervisor) -> None:
        self.result: list[int] = []
        self.thread = threading.Thread(target=lambda: self.result.append(supervisor.wait()))
        self.thread.start()

    def join(self) -> int:
        self.thread.join(timeout=15)
        assert not self.thread.is_alive()
        return self.result[0]


def test_a_crashed_child_is_restarted_with_backoff_and_reported(out: io.StringIO) -> None:
    err = io.StringIO()
    policy = RestartPolicy(initial_delay=0.2, max_delay=0.4, stable_after=60)
    sup = Supervisor(grace_period=5.0, out=out, err=err, restart=policy)
    try:
        sup.start(ChildSpec("temporal", py(SERVICE)))
        sup.start(ChildSpec("worker", py(SERVICE)))
        wait_ready(out, "temporal", "worker")
        temporal = sup.pid("temporal")
        waiting = Waiting(sup)

        pids = [sup.pid("worker")]
        for _ in range(3):
            os.kill(sup.pid("worker"), signal.SIGKILL)
            # The restarted process says it is ready: one line more than processes seen.
            wait_for(lambda: out.getvalue().count("[worker] ready\n") == len(pids) + 1)
            pids.append(sup.pid("worker"))
        alerts = err.getvalue()

        sup.request_stop()
        assert waiting.join() == 0
    finally:
        sup.stop()

    # Crashes in a row double the delay, up to the maximum; each is on stderr, twice.
    for restart, delay in ((1, "0.2"), (2, "0.4"), (3, "0.4")):
        assert (
            f"[ramp] worker exited unexpectedly with signal SIGKILL; "
            f"restarting in {delay} s (restart {restart})\n"
        ) in alerts
        assert f"[ramp] worker restarted (pid {pids[restart]}, restart {restart})\n" in alerts
    assert len(set(pids)) == 4
    assert sup.restarts("worker") == 3
    # The other child ran throughout; the group stopped only when asked.
    assert sup.pid("temporal") == temporal
    assert sup.returncode("temporal") == 0
    assert "unexpectedly" not in out.getvalue()
    assert all(reaped(pid) for pid in [temporal, *pids])


def test_children_that_crash_together_are_each_restarted(out: io.StringIO) -> None:
    sup = Supervisor(grace_period=5.0, out=out, err=out, restart=RestartPolicy(initial_delay=0.1))
    try:
        for name in ("temporal", "worker", "api"):
            sup.start(ChildSpec(name, py(SERVICE)))
        wait_ready(out, "temporal", "worker", "api")
        waiting = Waiting(sup)
        for name in ("temporal", "worker"):  # e.g. a worker that dies with its server
            os.kill(sup.pid(name), signal.SIGKILL)
        wait_for(lambda: out.getvalue().count("ready\n") == 5)
        sup.request_stop()
        assert waiting.join() == 0
    finally:
        sup.stop()

    assert [sup.restarts(name) for name in ("temporal", "worker", "api")] == [1, 1, 0]


def test_a_child_that_ran_long_enough_restarts_from_the_first_delay(out: io.StringIO) -> None:
    err = io.StringIO()
    policy = RestartPolicy(initial_delay=0.2, max_delay=10, stable_after=0.5)
    sup = Supervisor(grace_period=5.0, out=out, err=err, restart=policy)
    try:
        sup.start(ChildSpec("api", py(SERVICE)))
        wait_ready(out, "api")
        waiting = Waiting(sup)
        os.kill(sup.pid("api"), signal.SIGKILL)
        wait_for(lambda: out.getvalue().count("[api] ready\n") == 2)
        time.sleep(0.6)  # longer than stable_after: the next crash is a first one again
        os.kill(sup.pid("api"), signal.SIGKILL)
        wait_for(lambda: out.getvalue().count("[api] ready\n") == 3)
        sup.request_stop()
        assert waiting.join() == 0
    finally:
        sup.stop()

    assert "restarting in 0.2 s (restart 1)" in err.getvalue()
    assert "restarting in 0.2 s (restart 2)" in err.getvalue()


def test_child_ignoring_sigterm_gets_sigkill_with_its_group(out: io.StringIO) -> None:
    # The child starts a grandchild that also ignores SIGTERM: it must not survive either.
    spawner = textwrap.dedent(
        f"""
        import subprocess, sys
        grandchild = subprocess.Popen([sys.executable, "-c", {STUBBORN!r}])
        print("grandchild", grandchild.pid, flush=True)
        exec({STUBBORN!r})
        """
    )
    sup = Supervisor(grace_period=0.5, out=out)
    try:
        sup.start(ChildSpec("stuck", py(spawner)))
        wait_for(lambda: out.getvalue().count("ready") == 2)
        grandchild = int(out.getvalue().split("[stuck] grandchild ")[1].split()[0])

        started = time.monotonic()
        sup.stop()
        elapsed = time.monotonic() - started
    finally:
        sup.stop()

    assert 0.5 <= elapsed < 3.0
    assert sup.returncode("stuck") == -signal.SIGKILL
    assert "[ramp] stuck did not stop within 0.5 s, sending SIGKILL\n" in out.getvalue()
    assert reaped(sup.pid("stuck"))
    wait_for(lambda: not running(grandchild), timeout=5)


def test_start_failure_is_a_clear_error(supervisor: Supervisor) -> None:
    with pytest.raises(RuntimeError, match="cannot start ghost"):
        supervisor.start(ChildSpec("ghost", ["/nonexistent/ghost-binary"]))


def test_unprefixed_child_writes_straight_to_our_stdout(
    supervisor: Supervisor, out: io.StringIO, capfd: pytest.CaptureFixture[str]
) -> None:
    supervisor.start(ChildSpec("raw", py("print('raw line')"), log_prefix=False))

    assert supervisor.wait() == 1  # exiting at all is unexpected, even with code 0

    assert "raw line\n" in capfd.readouterr().out
    assert "[raw]" not in out.getvalue().replace("[ramp] raw", "")


# -- Supervisor as a separate process, driven by signals ---------------------------------

SCRIPT = textwrap.dedent(
    """
    import os, sys
    from devstack.supervisor import ChildSpec, RestartPolicy, Supervisor

    import time
    code, grace = sys.argv[1], float(sys.argv[2])
    restart = RestartPolicy(initial_delay=0.1) if sys.argv[3] == "restart" else None
    starting = float(sys.argv[4])  # seconds of more start-up work after the children run
    with Supervisor(grace_period=grace, restart=restart) as sup:
        for name in ("temporal", "worker", "api"):
            sup.start(ChildSpec(name, [sys.executable, "-c", code]))
        # A Ctrl-C from here on (even before wait()) is a request to stop. One write:
        # print() with several arguments writes them one by one when unbuffered, and
        # the supervisor's forwarding of "[api] ready" could land between them.
        sys.stdout.write(" ".join(["pids", *(str(sup.pid(n)) for n in sup.names)]) + "\\n")
        sys.stdout.flush()
        time.sleep(starting)
        rc = sup.wait()
    for name in sup.names:
        try:
            os.waitpid(sup.pid(name), os.WNOHANG)
        except ChildProcessError:
            sys.stdout.write(f"reaped {name} {sup.returncode(name)}\\n")
            sys.stdout.flush()
    sys.exit(rc)
    """
)


class ScriptRun:
    def __init__(
        self, tmp_path: Path, child_code: str, grace: float, restart: bool, starting: float = 0.0
    ) -> None:
        script = tmp_path / "supervise.py"
        script.write_text(SCRIPT)
        env = {**os.environ, "PYTHONPATH": str(REPO), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [
                sys.executable,
                str(script),
                child_code,
                str(grace),
                "restart" if restart else "-",
                str(starting),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            env=env,
            # Its own session and group, like a shell's foreground job.
            start_new_session=True,
        )
        self.lines: list[str] = []
        self._received: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        # A thread, not select(): readline() buffers lines that select() cannot see.
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._done = False

    def _read(self) -> None:
        assert self.process.stdout is not None
        with self.process.stdout as stream:
            for line in stream:
                self._received.put(line.decode())
        self._received.put(None)

    def read_until(self, predicate: Callable[[], bool], timeout: float = 10.0) -> None:
        deadline = time.monotonic() + timeout
        while not predicate():
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"timed out; output so far: {self.lines}"
            assert not self._done, f"script ended early; output: {self.lines}"
            with contextlib.suppress(queue.Empty):
                line = self._received.get(timeout=remaining)
                if line is None:
                    self._done = True
                else:
                    self.lines.append(line)

    def child_pids(self) -> list[int]:
        # The children may say they are ready before the script prints their pids.
        self.read_until(
            lambda: (
                sum(line.endswith("] ready\n") for line in self.lines) == 3
                and any(line.startswith("pids ") for line in self.lines)
            )
        )
        pids = next(line for line in self.lines if line.startswith("pids "))
        return [int(pid) for pid in pids.split()[1:]]

    def finish(self, timeout: float = 15.0) -> tuple[int, str]:
        self.process.wait(timeout=timeout)
        self.read_until(lambda: self._done)
        return self.process.returncode, "".join(self.lines)

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self._reader.join(timeout=5)


@pytest.fixture
def script_run(tmp_path: Path) -> Iterator[Callable[..., ScriptRun]]:
    runs: list[ScriptRun] = []

    def make(
        child_code: str, grace: float, restart: bool = False, starting: float = 0.0
    ) -> ScriptRun:
        runs.append(ScriptRun(tmp_path, child_code, grace, restart, starting))
        return runs[-1]

    yield make
    for run in runs:
        run.kill()


def test_ctrl_c_during_start_up_stops_quietly(
    script_run: Callable[..., ScriptRun],
) -> None:
    # `ramp dev` starts the worker and the API only once Temporal answers: a Ctrl-C in
    # that time is a request to stop, not a KeyboardInterrupt traceback.
    run = script_run(SERVICE, 5.0, True, starting=1.0)
    run.child_pids()
    os.killpg(run.process.pid, signal.SIGINT)
    rc, output = run.finish()

    assert rc == 0, output
    assert "Traceback" not in output
    assert "[ramp] received SIGINT, stopping" in output


@pytest.mark.parametrize("restart", [False, True], ids=["fail-fast", "restarting"])
@pytest.mark.parametrize("target", ["supervisor", "process-group", "everyone"])
def test_sigint_stops_everything_quietly(
    script_run: Callable[..., ScriptRun], target: str, restart: bool
) -> None:
    # With restarts on, children that exit on the same Ctrl-C are not restarted either.
    run = script_run(SERVICE, 5.0, restart)
    pids = run.child_pids()

    if target == "supervisor":
        os.kill(run.process.pid, signal.SIGINT)
    elif target == "process-group":  # what a terminal's Ctrl-C does
        os.killpg(run.process.pid, signal.SIGINT)
    else:  # the children get it at the same moment: not a crash either
        for pid in [run.process.pid, *pids]:
            # Under load the supervisor may have stopped and reaped a child already.
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGINT)
    rc, output = run.finish()

    assert rc == 0, output
    assert "[ramp] received SIGINT, stopping" in output or "shutdown requested" in output
    assert "unexpectedly" not in output
    assert "restart" not in output
    assert "Traceback" not in output
    # A child busy exiting on one signal (its SIGINT or our SIGTERM) may get the other
    # after its interpreter restored the default handlers: that is a stop all the same.
    codes = {"0", "-2", "-15"} if target == "everyone" else {"0"}
    for name in ("temporal", "worker", "api"):
        assert any(f"reaped {name} {code}\n" in output for code in codes), output
    assert not any(running(pid) for pid in pids)


def test_second_sigint_escalates_to_sigkill(script_run: Callable[..., ScriptRun]) -> None:
    run = script_run(STUBBORN, 30.0)
    pids = run.child_pids()

    os.kill(run.process.pid, signal.SIGINT)
    run.read_until(lambda: any("received SIGINT, stopping" in line for line in run.lines))
    time.sleep(0.2)
    started = time.monotonic()
    os.kill(run.process.pid, signal.SIGINT)
    rc, output = run.finish()

    assert time.monotonic() - started < 5.0
    assert rc == 0, output
    assert "killed the remaining processes" in output
    assert "Traceback" not in output
    for name in ("temporal", "worker", "api"):
        assert f"reaped {name} -9\n" in output
    assert not any(running(pid) for pid in pids)


def test_children_die_when_the_supervisor_is_sigkilled(
    script_run: Callable[..., ScriptRun],
) -> None:
    run = script_run(SERVICE, 5.0)
    pids = run.child_pids()

    run.process.kill()
    run.process.wait()

    wait_for(lambda: not any(running(pid) for pid in pids), timeout=5)


# -- the Temporal dev server -------------------------------------------------------------


def test_dev_server_args_lift_the_throttle_and_register_attributes(tmp_path: Path) -> None:
    argv = dev_server_args(
        host="127.0.0.1", port=1234, ui_port=5678, db_file=tmp_path / "t.db", namespace="ramp"
    )
    joined = " ".join(argv)

    assert argv[:3] == [str(temporal_cli_path()), "server", "start-dev"]
    assert f"--db-filename {tmp_path / 't.db'}" in joined
    assert "--sqlite-pragma journal_mode=wal --sqlite-pragma synchronous=normal" in joined
    for key in THROTTLE_LIFTING_DYNAMIC_CONFIG:
        assert f"--dynamic-config-value {key}=10000" in joined
    for attribute in SEARCH_ATTRIBUTES:
        assert f"--search-attribute {attribute.name}=Keyword" in joined
    assert "--namespace ramp" in joined
    assert "--namespace" not in " ".join(
        dev_server_args(host="h", port=1, ui_port=2, db_file=Path("x"))
    )
    assert "--ui-port 5678 --ui-disable-news-fetch" in joined
    assert "--headless" not in joined
    headless = dev_server_args(host="h", port=1, ui_port=None, db_file=Path("x"))
    assert "--headless" in headless
    assert not [arg for arg in headless if arg.startswith("--ui-")]


async def test_wait_until_serving_gives_up_clearly() -> None:
    address = f"127.0.0.1:{free_port()}"
    with pytest.raises(TimeoutError, match=f"Temporal at {address} did not serve"):
        await wait_until_serving(address, "default", 0.3)
    with pytest.raises(RuntimeError, match="exited before serving"):
        await wait_until_serving(address, "default", 5, is_alive=lambda: False)


async def test_dev_server_starts_with_our_search_attributes(
    supervisor: Supervisor, out: io.StringIO, tmp_path: Path
) -> None:
    port, ui_port = free_port(), free_port()
    address = f"127.0.0.1:{port}"
    argv = dev_server_args(
        host="127.0.0.1", port=port, ui_port=ui_port, db_file=tmp_path / "temporal.db"
    )
    supervisor.start(ChildSpec("temporal", argv))

    await wait_until_serving(
        address, "default", 20, is_alive=lambda: supervisor.is_running("temporal")
    )
    assert (tmp_path / "temporal.db").exists()

    client = await Client.connect(address)
    ops = client.operator_service

    async def custom_attributes(namespace: str) -> dict[str, int]:
        listed = await ops.list_search_attributes(ListSearchAttributesRequest(namespace=namespace))
        return dict(listed.custom_attributes)

    ours = {attribute.name: KEYWORD for attribute in SEARCH_ATTRIBUTES}
    assert ours.items() <= (await custom_attributes("default")).items()

    # A namespace the server was not started with: ensure_search_attributes fills it in,
    # and running it again changes nothing.
    retention = Duration(seconds=86400)
    for namespace in ("fresh", "conflict"):
        await client.workflow_service.register_namespace(
            RegisterNamespaceRequest(
                namespace=namespace, workflow_execution_retention_period=retention
            ),
            timeout=timedelta(seconds=10),
        )
    assert not ours.keys() & (await custom_attributes("fresh")).keys()
    await ensure_search_attributes(client, "fresh")
    await ensure_search_attributes(client, "fresh")
    assert ours.items() <= (await custom_attributes("fresh")).items()

    # Same name, other type: the server accepts it silently, we refuse loudly.
    name = SEARCH_ATTRIBUTES[0].name
    await ops.add_search_attributes(
        AddSearchAttributesRequest(
            namespace="conflict",
            search_attributes={name: IndexedValueType.INDEXED_VALUE_TYPE_INT},
        )
    )
    with pytest.raises(RuntimeError, match=f"{name} is INDEXED_VALUE_TYPE_INT"):
        await ensure_search_attributes(client, "conflict")

    # The docker-compose registration step, run here against the real server: the
    # first run registers the namespace and the attributes, the second finds them.
    script_env = {
        **os.environ,
        "PATH": f"{temporal_cli_path().parent}{os.pathsep}{os.environ['PATH']}",
        "TEMPORAL_ADDRESS": address,
        "TEMPORAL_NAMESPACE": "compose",
        "TEMPORAL_RETENTION": "24h",
    }
    outputs = []
    for _ in range(2):
        registered = await asyncio.create_subprocess_exec(
            "sh", str(REGISTER_SCRIPT), env=script_env, stdout=subprocess.PIPE
        )
        stdout, _ = await registered.communicate()
        assert registered.returncode == 0, stdout
        outputs.append(stdout.decode())
    assert "namespace compose: registered (retention 24h)" in outputs[0]
    assert "namespace compose: already registered" in outputs[1]
    assert "already registered in compose" in outputs[1]
    assert ours.items() <= (await custom_attributes("compose")).items()

    started = time.monotonic()
    supervisor.stop()
    assert time.monotonic() - started < 10.0
    assert supervisor.returncode("temporal") == 0
    assert reaped(supervisor.pid("temporal"))
    assert "unexpectedly" not in out.getvalue()


# -- the production shape (docker-compose.yml) agrees with the code ----------------------


def test_deploy_files_agree_with_the_code() -> None:
    script = REGISTER_SCRIPT.read_text()
    listed = script.split('KEYWORD_ATTRIBUTES="')[1].split('"')[0].split()
    assert listed == [attribute.name for attribute in SEARCH_ATTRIBUTES]
    assert {a.indexed_value_type for a in SEARCH_ATTRIBUTES} == {
        SearchAttributeIndexedValueType.KEYWORD
    }

    yaml = pytest.importorskip("yaml")
    dynamic_config = yaml.safe_load((REPO / "deploy/temporal/dynamicconfig.yaml").read_text())
    for key, value in THROTTLE_LIFTING_DYNAMIC_CONFIG.items():
        assert dynamic_config[key] == [{"value": value, "constraints": {}}]
    for key in ("frontend.enableUpdateWorkflowExecution", "frontend.enableExecuteMultiOperation"):
        assert dynamic_config[key] == [{"value": True, "constraints": {}}]

    services = yaml.safe_load((REPO / "docker-compose.yml").read_text())["services"]
    known = {field.alias for field in Settings.model_fields.values()}
    for name in ("migrate", "api", "worker", "dispatcher"):
        environment = services[name]["environment"]
        assert set(environment) <= known, f"{name}: unknown settings"
        assert {"DATABASE_URL", "TEMPORAL_ADDRESS", "RAMP_SIGNING_KEY"} <= set(environment)
        assert environment["RAMP_ENV"] == "production"
    for name in ("api", "worker"):
        assert services[name]["depends_on"] == {
            "migrate": {"condition": "service_completed_successfully"},
            "temporal-search-attributes": {"condition": "service_completed_successfully"},
        }
    assert services["migrate"]["command"] == ["db", "upgrade"]
    # The worker stores webhook deliveries; the dispatcher service sends them.
    assert services["worker"]["environment"]["RAMP_WEBHOOK_DISPATCH"] == "separate"
    assert services["dispatcher"]["command"] == ["dispatcher"]
    assert services["dispatcher"]["environment"]["DATABASE_URL"].startswith("postgresql://")
