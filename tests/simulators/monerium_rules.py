"""What Monerium's OpenAPI document requires of a request, as checks the simulator's
routes run before they change anything (tests/simulators/monerium.py), and the shape of
its error answers. Each check raises `Invalid` with the fields at fault, which the
simulator answers as Monerium's 400 "Validation errors"."""

from __future__ import annotations

import base64
import binascii
import re
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from eth_account import Account
from eth_account.messages import encode_defunct
from starlette.responses import JSONResponse

MEDIA_TYPE = "application/vnd.monerium.api-v2+json"
LINK_MESSAGE = "I hereby declare that I am the address owner."
SANDBOX_CHAINS = {"sepolia", "chiado", "amoy", "arbitrumsepolia", "lineasepolia",
                  "basesepolia", "grand"}  # fmt: skip
PRODUCTION_CHAINS = {"ethereum", "gnosis", "polygon", "arbitrum", "linea", "base", "noble"}
UUID4 = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
ADDRESS = re.compile(r"^0x[0-9a-fA-F]{40}$")
AMOUNT = re.compile(r"^\d+(\.\d{1,2})?$")
IBAN = re.compile(r"^[A-Z]{2}\d{2}(?:\s?[0-9A-Z]{4}){1,7}\s?[0-9A-Z]{1,4}$")
REDEEM_MESSAGE = re.compile(
    r"^Send ([A-Z]{3}) (\d+(?:\.\d{1,2})?) to ([A-Z]{2}\d{2}[A-Z0-9]+|[A-Z0-9]{4}\.\.\.[A-Z0-9]{4})"
    r" at (\d{4}-\d{2}-\d{2}T\d{2}:\d{2})(?::\d{2})?Z$"
)
PERSONAL_REQUIRED = ("firstName", "lastName", "address", "postalCode", "city", "country",
                     "nationality", "birthday", "phone", "email")  # fmt: skip
EVENT_TYPES = {"iban.updated", "order.created", "order.updated", "profile.updated"}
ORDER_REQUIRED = ("address", "currency", "chain", "kind", "amount", "signature", "message",
                  "counterpart")  # fmt: skip


class Invalid(Exception):
    def __init__(self, errors: dict[str, str], status: int = 400) -> None:
        super().__init__("Validation errors")
        self.errors, self.status = errors, status


def error(status: int, message: str, errors: dict[str, str] | None = None) -> JSONResponse:
    names = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
             409: "Conflict", 429: "Too Many Requests"}  # fmt: skip
    body: dict[str, Any] = {"code": status, "status": names.get(status, "Error"),
                            "message": message}  # fmt: skip
    if errors:
        body["errors"] = errors
    return JSONResponse(body, status_code=status)


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def signer(message: str, signature: str) -> str | None:
    """The address that signed `message` (EIP-191), or None for a signature that is not one."""
    try:
        return str(Account.recover_message(encode_defunct(text=message), signature=signature))
    except Exception:
        return None


def signed_by(message: str, signature: str, address: str) -> bool:
    return str(signer(message, signature)).lower() == address.lower()


def check_details(personal: object) -> dict[str, Any]:
    """A profile's personal details as submitted (completeness is decided by the caller)."""
    if not isinstance(personal, dict):
        raise Invalid({"personal": "required"})
    if personal.get("birthday") and not re.match(r"^\d{4}-\d{2}-\d{2}$", personal["birthday"]):
        raise Invalid({"personal.birthday": "must be YYYY-MM-DD"})
    # The document's example is "+3548888888": an international (E.164) number.
    if personal.get("phone") and not re.match(r"^\+[1-9][0-9]{7,14}$", personal["phone"]):
        raise Invalid({"personal.phone": "must be an international number, such as "
                       "+3548888888"})  # fmt: skip
    return personal


def check_upload(content: bytes, filename: str | None, content_type: str | None) -> None:
    if len(content) > 5 * 1024 * 1024 or len(filename or "") > 100:
        raise Invalid({"file": "at most 5 MB and a name of 100 characters"})
    if content_type not in ("application/pdf", "image/jpeg", "image/png"):
        raise Invalid({"file": "PDF or JPEG"})


