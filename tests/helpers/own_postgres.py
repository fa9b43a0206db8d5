"""A PostgreSQL server of the test's own, which it may stop and start again: `initdb`
and `pg_ctl` of the machine's PostgreSQL in a temporary directory, run as an
unprivileged user (PostgreSQL refuses to run as root: as root, through `runuser` to the
`postgres` account), listening on a free port of loopback, trusting local connections.
Durability is off (fsync): the server stops, the machine does not.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tests.helpers.scale_out import free_port

USER = "postgres"  # the account Debian's packages make; PostgreSQL's own


def binaries() -> Path:
    """The directory of the newest PostgreSQL server installed (Debian's layout), or
    of the `initdb` on PATH."""
    installed = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3])
    )
    found = installed[-1] if installed else shutil.which("initdb")
    assert found, "no PostgreSQL server binaries (initdb) on this machine"
    return Path(found).parent


class OwnPostgres:
    def __init__(self, root: Path) -> None:
        self.bin = binaries()
        self.data = root / "data"
        self.log = root / "server.log"
        self.port = free_port()
        self.url = f"postgresql://ramp@127.0.0.1:{self.port}/postgres"
        self._as_user = [] if os.geteuid() else ["runuser", "-u", USER, "--"]
        self._root = root

    def _run(self, *command: str) -> None:
        result = subprocess.run(
            [*self._as_user, str(self.bin / command[0]), *command[1:]],
            capture_output=True,
            text=True,
            check=False,
            timeout=120,
            cwd=self._root,
        )
        assert result.returncode == 0, (command, result.stdout, result.stderr, self.server_log())

    def server_log(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def init(self) -> None:
        self._run(
            "initdb", "-D", str(self.data), "--username=ramp", "--auth=trust", "--no-sync",
            "--encoding=UTF8", "--no-instructions",
        )  # fmt: skip

    def start(self) -> None:
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self._root} "
            "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", options, "-w", "start")

    def stop(self) -> None:
        """A fast shutdown: every session is ended at once, as a restart ends them."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "stop")


@contextlib.contextmanager
def own_postgres() -> Iterator[OwnPostgres]:
    """A running server on an empty cluster, removed on leaving."""
    # Not under pytest's tmp_path: its directories are the running user's alone.
    root = Path(tempfile.mkdtemp(prefix="ramp-postgres-"))
    if not os.geteuid():
        account = pwd.getpwnam(USER)
        os.chown(root, account.pw_uid, account.pw_gid)
    server = OwnPostgres(root)
    try:
        server.init()
        server.start()
        yield server
    finally:
        with contextlib.suppress(AssertionError):
            server.stop()
        shutil.rmtree(root, ignore_errors=True)
