"""The README's walk through the API, run as a reader runs it: its shell block, as
written, against `ramp dev` (a subprocess on free ports), by bash with curl and jq.
Every line the walk prints must match the `#>` line the README shows for it."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.helpers.sandbox import SharedSandbox

README = Path(__file__).resolve().parent.parent / "README.md"
DOCUMENTED_API = "http://127.0.0.1:8000"
# Values that differ on every run, shown in full in the README: any of the same shape
# matches (ids, deposit references).
VARYING = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|RMP[A-Z0-9]{12}"
)


def walk() -> str:
    """The shell block of the README's "A walk through the API" section."""
    section = README.read_text(encoding="utf-8").split("## A walk through the API", 1)[1]
    return section.split("```sh\n", 1)[1].split("```", 1)[0]


def pattern(documented: str, api: str) -> re.Pattern[str]:
    """A documented output line as a pattern: `...` stands for anything, and ids and
    references for any of their shape."""

    def literal(text: str) -> str:
        pieces, last = [], 0
        for found in VARYING.finditer(text):
            shape = "RMP[A-Z0-9]{12}" if found[0].startswith("RMP") else "[0-9a-f-]{36}"
            pieces += [re.escape(text[last : found.start()]), shape]
            last = found.end()
        return "".join([*pieces, re.escape(text[last:])])

    return re.compile(
        ".*?".join(map(literal, documented.replace(DOCUMENTED_API, api).split("...")))
    )


def test_the_pattern_of_a_documented_line() -> None:
    line = '{"id":"544e139a-7ee3-4639-9f2e-c2a06e7eb236","token":"eyJ...","ref":"RMPHHRVDZ7OJAFG"}'
    shown = '{"id":"0b0c35a1-0e3e-4a36-8d4e-2f0e8d7a0c11","token":"eyJabc","ref":"RMPAAAAAAAAAAAA"}'
    assert pattern(line, "x").fullmatch(shown)
    assert not pattern(line, "x").fullmatch(shown.replace("RMP", "XYZ"))
    assert pattern(f'"{DOCUMENTED_API}/v1"', "http://127.0.0.1:5").fullmatch(
        '"http://127.0.0.1:5/v1"'
    )


def test_the_readme_walk_prints_what_the_readme_shows(shared_sandbox: SharedSandbox) -> None:
    """Against a sandbox started as a new user starts it (tests/helpers/sandbox.py: shared
    with the privacy tests, which only read it; it must end with Ctrl-C, exit 0)."""
    for tool in ("bash", "curl", "jq"):
        assert shutil.which(tool), f"{tool} is missing: ./scripts/test installs curl and jq"
    script = walk()
    documented = [line[3:] for line in script.splitlines() if line.startswith("#> ")]
    assert len(documented) >= 15
    sandbox = shared_sandbox
    client_id, secret = sandbox.credentials()
    # The reader's two edits: where the API is, and the demo credentials.
    runnable = script.replace(f"API={DOCUMENTED_API}/v1", f"API={sandbox.api}/v1").replace(
        "AUTH=ci_sandbox_...:sk_sandbox_...", f"AUTH={client_id}:{secret}"
    )
    assert runnable.count(sandbox.api) == 1
    assert runnable.count(secret) == 1
    done = subprocess.run(
        [str(shutil.which("bash")), "-euo", "pipefail", "-c", runnable],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr + sandbox.log
    assert done.stderr == ""
    printed = done.stdout.splitlines()
    assert len(printed) == len(documented), done.stdout
    for shown, line in zip(printed, documented, strict=True):
        assert pattern(line, sandbox.api).fullmatch(shown), (line, shown)
