"""Files that hold data or keys: readable by the service's own user only.

The data dir is 0700 and what it holds 0600, whatever the process umask; files made
by an older version with looser modes are tightened on the next start.
"""

from __future__ import annotations

import os
from pathlib import Path

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
# SQLite's companions of a database file (WAL mode, rollback journal).
SQLITE_COMPANIONS = ("-wal", "-shm", "-journal")


def private_dir(path: Path) -> Path:
    """Creates `path` (and missing parents) and makes it 0700."""
    path.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    os.chmod(path, PRIVATE_DIR_MODE)
    return path


def private_process() -> None:
    """Everything this process and the children it starts create from now on is private
    (umask 077): files 0600, folders 0700. `ramp dev` runs Temporal's dev server, whose
    SQLite files (the database, and the WAL and shared memory it makes later) would
    otherwise be 0644."""
    os.umask(0o077)


def tighten_files(folder: Path) -> None:
    """Makes the files directly in `folder` 0600 (those an older version left looser)."""
    for path in folder.iterdir():
        if path.is_file() and not path.is_symlink():
            os.chmod(path, PRIVATE_FILE_MODE)


def private_sqlite_file(path: Path) -> None:
    """Creates the database file 0600 before SQLite opens it, and tightens its
    companions. SQLite gives -wal, -shm and -journal files the mode of the database
    file, so those created later are 0600 too. A missing folder is not made: a
    misspelt DATABASE_URL must fail, as it would without this."""
    if not path.parent.is_dir():
        return
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE_MODE))
    for candidate in (path, *(Path(f"{path}{suffix}") for suffix in SQLITE_COMPANIONS)):
        if candidate.exists():
            os.chmod(candidate, PRIVATE_FILE_MODE)
