# shellcheck shell=bash
# Sourced by scripts/sandbox and scripts/test: `ensure_venv [EXTRA]` makes .venv (if
# missing) and installs into it the locked dependencies (requirements.lock, or
# requirements-EXTRA.lock, e.g. requirements-dev.lock: every version pinned and every
# file's hash checked, the same lock the Dockerfile installs), then the project itself,
# editable, without dependencies: a clone and the image run the same versions.
#
# pip runs only when .venv is new, has no finished install, lacks EXTRA, or
# pyproject.toml or a lock changed since the last install (a stamp
# .venv/.installed[-EXTRA]-<hash of pyproject.toml and the locks> records each install):
# a start costs no pip run, and works offline once installed. The install is editable,
# so source changes never need one. A dev install serves a plain one too (the dev lock
# holds the service's versions and adds the tests' packages). Each step says what it
# does and, when done, how long it took; pip prints its own progress.
# The locks are made by scripts/lock (pip-tools' pip-compile).

# The hash of what an install is made from: pyproject.toml and the locks beside it.
pyproject_hash() {
  .venv/bin/python -c 'import glob, hashlib
digest = hashlib.sha256()
for name in ["pyproject.toml", *sorted(glob.glob("requirements*.lock"))]:
    digest.update(open(name, "rb").read())
print(digest.hexdigest()[:16])'
}

# `step_done START`: the seconds since START (a `date +%s.%N`), as "1.2 s".
step_done() {
  awk -v start="$1" -v end="$(date +%s.%N)" 'BEGIN { printf "%.1f s\n", end - start }'
}

# Why .venv needs an install of EXTRA for pyproject.toml's HASH (empty if it does not).
install_reason() {
  local extra=$1 hash=$2 stamps
  stamps=$(cd .venv && ls -1 .installed-* 2>/dev/null || true)
  if [ -e ".venv/.installed${extra:+-$extra}-$hash" ] \
    || { [ -z "$extra" ] && [ -e ".venv/.installed-dev-$hash" ]; }; then
    return 0
  fi
  if [ -z "$stamps" ]; then
    echo "no install into it has finished yet"
  elif [ -n "$extra" ] && [ -e ".venv/.installed-$hash" ]; then
    echo "the [$extra] extras were never installed into it: only the service was"
  else
    echo "pyproject.toml changed since the last install, or its lock did"
  fi
}

ensure_venv() {
  local extra=${1:-} python=${PYTHON:-python3} reason="" hash stamp started
  if [ ! -x .venv/bin/python ]; then
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
      || { echo "Python 3.11+ is required (set PYTHON=...)" >&2; exit 2; }
    started=$(date +%s.%N)
    echo "== creating .venv ($("$python" --version))"
    "$python" -m venv .venv
    echo "   .venv created in $(step_done "$started")"
    reason="a new .venv"
  fi
  hash=$(pyproject_hash)
  stamp=".venv/.installed${extra:+-$extra}-$hash"
  [ -n "$reason" ] || reason=$(install_reason "$extra" "$hash")
  [ -n "$reason" ] || return 0
  echo "== installing the project${extra:+ with [$extra]} into .venv ($reason); pip's progress follows"
  started=$(date +%s.%N)
  # Stamps go first: a half-done install must not count as one.
  rm -f .venv/.installed-*
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --require-hashes -r "requirements${extra:+-$extra}.lock"
  .venv/bin/python -m pip install --no-deps -e .
  touch "$stamp"
  echo "   installed in $(step_done "$started") (later runs skip this step)"
}

# Caches the bytecode of our own packages (skipped when up to date). Each process the
# service or the tests start imports them: without a cache (an editable install is never
# compiled, and PYTHONDONTWRITEBYTECODE stops Python writing one) every start compiles
# their source again, about 0.4 s of CPU each.
compile_sources() {
  local started
  started=$(date +%s.%N)
  .venv/bin/python -m compileall -q -j 0 api ramp workflows activities devstack worker.py webhook_dispatcher.py bench tests >/dev/null
  echo "== bytecode of our packages compiled (skipped where current) in $(step_done "$started")"
}

# Caches the test modules as pytest runs them: pytest rewrites each test module's asserts
# (parse, rewrite, compile: about 3 s of CPU for the suite's modules) and, where
# PYTHONDONTWRITEBYTECODE is set, never caches the result, so each of the run's pytest
# processes did it again. It reads a cache it finds all the same (hash-checked, named
# for its version), so the rewritten modules are written once here. Through pytest's own
# rewriting functions (private: should a pytest release move them, this says so and the
# run goes on without the cache). Skipped where current.
compile_tests() {
  local started
  started=$(date +%s.%N)
  .venv/bin/python - <<'PYTHON'
import importlib.util
import pathlib
import sys

try:
    from _pytest.assertion import rewrite
    tail, read, rewrite_test, write = (
        rewrite.PYC_TAIL, rewrite._read_pyc, rewrite._rewrite_test, rewrite._write_pyc
    )
except (ImportError, AttributeError) as error:
    sys.exit(f"   test modules not cached (pytest's rewriting moved: {error})")


class State:
    def trace(self, message: str) -> None:
        pass


for source in sorted(pathlib.Path("tests").rglob("*.py")):
    cache = source.parent / "__pycache__"
    pyc = cache / (source.name[:-3] + tail)
    if read(source, pyc) is None:
        cache.mkdir(exist_ok=True)
        source_hash, code = rewrite_test(source, None)
        write(State(), code, source_hash, pyc)
PYTHON
  echo "== test modules rewritten for pytest (skipped where current) in $(step_done "$started")"
}
