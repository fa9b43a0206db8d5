"""Regenerates `src/ramp_client/models.py` from the service's OpenAPI document.

    python clients/python/generate.py                 # the document of this checkout
    python clients/python/generate.py --url http://127.0.0.1:8000/v1/openapi.json

Runs datamodel-code-generator (a dev dependency of the service, not of the client) on
the document's components, after two simplifications: validation keywords (lengths,
patterns, bounds, examples) are dropped, since the service validates every body and a
client that re-checked them would refuse what a newer service accepts; and titles of
properties are dropped, so that an optional string is `str | None` rather than a class
of its own. tests/test_python_client.py fails when the committed models and the
document drift apart.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
MODELS = HERE / "src" / "ramp_client" / "models.py"
REPOSITORY = HERE.parent.parent
VALIDATION_KEYWORDS = {
    "minLength",
    "maxLength",
    "pattern",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
    "examples",
}
HEADER = '''# ruff: noqa: E501, I001
# mypy: disable-error-code="assignment"
"""Typed bodies of the payment ramp API, generated from its OpenAPI document by
clients/python/generate.py (datamodel-code-generator): do not edit by hand."""
'''


def document(url: str | None) -> dict[str, Any]:
    if url is not None:
        import httpx

        loaded: dict[str, Any] = httpx.get(url, timeout=30).raise_for_status().json()
        return loaded
    sys.path.insert(0, str(REPOSITORY))
    from api.openapi import openapi_document

    return openapi_document()


def simplified(spec: dict[str, Any]) -> dict[str, Any]:
    def walk(node: Any, top: bool) -> None:
        if isinstance(node, dict):
            for key in [k for k in node if k in VALIDATION_KEYWORDS]:
                if not isinstance(node[key], dict):  # not a property named "pattern"
                    del node[key]
            if not top and isinstance(node.get("title"), str):
                del node["title"]
            for key, value in node.items():
                if key == "properties":
                    for schema in value.values():
                        walk(schema, False)
                else:
                    walk(value, False)
        elif isinstance(node, list):
            for item in node:
                walk(item, False)

    spec = json.loads(json.dumps(spec))
    for schema in spec["components"]["schemas"].values():
        walk(schema, True)
    return spec


def generate(spec: dict[str, Any], output: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        source = Path(scratch) / "openapi.json"
        source.write_text(json.dumps(simplified(spec)))
        subprocess.run(  # noqa: S603 (our own interpreter, fixed arguments)
            [
                sys.executable,
                "-m",
                "datamodel_code_generator",
                "--input",
                str(source),
                "--input-file-type",
                "openapi",
                "--output",
                str(output),
                "--output-model-type",
                "pydantic_v2.BaseModel",
                "--disable-timestamp",
                "--target-python-version",
                "3.11",
                "--use-standard-collections",
                "--use-union-operator",
                "--snake-case-field",
                "--allow-population-by-field-name",
                "--use-schema-description",
                "--use-field-description",
                "--enum-field-as-literal",
                "all",
                "--collapse-root-models",
                "--use-double-quotes",
                "--formatters",
                "ruff-format",
                "--custom-file-header",
                HEADER,
            ],
            check=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", help="read the document from a running service")
    parser.add_argument("--output", type=Path, default=MODELS)
    arguments = parser.parse_args()
    generate(document(arguments.url), arguments.output)


if __name__ == "__main__":
    main()