def check_link(body: dict[str, Any], chains: set[str], environment: str) -> None:
    """An address link's fields (the profile and the signature are checked by the caller)."""
    if not ADDRESS.match(str(body.get("address") or "")):
        raise Invalid({"address": "Address missing"})
    if body.get("chain") not in chains:
        raise Invalid({"chain": f"not a chain of the {environment} environment"})
    if body.get("message") != LINK_MESSAGE:
        raise Invalid({"message": "must be the address-owner declaration"})


def check_order_id(body: dict[str, Any]) -> None:
    """What is checked of an order before whether its id is taken: the fields it must
    have, its kind, the id's shape."""
    missing = [k for k in ORDER_REQUIRED if not body.get(k)]
    if missing:
        raise Invalid(dict.fromkeys(missing, "required"))
    if body["kind"] != "redeem":
        raise Invalid({"kind": "only redeem orders are placed"})
    if body.get("id") is not None and not UUID4.match(str(body["id"])):
        raise Invalid({"id": "must be a version-4 UUID"})


def check_redeem(body: dict[str, Any]) -> str:
    """A redeem order's terms and its message; its counterpart's IBAN (without spaces).
    Whether the address is linked, and signed the message, is the caller's to check."""
    if not AMOUNT.match(str(body["amount"])):
        raise Invalid({"amount": "at most two decimals"})
    if Decimal(body["amount"]) >= 15000 and not body.get("supportingDocumentId"):
        raise Invalid({"supportingDocumentId": "required from 15000"})
    memo = body.get("memo")
    if memo is not None and not 5 <= len(memo) <= 140:
        raise Invalid({"memo": "between 5 and 140 characters"})
    identifier = (body["counterpart"] or {}).get("identifier") or {}
    iban = str(identifier.get("iban") or "")
    if identifier.get("standard") != "iban" or not IBAN.match(iban):
        raise Invalid({"counterpart.identifier.iban": "not an IBAN"})
    details = (body["counterpart"] or {}).get("details") or {}
    if not details.get("country") or not (
        details.get("companyName") or (details.get("firstName") and details.get("lastName"))
    ):
        raise Invalid({"counterpart.details": "a name and a country"})
    _check_message(body, iban.replace(" ", ""))
    return iban.replace(" ", "")


def _check_message(body: dict[str, Any], iban: str) -> None:
    match = REDEEM_MESSAGE.match(str(body["message"]))
    if match is None:
        raise Invalid({"message": "not a redeem message"})
    currency, amount, named, stamp = match.groups()
    short = f"{iban[:4]}...{iban[-4:]}"
    if currency != str(body["currency"]).upper() or amount != body["amount"]:
        raise Invalid({"message": "amount or currency differ from the order"})
    if named not in (iban, short):
        raise Invalid({"message": "the IBAN differs from the order"})
    when = datetime.fromisoformat(stamp + ":00+00:00")
    if when < datetime.now(UTC) - timedelta(minutes=5):
        raise Invalid({"message": "the timestamp is more than 5 minutes old"})


def check_subscription(body: dict[str, Any]) -> tuple[str, str, list[str]]:
    """A webhook subscription's url, secret and event types (the test call is the
    caller's to make)."""
    url, secret = str(body.get("url") or ""), str(body.get("secret") or "")
    types = body.get("types") or ["iban.updated", "profile.updated"]
    if not url.startswith(("http://", "https://")):
        raise Invalid({"url": "not a URL"})
    try:
        raw = base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except (binascii.Error, ValueError):
        raw = b""
    if not secret.startswith("whsec_") or not 24 <= len(raw) <= 64:
        raise Invalid({"secret": "whsec_ and 24 to 64 random bytes in base64"})
    if not set(types) <= EVENT_TYPES:
        raise Invalid({"types": "unknown event type"})
    return url, secret, list(types)
