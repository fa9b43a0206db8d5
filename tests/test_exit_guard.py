"""The test run's exit (tests/exit_guard.py): pytest's verdict, nothing hidden.

Each case runs pytest in a child process on a small test directory, with the guard as
its only plugin: the installed ones (schemathesis, hypothesis, asyncio...) are not loaded,
which costs a child 0.2 s of CPU instead of 2.4 s, and none of them is what is tested.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _pytest(directory: Path, files: dict[str, str]) -> subprocess.CompletedProcess[str]:
    for name, text in files.items():
        (directory / name).write_text(text)
    (directory / "pytest.ini").write_text("[pytest]\n")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "tests.exit_guard"],
        cwd=directory,
        env={**os.environ, "PYTHONPATH": str(ROOT), "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_a_green_run_exits_zero(tmp_path: Path) -> None:
    done = _pytest(tmp_path, {"test_ok.py": "def test_ok():\n    pass\n"})
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_failing_test_exits_one(tmp_path: Path) -> None:
    done = _pytest(tmp_path, {"test_no.py": "def test_no():\n    assert False\n"})
    assert done.returncode == 1, done.stdout + done.stderr


def test_a_failing_clean_up_after_the_session_fails_the_run(tmp_path: Path) -> None:
    """pytest's own clean-up runs after its hooks: an exit from a hook would skip it."""
    conftest = (
        "def pytest_configure(config):\n"
        "    def fail():\n"
        "        raise RuntimeError('clean-up failed')\n"
        "    config.add_cleanup(fail)\n"
    )
    done = _pytest(tmp_path, {"conftest.py": conftest, "test_ok.py": "def test_ok():\n    pass\n"})
    assert done.returncode != 0, done.stdout + done.stderr
    assert "clean-up failed" in done.stderr


def test_threads_a_test_left_running_finish_before_the_exit(tmp_path: Path) -> None:
    test = (
        "import pathlib, threading, time\n"
        "def test_leaves_a_thread():\n"
        "    def work():\n"
        "        time.sleep(0.5)\n"
        "        pathlib.Path('finished').write_text('yes')\n"
        "    threading.Thread(target=work).start()\n"
    )
    done = _pytest(tmp_path, {"test_thread.py": test})
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "finished").exists()


def test_a_finaliser_failing_at_exit_fails_the_run(tmp_path: Path) -> None:
    # An object in a reference cycle, made by an exit handler after pytest's last
    # garbage collection: only the guard's collection finalises it.
    test = (
        "import atexit\n"
        "class Leaky:\n"
        "    def __del__(self):\n"
        "        raise RuntimeError('finaliser failed')\n"
        "def cycle():\n"
        "    leaky = Leaky()\n"
        "    leaky.me = leaky\n"
        "def test_registers():\n"
        "    atexit.register(cycle)\n"
    )
    done = _pytest(tmp_path, {"test_leaky.py": test})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "teardown errors at exit" in done.stderr
