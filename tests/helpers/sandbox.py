"""One `ramp dev` sandbox shared by the test modules that need a running one but not a
stack of their own (its first start and restart, the kills of its children, the README's
walk, the privacy of what it writes): a start costs about 9 s of CPU (the supervisor, the
API and the worker importing the service, Temporal's dev server), more than most of those
tests themselves.

Started as a new user's would be, in a new data dir, with a umask that leaves new files
readable by others (the usual default) and a file an older version left readable: what
the stack tightens on start (tests/test_ramp_dev_privacy.py). A test may restart it on
its data dir (`restart`: Ctrl-C, exit 0, no child left, then a new `ramp dev` there). It
stops, with Ctrl-C, at the end of the last module of the process that uses it (not at
the session's end: an idle stack still costs CPU), and must exit 0 and leave no child
behind. A test that kills its children waits until the stack is whole again before it
ends, so each module finds a working stack.

Its fixture is registered for every test module by tests/conftest.py; modules using it
are claimed together, by one process (`SHARED` in tests/passes.py).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.sandbox import SandboxProcess

FIXTURE = "shared_sandbox"
LEFT_READABLE = "written-by-an-older-version.json"


class SharedSandbox(SandboxProcess):
    def __init__(self, data_dir: Path) -> None:
        self.data_dir = data_dir
        self._launch()

    def _launch(self) -> None:
        previous = os.umask(0o022)  # inherited by the stack: world-readable files
        try:
            super().__init__(self.data_dir)
        finally:
            os.umask(previous)
        try:
            self.credentials()
        except BaseException:
            self.interrupt()
            raise

    def restart(self) -> None:
        """Ctrl-C (exit 0, no child left), then `ramp dev` again on the same data dir, on
        new ports, its log a new one."""
        code, left = self.interrupt()
        assert code == 0, self.log
        assert left == [], f"children left running: {left}"
        self._launch()


_running: SharedSandbox | None = None


def _start(tmp_path_factory: pytest.TempPathFactory) -> SharedSandbox:
    data_dir = tmp_path_factory.mktemp("sandbox") / "data"
    data_dir.mkdir(mode=0o755)
    left_readable = data_dir / LEFT_READABLE
    left_readable.write_text("{}")
    left_readable.chmod(0o644)
    return SharedSandbox(data_dir)


def _last_user(items: list[pytest.Item]) -> str | None:
    users = [item for item in items if FIXTURE in getattr(item, "fixturenames", ())]
    return users[-1].nodeid.split("::", 1)[0] if users else None


def _stop_if_running() -> None:
    global _running
    if _running is not None:
        sandbox, _running = _running, None
        sandbox.interrupt()


@pytest.fixture(scope="module")
def shared_sandbox(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[SharedSandbox]:
    global _running
    if _running is None:
        _running = _start(tmp_path_factory)
        # However the run ends (interrupted, -x), no stack outlives it.
        request.config.add_cleanup(_stop_if_running)
    yield _running
    module = request.node.nodeid.split("::", 1)[0]
    if module == _last_user(request.session.items):
        sandbox, _running = _running, None
        code, left = sandbox.interrupt()
        assert code == 0, sandbox.log
        assert left == [], f"children left running: {left}"
