"""Secrets stay out of the repository and the image (issue 23): the README's production
recipe writes its data dir (keys.json, databases) and the provider credentials file
outside the work tree, and the names people give such files are in both `.gitignore`
and `.dockerignore` (the Dockerfile's `COPY . .` takes whatever the latter lets in)."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# What a deployment's secrets and data are called, as people would name them.
SECRET_PATHS = [
    ".ramp/keys.json",
    ".ramp-prod/keys.json",
    ".ramp-prod/ramp.db",
    ".ramp-prod/temporal.db-wal",
    ".ramp-production/stack.json",
    "keys.json",
    "deploy/keys.json",
    "bridge.json",
    "bridge-credentials.json",
    "secrets/provider_credentials.json",
    ".env",
    ".env.production",
    "deploy/.env",
    "signing-key.pem",
]
# What the image needs: none of it may be caught by the new names.
NEEDED_PATHS = ["pyproject.toml", "ramp/config.py", "api/app.py", "worker.py"]


@pytest.mark.parametrize("path", SECRET_PATHS)
def test_git_ignores_the_names_secrets_go_by(path: str) -> None:
    checked = subprocess.run(
        ["git", "check-ignore", "--quiet", "--no-index", path],  # noqa: S607 - git on PATH
        cwd=ROOT,
        check=False,
    )
    assert checked.returncode == 0, f"{path} is not ignored by .gitignore"


@pytest.mark.parametrize("path", SECRET_PATHS)
def test_the_image_never_takes_them(path: str) -> None:
    assert _docker_excludes(path), f"{path} would be copied into the image"


def test_the_image_still_takes_the_code() -> None:
    for path in NEEDED_PATHS:
        assert not _docker_excludes(path), path


def test_the_production_recipe_writes_outside_the_work_tree() -> None:
    readme = (ROOT / "README.md").read_text()
    recipe = readme.split("## Production on one machine", 1)[1].split("\n## ", 1)[0]
    blocks = "\n".join(re.findall(r"```sh\n(.*?)```", recipe, re.DOTALL))
    # Commands only: `#>` lines show what they print.
    commands = "\n".join(line for line in blocks.splitlines() if not line.startswith("#"))
    assert commands, "the recipe's commands were not found"
    for option in ("--data-dir", "--credentials-file"):
        for value in re.findall(rf"{option} (\S+)", commands):
            assert value.startswith(('"$', "$", "/", "~")), f"{option} {value} is in the work tree"
    redirected = re.findall(r">\s*(\S+)", commands)
    assert redirected, "the recipe writes its credentials file with a redirection"
    for target in redirected:
        assert target.startswith(('"$', "$", "/", "~")), f"> {target} writes into the work tree"
    assert "umask 077" in commands


def _docker_excludes(path: str) -> bool:
    """Whether .dockerignore leaves `path` (relative to the build context) out, by
    Docker's rules: a pattern matches the path or one of its parent folders; `*` and
    `?` stay within a path segment, `**` spans any number of them (none included); a
    later `!pattern` lets a path back in."""
    excluded = False
    for line in (ROOT / ".dockerignore").read_text().splitlines():
        pattern = line.strip()
        if not pattern or pattern.startswith("#"):
            continue
        keep = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        parts = path.split("/")
        if any(_matches(pattern.split("/"), parts[:n]) for n in range(1, len(parts) + 1)):
            excluded = not keep
    return excluded


def _matches(pattern: list[str], parts: list[str]) -> bool:
    if not pattern:
        return not parts
    if pattern[0] == "**":
        return any(_matches(pattern[1:], parts[n:]) for n in range(len(parts) + 1))
    return (
        bool(parts)
        and fnmatch.fnmatchcase(parts[0], pattern[0])
        and _matches(pattern[1:], parts[1:])
    )
