"""The set-up scripts as a user runs them (`bash scripts/...`, real processes): the
PostgreSQL check, the browser opt-out, the install stamp, and a clean `pip install`."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# A port nothing listens on: connecting is refused at once.
NO_POSTGRES = "postgresql://127.0.0.1:1/test"


def run(
    command: list[str], cwd: Path = ROOT, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    # The caller's CI and RAMP_* settings would change what the scripts do.
    base = {k: v for k, v in os.environ.items() if k != "CI" and not k.startswith("RAMP_")}
    return subprocess.run(
        command,
        cwd=cwd,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def test_check_postgres_explains_in_one_paragraph_what_is_missing() -> None:
    done = run(["bash", "scripts/check-postgres", NO_POSTGRES])
    assert done.returncode == 1
    assert done.stdout == ""
    message = done.stderr.strip()
    assert "\n" not in message, message
    assert "Traceback" not in message
    assert message.startswith(f"Cannot connect to PostgreSQL at {NO_POSTGRES} (")
    assert "Connection refused" in message
    assert "RAMP_TEST_POSTGRES_URL=postgresql://" in message
    assert "RAMP_TEST_POSTGRES_URL=skip" in message


def test_check_postgres_never_prints_the_password() -> None:
    done = run(["bash", "scripts/check-postgres", "postgresql://ci:hunter2@127.0.0.1:1/test"])
    assert done.returncode == 1
    assert "postgresql://ci:***@127.0.0.1:1/test" in done.stderr
    assert "hunter2" not in done.stderr


def test_check_postgres_passes_on_a_database_that_answers() -> None:
    url = (
        os.environ.get("RAMP_TEST_DATABASE_URL")
        or os.environ.get("RAMP_TEST_POSTGRES_URL")
        or "postgresql://127.0.0.1:5432/test"
    )
    if url == "skip":
        pytest.skip("no PostgreSQL to check: RAMP_TEST_POSTGRES_URL=skip")
    done = run(["bash", "scripts/check-postgres", url])
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_the_test_command_stops_at_the_postgres_check() -> None:
    # Only the check runs: nothing of ruff, mypy or pytest after it.
    done = run(["bash", "scripts/test"], RAMP_TEST_POSTGRES_URL=NO_POSTGRES)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "== ruff" not in done.stdout
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().startswith(f"Cannot connect to PostgreSQL at {NO_POSTGRES} (")


def test_ci_refuses_to_skip_the_browser_tests() -> None:
    done = run(["bash", "scripts/test"], CI="true", RAMP_TEST_BROWSER="skip")
    assert done.returncode == 2
    assert "RAMP_TEST_BROWSER=skip is refused in CI" in done.stderr
    assert "== installing" not in done.stdout
    # pytest alone refuses too (CI runs scripts/test, but the module guards itself).
    pytest = run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", _onboarding_page()],
        CI="true",
        RAMP_TEST_BROWSER="skip",
    )
    assert pytest.returncode != 0
    assert "RAMP_TEST_BROWSER=skip is refused in CI" in pytest.stdout


def test_a_user_may_skip_the_browser_tests_with_one_line() -> None:
    done = run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", _onboarding_page()],
        RAMP_TEST_BROWSER="skip",
    )
    # 5: no test ran, as nothing else was selected.
    assert done.returncode == 5, done.stdout
    reasons = [line for line in done.stdout.splitlines() if "RAMP_TEST_BROWSER=skip" in line]
    assert len(reasons) == 1, done.stdout
    assert reasons[0].startswith("SKIPPED [1] tests/test_onboarding_page.py")


def test_the_test_command_installs_no_recommended_packages() -> None:
    script = (ROOT / "scripts" / "test").read_text()
    installs = [line for line in script.splitlines() if "apt-get install" in line]
    assert installs
    assert all("--no-install-recommends" in line for line in installs)
    assert "chromium-driver" not in script
    assert ">/dev/null" not in "".join(installs)


def _onboarding_page() -> str:
    return str(ROOT / "tests" / "test_onboarding_page.py")


# --- the install stamp -----------------------------------------------------------------


def _project(tmp_path: Path) -> Path:
    """A project that pip cannot install (its dependency does not exist), with a .venv that
    has no pip: if `ensure_venv` runs pip, it fails."""
    (tmp_path / "scripts" / "lib").mkdir(parents=True)
    (tmp_path / "scripts" / "lib" / "venv.sh").write_text(
        (ROOT / "scripts" / "lib" / "venv.sh").read_text()
    )
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "stamp-check"\nversion = "0"\n'
        'dependencies = ["ramp-no-such-package-anywhere"]\n'
    )
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", ".venv"], cwd=tmp_path, check=True
    )
    return tmp_path


def _ensure(project: Path, extra: str = "") -> subprocess.CompletedProcess[str]:
    return run(
        ["bash", "-c", f"set -euo pipefail; . scripts/lib/venv.sh; ensure_venv {extra}"], project
    )


def _stamp(project: Path, extra: str = "") -> Path:
    digest = run(["bash", "-c", ". scripts/lib/venv.sh; pyproject_hash"], project).stdout.strip()
    return project / ".venv" / f".installed{'-' + extra if extra else ''}-{digest}"


def test_an_installed_venv_starts_without_pip(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _stamp(project).touch()
    done = _ensure(project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    # A dev install serves a plain one; a plain one does not serve dev.
    _stamp(project).unlink()
    _stamp(project, "dev").touch()
    assert _ensure(project).returncode == 0
    _stamp(project, "dev").unlink()
    _stamp(project).touch()
    assert "== installing" in _ensure(project, "dev").stdout


def test_a_changed_pyproject_installs_again(tmp_path: Path) -> None:
    project = _project(tmp_path)
    _stamp(project).touch()
    with (project / "pyproject.toml").open("a") as pyproject:
        pyproject.write('description = "changed"\n')
    done = _ensure(project)
    changed = "(pyproject.toml changed since the last install, or its lock did)"
    assert f"installing the project into .venv {changed}" in done.stdout
    assert done.returncode != 0  # pip ran (and, here, could not)
    # A failed install leaves no stamp: the next start tries again.
    assert not list((project / ".venv").glob(".installed-*"))


def test_the_install_gives_its_real_reason(tmp_path: Path) -> None:
    project = _project(tmp_path)
    # Nothing installed into this .venv yet (or the last install did not finish).
    done = _ensure(project, "dev")
    assert "(no install into it has finished yet)" in done.stdout, done.stdout
    # The service alone was installed: the tests' extras were never, pyproject unchanged.
    _stamp(project).touch()
    done = _ensure(project, "dev")
    assert "(the [dev] extras were never installed into it: only the service was)" in done.stdout
    assert "pyproject.toml changed" not in done.stdout
    # What each step takes is printed when it ends; pip prints its own progress.
    assert "pip's progress follows" in done.stdout


def test_an_editable_install_prints_no_setuptools_warning(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", "venv"], cwd=tmp_path, check=True
    )
    done = run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(tmp_path / "venv" / "bin" / "python"),
            "install",
            "--quiet",
            "--no-deps",
            "-e",
            str(ROOT),
        ],
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "setuptools" not in done.stderr, done.stderr
    assert "Warning" not in done.stderr, done.stderr
