"""The production shape's files: docker-compose.yml is a valid Compose file (the Compose
Specification's JSON Schema, vendored in tests/data), builds the image once and runs
Temporal as currently recommended; the Dockerfile and the scripts install the same
locked versions."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import jsonschema
import yaml  # type: ignore[import-untyped]  # (no stubs in the dev lock)

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "tests" / "data" / "compose-spec.json"
SCHEMA_SHA256 = "46b7d35f19dd93a05f8fea530291bf84d881c1791ec167ecf0e6fb94e639d496"


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_the_compose_file_follows_the_compose_specification() -> None:
    raw = SCHEMA.read_bytes()
    assert hashlib.sha256(raw).hexdigest() == SCHEMA_SHA256  # as vendored (tests/data)
    schema = json.loads(raw)
    jsonschema.Draft7Validator.check_schema(schema)
    errors = sorted(
        jsonschema.Draft7Validator(schema).iter_errors(compose()), key=lambda e: list(e.path)
    )
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_the_schema_refuses_what_compose_refuses() -> None:
    """The check can fail: an unknown key and a wrong type are errors."""
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_bytes()))
    broken = compose()
    broken["services"]["api"]["restart_policy"] = "always"
    broken["services"]["worker"]["depends_on"] = "migrate"
    messages = {error.message for error in validator.iter_errors(broken)}
    assert any("restart_policy" in message for message in messages), messages
    assert len(messages) >= 2, messages


def test_the_image_is_built_once_and_temporal_is_not_auto_setup() -> None:
    services = compose()["services"]
    built = [name for name, service in services.items() if "build" in service]
    assert built == ["migrate"]
    image = services["migrate"]["image"]
    for name in ("api", "worker", "dispatcher"):
        assert services[name]["image"] == image
    images = {name: service.get("image", "") for name, service in services.items()}
    assert not any("auto-setup" in value for value in images.values())
    assert images["temporal"].startswith("temporalio/server:")
    assert images["temporal-schema"].startswith("temporalio/admin-tools:")
    # The schema step's image and the server are the same release.
    version = re.compile(r"\$\{TEMPORAL(?:_ADMIN_TOOLS)?_VERSION:-([^}]+)\}")
    assert version.findall(images["temporal"]) == version.findall(images["temporal-schema"])
    assert services["temporal"]["depends_on"] == {
        "temporal-schema": {"condition": "service_completed_successfully"}
    }


def pins(lock: Path) -> dict[str, str]:
    return dict(re.findall(r"^([A-Za-z0-9_.\-]+)==(\S+) \\$", lock.read_text(), re.MULTILINE))


def test_the_image_and_the_scripts_install_the_same_locked_versions() -> None:
    runtime = ROOT / "requirements.lock"
    dev = ROOT / "requirements-dev.lock"
    for lock in (runtime, dev):
        text = lock.read_text()
        # Every requirement pinned, with its hashes (pip --require-hashes refuses others).
        requirements = re.findall(r"^\S.*$", text, re.MULTILINE)
        assert all(line.startswith("#") or "==" in line for line in requirements), lock
        hashed = re.findall(r"^\S+==\S+ \\\n    --hash=sha256:[0-9a-f]{64}", text, re.MULTILINE)
        assert text.count("==") == len(hashed) > 50, lock
    # The tests' lock adds packages; it never moves one of the service's.
    service, tests = pins(runtime), pins(dev)
    assert {name: tests.get(name) for name in service} == service
    dockerfile = (ROOT / "Dockerfile").read_text()
    assert "pip install --require-hashes -r requirements.lock" in dockerfile
    assert "--no-deps" in dockerfile
    venv = (ROOT / "scripts" / "lib" / "venv.sh").read_text()
    assert "--require-hashes" in venv
    assert "requirements${extra:+-$extra}.lock" in venv
    # Every dependency of pyproject.toml is in its lock.
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    wanted = [(r, service) for r in project["dependencies"]]
    wanted += [(r, tests) for r in project["optional-dependencies"]["dev"]]
    for requirement, locked in wanted:
        name = re.split(r"[\[<>=!~ ;]", requirement, maxsplit=1)[0].lower().replace("_", "-")
        assert name in locked, (name, "is not locked: regenerate the locks (scripts/lock)")
