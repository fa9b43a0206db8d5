# shellcheck shell=bash
# Sourced by scripts/sandbox and scripts/test: `ensure_venv [EXTRA]` makes .venv (if
# missing) and installs the project into it, with EXTRA (e.g. dev) if given.
#
# pip runs only when .venv is new or pyproject.toml changed since the last install (a
# stamp .venv/.installed[-EXTRA]-<hash of pyproject.toml> records it): a start costs no
# pip run, and works offline once installed. The install is editable, so source changes
# never need one. A dev install serves a plain one too (dev only adds packages).

pyproject_hash() {
  .venv/bin/python -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest()[:16])'
}

ensure_venv() {
  local extra=${1:-} python=${PYTHON:-python3} reason="" hash stamp
  if [ ! -x .venv/bin/python ]; then
    "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
      || { echo "Python 3.11+ is required (set PYTHON=...)" >&2; exit 2; }
    "$python" -m venv .venv
    reason="a new .venv"
  fi
  hash=$(pyproject_hash)
  stamp=".venv/.installed${extra:+-$extra}-$hash"
  if [ -z "$reason" ]; then
    if [ -e "$stamp" ] || { [ -z "$extra" ] && [ -e ".venv/.installed-dev-$hash" ]; }; then
      return 0
    fi
    reason="pyproject.toml changed since the last install"
  fi
  echo "== installing the project${extra:+ with [$extra]} into .venv ($reason)"
  # Stamps go first: a half-done install must not count as one.
  rm -f .venv/.installed-*
  .venv/bin/python -m pip install --quiet --upgrade pip
  .venv/bin/python -m pip install --quiet -e ".${extra:+[$extra]}"
  touch "$stamp"
}

# Caches the bytecode of our own packages (skipped when up to date). Each process the
# service or the tests start imports them: without a cache (an editable install is never
# compiled, and PYTHONDONTWRITEBYTECODE stops Python writing one) every start compiles
# their source again, about 0.4 s of CPU each.
compile_sources() {
  .venv/bin/python -m compileall -q -j 0 api ramp workflows activities devstack worker.py webhook_dispatcher.py bench tests >/dev/null
}
