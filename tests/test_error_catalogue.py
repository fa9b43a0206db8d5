"""One error catalogue (ramp/errors.py): the codes of provider calls, provider webhooks,
OIDC tokens and wallet sign-in are spelled there only; everywhere else names them
through their enum, so a code cannot drift between the place that raises it and the
place that reads it."""

from __future__ import annotations

import ast
from pathlib import Path

from ramp.errors import OidcError, ProviderCallError, ProviderWebhookError, SiweError

ROOT = Path(__file__).resolve().parent.parent
SOURCES = ("ramp", "api", "activities", "workflows", "devstack", "worker.py")
CATALOGUED = {
    code.value for family in (OidcError, ProviderCallError, ProviderWebhookError, SiweError)
    for code in family
}  # fmt: skip


def _literals() -> list[str]:
    found: list[str] = []
    for source in SOURCES:
        path = ROOT / source
        for module in [path] if path.is_file() else sorted(path.rglob("*.py")):
            if module == ROOT / "ramp" / "errors.py":
                continue
            for node in ast.walk(ast.parse(module.read_text(), str(module))):
                if isinstance(node, ast.Constant) and isinstance(node.value, str):
                    text = node.value
                    if text in CATALOGUED or text.startswith(("OIDC_", "SIWE_")):
                        found.append(f"{module.relative_to(ROOT)}:{node.lineno}: {text}")
    return found


def test_catalogued_codes_are_spelled_in_the_catalogue_only() -> None:
    assert _literals() == []


def test_the_wire_codes_did_not_change() -> None:
    # Clients and docs read these strings: the enums name them, never rename them.
    assert ProviderWebhookError.INVALID_WEBHOOK_SIGNATURE == "INVALID_WEBHOOK_SIGNATURE"
    assert {c.value for c in SiweError} >= {
        "SIWE_MALFORMED", "SIWE_BAD_SIGNATURE", "SIWE_CHAIN_MISMATCH", "SIWE_DOMAIN_MISMATCH",
        "SIWE_URI_MISMATCH", "SIWE_SCHEME_MISMATCH", "SIWE_EXPIRED", "SIWE_NOT_YET_VALID",
        "SIWE_ISSUED_AT_TOO_OLD", "SIWE_ISSUED_AT_IN_FUTURE", "SIWE_NONCE_INVALID",
        "SIWE_VERIFICATION_FAILED",
    }  # fmt: skip
    assert all(c.name == c.value for f in (OidcError, SiweError, ProviderCallError) for c in f)
